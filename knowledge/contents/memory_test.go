package contents_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/contentstest"
)

func TestMemoryConformance(t *testing.T) {
	contentstest.Run(t, func(*testing.T) contents.Store { return contents.NewMemory() })
}

func TestParseStatus(t *testing.T) {
	for in, want := range map[string]contents.Status{
		"completed": contents.StatusCompleted, "Completed": contents.StatusCompleted,
		"FAILED": contents.StatusFailed, "Failed: No reader provided": contents.StatusFailed,
		"processing": contents.StatusProcessing, "": contents.StatusProcessing, "queued": contents.StatusProcessing,
	} {
		if got := contents.ParseStatus(in); got != want {
			t.Errorf("ParseStatus(%q) = %q, want %q", in, got, want)
		}
	}
}

// The orders the memory store keeps give the pages and totals of sorting
// the matching rows, after upserts that move rows between knowledge bases
// and times, and deletes.
func TestMemoryOrdersMatchASort(t *testing.T) {
	ctx := t.Context()
	m := contents.NewMemory()
	want := map[string]contents.Row{}
	r := rand.New(rand.NewPCG(5, 6))
	for step := range 400 {
		id := fmt.Sprint("c", r.IntN(50))
		if r.IntN(5) == 0 {
			if err := m.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
			delete(want, id)
		} else {
			row := contents.Row{ID: id, Name: id, LinkedTo: []string{"", "kb1", "kb2"}[r.IntN(3)],
				CreatedAt: int64(r.IntN(20)), UpdatedAt: int64(r.IntN(20))}
			if err := m.Upsert(ctx, row); err != nil {
				t.Fatal(err)
			}
			want[id] = row
		}
		if step%40 != 39 {
			continue
		}
		for _, by := range []string{"", "created_at", "updated_at"} {
			for _, order := range []string{contents.SortAsc, contents.SortDesc} {
				for _, linked := range []string{"", "kb1", "kb2", "none"} {
					var rows []contents.Row
					for _, row := range want {
						if linked == "" || row.LinkedTo == linked {
							rows = append(rows, row)
						}
					}
					at := func(x contents.Row) int64 {
						if by == "updated_at" {
							return x.UpdatedAt
						}
						return x.CreatedAt
					}
					slices.SortFunc(rows, func(a, b contents.Row) int {
						c := cmp.Or(cmp.Compare(at(a), at(b)), cmp.Compare(a.ID, b.ID))
						if order != contents.SortAsc {
							c = -c
						}
						return c
					})
					for page := 1; page <= 3; page++ {
						got, total, err := m.List(ctx, contents.ListOptions{SortBy: by, SortOrder: order, LinkedTo: linked, Limit: 7, Page: page})
						if err != nil {
							t.Fatal(err)
						}
						start, end := min(7*(page-1), len(rows)), min(7*page, len(rows))
						var gotIDs, wantIDs []string
						for _, x := range got {
							gotIDs = append(gotIDs, x.ID)
						}
						for _, x := range rows[start:end] {
							wantIDs = append(wantIDs, x.ID)
						}
						if total != len(rows) || !slices.Equal(gotIDs, wantIDs) {
							t.Fatalf("step %d, by %q %s, %q page %d: %v (total %d), want %v (total %d)",
								step, by, order, linked, page, gotIDs, total, wantIDs, len(rows))
						}
					}
				}
			}
		}
	}
}
