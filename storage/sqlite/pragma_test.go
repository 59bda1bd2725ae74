package sqlite

import (
	"database/sql"
	"testing"
)

// Every connection, writer and readers, runs with the smaller page cache
// (the footprint at c=32, BENCHMARKS.md §14).
func TestConnectionsUseTheSmallPageCache(t *testing.T) {
	st := openTemp(t)
	for name, db := range map[string]*sql.DB{"writer": st.w, "reader": st.r} {
		var kib int
		if err := db.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&kib); err != nil {
			t.Fatal(err)
		}
		if kib != -512 {
			t.Errorf("%s: cache_size %d, want -512 (KiB)", name, kib)
		}
	}
}
