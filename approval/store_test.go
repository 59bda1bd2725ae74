package approval_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func newStore(t *testing.T, db *sqldb.DB) *approval.Store {
	t.Helper()
	s, err := approval.NewStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// A second open (another replica) migrates nothing and works.
	if _, err := approval.NewStore(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return s
}

func sample(id, run, user string, created int64) *approval.Approval {
	return &approval.Approval{ID: id, RunID: run, SessionID: "s-" + run, SourceType: approval.SourceAgent,
		ApprovalType: approval.TypeRequired, PauseType: "confirmation", ToolName: "pay", ToolArgs: map[string]any{"amount": 5.0},
		AgentID: "payer", UserID: user, SourceName: "Payer", CreatedAt: created, RunStatus: "PAUSED",
		Requirements: json.RawMessage(`[{"id":"r1"}]`), Context: map[string]any{"tool_names": []any{"pay"}}}
}

func TestStoreRoundTrip(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		a := sample("a1", "run1", "u1", 100)
		created, err := s.Create(ctx, a)
		if err != nil || !created {
			t.Fatalf("create: %v %v", created, err)
		}
		// Idempotent by id: a replica recording the same pause writes nothing.
		again := sample("a1", "run1", "other", 200)
		if created, err := s.Create(ctx, again); err != nil || created {
			t.Fatalf("second create: %v %v", created, err)
		}
		got, err := s.Get(ctx, "a1")
		if err != nil {
			t.Fatal(err)
		}
		if got.UserID != "u1" || got.ToolName != "pay" || got.ToolArgs["amount"] != 5.0 || got.Status != approval.StatusPending ||
			got.ApprovalType != approval.TypeRequired || got.CreatedAt != 100 || got.RunStatus != "PAUSED" || got.SourceName != "Payer" {
			t.Fatalf("got %+v", got)
		}
		if string(got.Requirements) == "" || got.Context["tool_names"] == nil || got.TeamID != "" || got.ResolvedAt != nil || got.ExpiresAt != nil {
			t.Fatalf("json/null fields: %+v", got)
		}
		if _, err := s.Get(ctx, "missing"); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
		if ok, err := s.Delete(ctx, "a1"); err != nil || !ok {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if ok, err := s.Delete(ctx, "a1"); err != nil || ok {
			t.Fatalf("second delete: %v %v", ok, err)
		}
	})
}

func TestStoreListFiltersAndPages(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		for i, id := range []string{"a", "b", "c", "d", "e"} {
			a := sample(id, "run-"+id, "u1", int64(100+i))
			if i%2 == 1 {
				a.UserID, a.ApprovalType, a.SourceType, a.AgentID, a.TeamID = "u2", approval.TypeAudit, approval.SourceTeam, "", "t1"
				a.Status, a.PauseType = approval.StatusApproved, "user_input"
			}
			if id == "e" {
				a.WorkflowID, a.ScheduleID = "wf", "sch"
			}
			if _, err := s.Create(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(f approval.Filter) ([]string, int) {
			t.Helper()
			list, total, err := s.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, a := range list {
				out = append(out, a.ID)
			}
			return out, total
		}
		check := func(f approval.Filter, want []string, wantTotal int) {
			t.Helper()
			got, total := ids(f)
			if total != wantTotal || len(got) != len(want) {
				t.Fatalf("%+v: got %v (total %d), want %v (total %d)", f, got, total, want, wantTotal)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%+v: got %v, want %v", f, got, want)
				}
			}
		}
		check(approval.Filter{}, []string{"e", "d", "c", "b", "a"}, 5)
		check(approval.Filter{Limit: 2, Page: 2}, []string{"c", "b"}, 5)
		check(approval.Filter{Limit: 2, Page: 3}, []string{"a"}, 5)
		check(approval.Filter{Status: approval.StatusPending}, []string{"e", "c", "a"}, 3)
		check(approval.Filter{ApprovalType: approval.TypeAudit}, []string{"d", "b"}, 2)
		check(approval.Filter{SourceType: approval.SourceTeam, TeamID: "t1"}, []string{"d", "b"}, 2)
		check(approval.Filter{PauseType: "user_input", UserID: "u2"}, []string{"d", "b"}, 2)
		check(approval.Filter{AgentID: "payer"}, []string{"e", "c", "a"}, 3)
		check(approval.Filter{WorkflowID: "wf", ScheduleID: "sch"}, []string{"e"}, 1)
		check(approval.Filter{RunID: "run-c"}, []string{"c"}, 1)
		check(approval.Filter{UserID: "nobody"}, nil, 0)

		if n, err := s.CountPending(ctx, ""); err != nil || n != 3 {
			t.Fatalf("count all: %d %v", n, err)
		}
		if n, err := s.CountPending(ctx, "u2"); err != nil || n != 0 {
			t.Fatalf("count u2: %d %v", n, err)
		}
		if n, err := s.CountPending(ctx, "u1"); err != nil || n != 3 {
			t.Fatalf("count u1: %d %v", n, err)
		}
	})
}

func TestStoreResolveOnce(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, err := s.Create(ctx, sample("a1", "run1", "u1", 100)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Resolve(ctx, "a1", approval.Resolution{Status: approval.StatusRejected, ResolvedBy: "boss",
			ResolutionData: map[string]any{"note": "too much"}, At: 500})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != approval.StatusRejected || got.ResolvedBy != "boss" || *got.ResolvedAt != 500 || got.ResolutionData["note"] != "too much" {
			t.Fatalf("resolved: %+v", got)
		}
		_, err = s.Resolve(ctx, "a1", approval.Resolution{Status: approval.StatusApproved})
		var ce *approval.ConflictError
		if !errors.As(err, &ce) || ce.Status != approval.StatusRejected || !errors.Is(err, approval.ErrNotPending) {
			t.Fatalf("second resolve: %v", err)
		}
		if _, err := s.Resolve(ctx, "missing", approval.Resolution{Status: approval.StatusApproved}); !errors.Is(err, approval.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}
		if _, err := s.Resolve(ctx, "a1", approval.Resolution{Status: approval.StatusPending}); err == nil {
			t.Fatal("resolving to pending must fail")
		}
		// Reopen only undoes the resolution it names.
		if ok, err := s.Reopen(ctx, "a1", approval.StatusRejected, 499); err != nil || ok {
			t.Fatalf("reopen with another time: %v %v", ok, err)
		}
		if ok, err := s.Reopen(ctx, "a1", approval.StatusRejected, 500); err != nil || !ok {
			t.Fatalf("reopen: %v %v", ok, err)
		}
		got, _ = s.Get(ctx, "a1")
		if got.Status != approval.StatusPending || got.ResolvedBy != "" || got.ResolvedAt != nil || got.ResolutionData != nil {
			t.Fatalf("reopened: %+v", got)
		}
	})
}

func TestStoreConcurrentResolveOneWins(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		if _, err := s.Create(ctx, sample("a1", "run1", "u1", 100)); err != nil {
			t.Fatal(err)
		}
		const n = 8
		var wg sync.WaitGroup
		results := make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				st := approval.StatusApproved
				if i%2 == 1 {
					st = approval.StatusRejected
				}
				_, results[i] = s.Resolve(ctx, "a1", approval.Resolution{Status: st, ResolvedBy: "r"})
			}(i)
		}
		wg.Wait()
		wins := 0
		for _, err := range results {
			switch {
			case err == nil:
				wins++
			case errors.Is(err, approval.ErrNotPending):
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d resolves won, want exactly 1", wins)
		}
	})
}

func TestStoreRunStatus(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		s := newStore(t, db)
		for _, id := range []string{"a", "b"} {
			if _, err := s.Create(ctx, sample(id, "run1", "u1", 100)); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := s.HasRun(ctx, "run1"); err != nil || !ok {
			t.Fatalf("has run1: %v %v", ok, err)
		}
		if ok, err := s.HasRun(ctx, "run2"); err != nil || ok {
			t.Fatalf("has run2: %v %v", ok, err)
		}
		if n, err := s.SetRunStatus(ctx, "run1", "COMPLETED", 5); err != nil || n != 2 {
			t.Fatalf("set: %d %v", n, err)
		}
		if n, err := s.SetRunStatus(ctx, "run1", "COMPLETED", 5); err != nil || n != 0 {
			t.Fatalf("set again: %d %v", n, err)
		}
		// A late, older reading does not win.
		if n, err := s.SetRunStatus(ctx, "run1", "RUNNING", 4); err != nil || n != 0 {
			t.Fatalf("stale set: %d %v", n, err)
		}
		p, err := s.Pending(ctx, "run1")
		if err != nil || len(p) != 2 || p[0].RunStatus != "COMPLETED" {
			t.Fatalf("pending: %v %v", p, err)
		}
	})
}

func TestDerivedIDAndParseType(t *testing.T) {
	a, b := approval.DerivedID("run", "call"), approval.DerivedID("run", "call")
	if a != b || len(a) != 36 || a == approval.DerivedID("runc", "all") {
		t.Fatalf("derived ids: %s %s", a, b)
	}
	if _, err := approval.ParseType("maybe"); err == nil {
		t.Fatal("want an error for an unknown type")
	}
	if ty, err := approval.ParseType("audit"); err != nil || ty != approval.TypeAudit {
		t.Fatal(ty, err)
	}
}
