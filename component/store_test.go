package component_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func ptr[T any](v T) *T { return &v }

func newStore(t *testing.T, db *sqldb.DB) *component.Store {
	t.Helper()
	s, err := component.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCreateGetListDelete(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		// A second New migrates nothing and keeps the rows.
		c, cfg, err := s.Create(ctx, component.CreateParams{ComponentID: "writer", ComponentType: component.Agent, Name: "Writer",
			Description: ptr("writes"), Metadata: map[string]any{"owner": "docs"}, Config: map[string]any{"instructions": "Be brief."}, SetCurrent: true})
		if err != nil {
			t.Fatal(err)
		}
		if c.CurrentVersion != nil || cfg.Version != 1 || cfg.Stage != component.StageDraft || cfg.Config["instructions"] != "Be brief." {
			t.Fatalf("draft create: %+v %+v", c, cfg)
		}
		s = newStore(t, db)
		got, err := s.Get(ctx, "writer")
		if err != nil || *got.Name != "Writer" || *got.Description != "writes" || got.Metadata["owner"] != "docs" || got.CreatedAt == 0 || got.UpdatedAt != nil {
			t.Fatalf("get: %+v %v", got, err)
		}
		// The same id again, as agno: 400 already exists.
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "writer", ComponentType: component.Agent, Name: "x"}); !errors.Is(err, component.ErrInvalid) || err.Error() != "Component writer already exists" {
			t.Fatalf("duplicate: %v", err)
		}
		// Published first version is current.
		if c, _, err := s.Create(ctx, component.CreateParams{ComponentID: "crew", ComponentType: component.Team, Name: "Crew", Stage: component.StagePublished, SetCurrent: true}); err != nil || c.CurrentVersion == nil || *c.CurrentVersion != 1 {
			t.Fatalf("published create: %+v %v", c, err)
		}
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "bad", ComponentType: component.Agent, Stage: "final"}); err == nil || err.Error() != "Invalid stage: final" {
			t.Fatalf("stage: %v", err)
		}
		if _, err := s.Get(ctx, "bad"); !errors.Is(err, component.ErrNotFound) {
			t.Fatalf("a refused create stored something: %v", err)
		}

		list, total, err := s.List(ctx, component.ListQuery{Limit: 20})
		if err != nil || total != 2 || len(list) != 2 {
			t.Fatalf("list: %d %d %v", total, len(list), err)
		}
		teams, total, err := s.List(ctx, component.ListQuery{Type: component.Team, Limit: 20})
		if err != nil || total != 1 || teams[0].ComponentID != "crew" {
			t.Fatalf("list teams: %v %d %v", teams, total, err)
		}
		page2, total, err := s.List(ctx, component.ListQuery{Limit: 1, Offset: 1})
		if err != nil || total != 2 || len(page2) != 1 {
			t.Fatalf("page 2: %v %d %v", page2, total, err)
		}

		up, err := s.Update(ctx, "writer", component.Update{Name: ptr("Writer 2"), Metadata: map[string]any{"n": 1}})
		if err != nil || *up.Name != "Writer 2" || *up.Description != "writes" || up.UpdatedAt == nil {
			t.Fatalf("update: %+v %v", up, err)
		}
		if _, err := s.Update(ctx, "writer", component.Update{ComponentType: ptr(component.Type("robot"))}); !errors.Is(err, component.ErrInvalid) {
			t.Fatalf("bad type: %v", err)
		}
		if _, err := s.Update(ctx, "nobody", component.Update{Name: ptr("x")}); !errors.Is(err, component.ErrNotFound) {
			t.Fatalf("update missing: %v", err)
		}

		if ok, err := s.Delete(ctx, "writer"); !ok || err != nil {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if _, err := s.Get(ctx, "writer"); !errors.Is(err, component.ErrNotFound) || err.Error() != "Component writer not found" {
			t.Fatalf("deleted get: %v", err)
		}
		if _, total, _ := s.List(ctx, component.ListQuery{}); total != 1 {
			t.Fatalf("deleted listed: %d", total)
		}
		if _, total, _ := s.List(ctx, component.ListQuery{IncludeDeleted: true}); total != 2 {
			t.Fatalf("include deleted: %d", total)
		}
		if ok, _ := s.Delete(ctx, "nobody"); ok {
			t.Fatal("deleted a missing component")
		}
		if cfgs, err := s.ListConfigs(ctx, "writer", true); err != nil || len(cfgs) != 0 {
			t.Fatalf("configs of a deleted component: %v %v", cfgs, err)
		}
		if ok, err := s.HardDelete(ctx, "writer"); !ok || err != nil {
			t.Fatalf("hard delete: %v %v", ok, err)
		}
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "writer", ComponentType: component.Agent, Name: "again"}); err != nil {
			t.Fatalf("create after hard delete: %v", err)
		}
	})
}

func TestConfigVersions(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "a", ComponentType: component.Agent, Name: "A",
			Config: map[string]any{"instructions": "v1"}, Stage: component.StagePublished, SetCurrent: true}); err != nil {
			t.Fatal(err)
		}
		v2, err := s.CreateConfig(ctx, "a", component.ConfigParams{Config: map[string]any{"instructions": "v2"}, Label: ptr("beta"), Notes: ptr("try"), SetCurrent: true})
		if err != nil || v2.Version != 2 || v2.Stage != component.StageDraft || *v2.Label != "beta" || *v2.Notes != "try" {
			t.Fatalf("v2: %+v %v", v2, err)
		}
		// A draft does not move current.
		cur, err := s.GetConfig(ctx, "a", nil)
		if err != nil || cur.Version != 1 {
			t.Fatalf("current after draft: %+v %v", cur, err)
		}
		if _, err := s.CreateConfig(ctx, "a", component.ConfigParams{Config: map[string]any{}, Label: ptr("beta")}); err == nil || err.Error() != "Label 'beta' already exists for a" {
			t.Fatalf("label: %v", err)
		}
		if _, err := s.CreateConfig(ctx, "a", component.ConfigParams{}); !errors.Is(err, component.ErrInvalid) {
			t.Fatalf("no config: %v", err)
		}
		if _, err := s.CreateConfig(ctx, "ghost", component.ConfigParams{Config: map[string]any{}}); !errors.Is(err, component.ErrNotFound) {
			t.Fatalf("missing component: %v", err)
		}
		links := []component.Link{{LinkKind: "member", LinkKey: "b", ChildComponentID: "b", ChildVersion: ptr(1), Position: 0, Meta: map[string]any{"role": "x"}}}
		v3, err := s.CreateConfig(ctx, "a", component.ConfigParams{Config: map[string]any{"instructions": "v3"}, Stage: component.StagePublished, Links: links, SetCurrent: true})
		if err != nil || v3.Version != 3 || len(v3.Links) != 1 || v3.Links[0].Meta["role"] != "x" {
			t.Fatalf("v3: %+v %v", v3, err)
		}
		if c, _ := s.Get(ctx, "a"); *c.CurrentVersion != 3 {
			t.Fatalf("publish did not set current: %v", *c.CurrentVersion)
		}
		if _, err := s.CreateConfig(ctx, "a", component.ConfigParams{Config: map[string]any{}, Links: []component.Link{{LinkKind: "member", LinkKey: "b", ChildComponentID: "b"}}}); err == nil || err.Error() != "child_version is required for link to b" {
			t.Fatalf("link without version: %v", err)
		}

		// Published configs are immutable; drafts are not.
		if _, err := s.UpdateConfig(ctx, "a", 3, component.ConfigUpdate{Notes: ptr("x")}); err == nil || err.Error() != "Cannot update published config a v3" {
			t.Fatalf("edit published: %v", err)
		}
		up, err := s.UpdateConfig(ctx, "a", 2, component.ConfigUpdate{Config: map[string]any{"instructions": "v2b"}, Notes: ptr("edited")})
		if err != nil || up.Config["instructions"] != "v2b" || *up.Notes != "edited" || *up.Label != "beta" || up.UpdatedAt == nil {
			t.Fatalf("edit draft: %+v %v", up, err)
		}
		if _, err := s.UpdateConfig(ctx, "a", 9, component.ConfigUpdate{Notes: ptr("x")}); err == nil || err.Error() != "Config a v9 not found" {
			t.Fatalf("edit missing: %v", err)
		}

		// Set current: drafts refused, published accepted, missing false.
		if _, err := s.SetCurrent(ctx, "a", 2); err == nil || err.Error() != "Cannot set draft config a v2 as current. Only published configs can be current." {
			t.Fatalf("draft current: %v", err)
		}
		if ok, err := s.SetCurrent(ctx, "a", 1); !ok || err != nil {
			t.Fatalf("rollback: %v %v", ok, err)
		}
		if ok, err := s.SetCurrent(ctx, "a", 42); ok || err != nil {
			t.Fatalf("missing version: %v %v", ok, err)
		}
		if cur, _ := s.GetConfig(ctx, "a", nil); cur.Version != 1 || cur.Config["instructions"] != "v1" {
			t.Fatalf("current after rollback: %+v", cur)
		}

		// Publishing a draft through an update makes it current.
		if _, err := s.UpdateConfig(ctx, "a", 2, component.ConfigUpdate{Stage: ptr(component.StagePublished)}); err != nil {
			t.Fatal(err)
		}
		if c, _ := s.Get(ctx, "a"); *c.CurrentVersion != 2 {
			t.Fatalf("publish by update: %v", *c.CurrentVersion)
		}

		all, err := s.ListConfigs(ctx, "a", false)
		if err != nil || len(all) != 3 || all[0].Version != 3 || all[0].Config != nil {
			t.Fatalf("list configs: %v %v", all, err)
		}
		full, _ := s.ListConfigs(ctx, "a", true)
		if full[2].Config["instructions"] != "v1" {
			t.Fatalf("list with configs: %+v", full[2])
		}

		// Delete: the current version is refused, others go with their links.
		if _, err := s.DeleteConfig(ctx, "a", 2); err == nil || err.Error() != "Cannot delete current config a v2" {
			t.Fatalf("delete current: %v", err)
		}
		if ok, err := s.DeleteConfig(ctx, "a", 3); !ok || err != nil {
			t.Fatalf("delete v3: %v %v", ok, err)
		}
		if ok, _ := s.DeleteConfig(ctx, "a", 3); ok {
			t.Fatal("deleted twice")
		}
		if _, err := s.GetConfig(ctx, "a", ptr(3)); !errors.Is(err, component.ErrNotFound) {
			t.Fatalf("deleted version: %v", err)
		}
		// The next version is the highest plus one, as agno's.
		if v, err := s.CreateConfig(ctx, "a", component.ConfigParams{Config: map[string]any{}}); err != nil || v.Version != 3 {
			t.Fatalf("next version after deleting the latest: %+v %v", v, err)
		}
	})
}

func TestLatestDraftIsLiveWithoutCurrent(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "d", ComponentType: component.Agent, Name: "D", Config: map[string]any{"n": 1}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateConfig(ctx, "d", component.ConfigParams{Config: map[string]any{"n": 2}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "p", ComponentType: component.Workflow, Name: "P", Stage: component.StagePublished, SetCurrent: true, Config: map[string]any{"n": 7}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateConfig(ctx, "p", component.ConfigParams{Config: map[string]any{"n": 8}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "gone", ComponentType: component.Agent, Name: "G"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Delete(ctx, "gone"); err != nil {
			t.Fatal(err)
		}
		lives, err := s.Lives(ctx)
		if err != nil || len(lives) != 2 {
			t.Fatalf("lives: %v %v", lives, err)
		}
		got := map[string]int{}
		for _, l := range lives {
			got[l.Component.ComponentID] = l.Config.Version
		}
		if got["d"] != 2 || got["p"] != 1 {
			t.Fatalf("live versions: %v", got)
		}
		if cur, _ := s.GetConfig(ctx, "d", nil); cur.Version != 2 {
			t.Fatalf("current of a draft-only component: %d", cur.Version)
		}
	})
}

func TestConcurrentVersions(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "c", ComponentType: component.Agent, Name: "C"}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.CreateConfig(ctx, "c", component.ConfigParams{Config: map[string]any{}})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		all, _ := s.ListConfigs(ctx, "c", false)
		if len(all) != 9 || all[0].Version != 9 {
			t.Fatalf("versions: %d, latest %d", len(all), all[0].Version)
		}
	})
}

// A component keeps its owner; who it acts for is replaced by
// SetPrincipal and read back by Get and Lives.
func TestOwnerAndPrincipal(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, _, err := s.Create(ctx, component.CreateParams{ComponentID: "w", ComponentType: component.Agent, Name: "W",
			CreatedBy: "alice", Principal: []byte(`{"user_id":"alice"}`), Stage: component.StagePublished, SetCurrent: true}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "w")
		if err != nil || got.CreatedBy != "alice" || !strings.Contains(string(got.Principal), `"alice"`) {
			t.Fatalf("created: %+v %v", got, err)
		}
		if ok, err := s.SetPrincipal(ctx, "w", []byte(`{"user_id":"root"}`)); !ok || err != nil {
			t.Fatalf("SetPrincipal: %v %v", ok, err)
		}
		lives, err := s.Lives(ctx)
		if err != nil || len(lives) != 1 || lives[0].Component.CreatedBy != "alice" || !strings.Contains(string(lives[0].Component.Principal), `"root"`) {
			t.Fatalf("lives: %+v %v", lives, err)
		}
		if ok, _ := s.SetPrincipal(ctx, "nope", nil); ok {
			t.Fatal("SetPrincipal of a missing component")
		}
	})
}

// Tables made before owners existed gain the columns; their rows read
// with no owner and no principal.
func TestMigratesVersion1Table(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		var v1 []sqldb.Migration
		for _, m := range component.Migrations(db) {
			if m.Version == 1 {
				v1 = append(v1, m)
			}
		}
		if err := db.Migrate(ctx, v1); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO {t:agno_components} (component_id, component_type, created_at) VALUES ('old', 'agent', 1)`); err != nil {
			t.Fatal(err)
		}
		got, err := newStore(t, db).Get(ctx, "old")
		if err != nil || got.CreatedBy != "" || got.Principal != nil {
			t.Fatalf("old row: %+v %v", got, err)
		}
	})
}
