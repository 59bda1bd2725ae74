// Package contentstest is the conformance suite every contents.Store
// passes: the memory store here, and the SQLite and Postgres stores.
package contentstest

import (
	"errors"
	"slices"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/filter"
)

// Run runs the suite against empty stores from open.
func Run(t *testing.T, open func(t *testing.T) contents.Store) {
	t.Run("UpsertGetDelete", func(t *testing.T) { testUpsertGetDelete(t, open(t)) })
	t.Run("List", func(t *testing.T) { testList(t, open(t)) })
}

func size(n int64) *int64 { return &n }

func testUpsertGetDelete(t *testing.T, s contents.Store) {
	ctx := t.Context()
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, contents.ErrNotFound) {
		t.Errorf("Get(missing) = %v, want ErrNotFound", err)
	}
	row := contents.Row{
		ID: "c1", Name: "demo.pdf", Description: "d", Type: ".pdf", Size: size(42), LinkedTo: "kb",
		Metadata: map[string]any{"server_id": "10", "nested": map[string]any{"n": 1}},
		Status:   contents.StatusProcessing, CreatedAt: 100, UpdatedAt: 100,
	}
	if err := s.Upsert(ctx, row); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	got, err := s.Get(ctx, "c1")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Name != "demo.pdf" || got.Type != ".pdf" || got.Size == nil || *got.Size != 42 || got.LinkedTo != "kb" ||
		got.Status != contents.StatusProcessing || got.CreatedAt != 100 || !filter.Equal(got.Metadata, row.Metadata) {
		t.Errorf("Get returned %+v, want %+v", got, row)
	}
	// The returned row is a copy.
	got.Metadata["server_id"] = "changed"
	again, _ := s.Get(ctx, "c1")
	if again.Metadata["server_id"] != "10" {
		t.Errorf("changing a returned row changed the store: %v", again.Metadata)
	}

	row.Status, row.StatusMessage, row.UpdatedAt = contents.StatusFailed, "Could not insert embedding", 200
	if err := s.Upsert(ctx, row); err != nil {
		t.Fatalf("second Upsert: %v", err)
	}
	got, _ = s.Get(ctx, "c1")
	if got.Status != contents.StatusFailed || got.StatusMessage != "Could not insert embedding" || got.UpdatedAt != 200 {
		t.Errorf("after update: %+v", got)
	}
	if err := s.Delete(ctx, "c1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, "c1"); !errors.Is(err, contents.ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "c1"); err != nil {
		t.Errorf("Delete of a missing row: %v", err)
	}
}

func testList(t *testing.T, s contents.Store) {
	ctx := t.Context()
	for i, name := range []string{"b", "a", "d", "c"} {
		linked := "kb"
		if name == "d" {
			linked = "other"
		}
		if err := s.Upsert(ctx, contents.Row{ID: "id-" + name, Name: name, LinkedTo: linked, Status: contents.StatusCompleted, CreatedAt: int64(10 * (i + 1)), UpdatedAt: int64(10 * (i + 1))}); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(rows []contents.Row) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Name)
		}
		return out
	}
	rows, total, err := s.List(ctx, contents.ListOptions{LinkedTo: "kb"})
	if err != nil || total != 3 || !slices.Equal(ids(rows), []string{"c", "a", "b"}) {
		t.Errorf("List(linked_to kb) = %v, %d, %v; want [c a b] (newest first), 3", ids(rows), total, err)
	}
	rows, total, _ = s.List(ctx, contents.ListOptions{SortBy: "name", SortOrder: contents.SortAsc, Limit: 2, Page: 2})
	if total != 4 || !slices.Equal(ids(rows), []string{"c", "d"}) {
		t.Errorf("List(name asc, page 2 of 2) = %v, %d; want [c d], 4", ids(rows), total)
	}
	// The counts follow a move between knowledge bases and a delete.
	if err := s.Upsert(ctx, contents.Row{ID: "id-a", Name: "a", LinkedTo: "other", Status: contents.StatusCompleted, CreatedAt: 20, UpdatedAt: 50}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "id-b"); err != nil {
		t.Fatal(err)
	}
	for linked, want := range map[string]int{"": 3, "kb": 1, "other": 2, "none": 0} {
		if _, total, err := s.List(ctx, contents.ListOptions{LinkedTo: linked}); err != nil || total != want {
			t.Errorf("List(linked_to %q) after a move and a delete: total %d, %v; want %d", linked, total, err, want)
		}
	}
	rows, _, _ = s.List(ctx, contents.ListOptions{Limit: 2, Page: 3})
	if len(rows) != 0 {
		t.Errorf("a page past the end returned %v", ids(rows))
	}
	if _, _, err := s.List(ctx, contents.ListOptions{SortBy: "nope"}); err == nil {
		t.Error("List accepted an unknown sort column")
	}
}
