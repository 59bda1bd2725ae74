package contents_test

import (
	"fmt"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
)

// BenchmarkMemoryList reads page 1 of a knowledge base's contents, newest
// first (agno's GET /knowledge/content), from N rows kept in memory.
func BenchmarkMemoryList(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := contents.NewMemory()
			for i := range n {
				if err := m.Upsert(b.Context(), contents.Row{ID: fmt.Sprint("c", i), LinkedTo: "kb", CreatedAt: int64(i), UpdatedAt: int64(i)}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if _, total, err := m.List(b.Context(), contents.ListOptions{LinkedTo: "kb", Limit: 20, Page: 1}); err != nil || total != n {
					b.Fatal(total, err)
				}
			}
		})
	}
}
