package sqlite

import (
	"context"
	"testing"

	"github.com/agno-go/agno/storage/internal/sqlstore/sqlstoretest"
)

// The session and memory counts the triggers keep give the same
// total_count as counting the rows, and the migrations' backfills count a
// store that had rows before them.
func TestSessionCountsMatchTheRows(t *testing.T) {
	st := openTemp(t)
	sqlstoretest.SessionCountsMatchTheRows(t, st, st.d, countQuerier(st), backfill(t, st, "agno_session_counts"))
}

func TestMemoryCountsMatchTheRows(t *testing.T) {
	st := openTemp(t)
	sqlstoretest.MemoryCountsMatchTheRows(t, st, st.d, countQuerier(st), backfill(t, st, "agno_memory_counts"))
}

func TestMemoryUsersBackfill(t *testing.T) {
	st := openTemp(t)
	sqlstoretest.MemoryUsersBackfill(t, st, backfill(t, st, "agno_memory_users"))
}

func countQuerier(st *Store) sqlstoretest.CountQuerier {
	return func(ctx context.Context, q string, args ...any) (n int64, err error) {
		err = st.r.QueryRowContext(ctx, q, args...).Scan(&n)
		return n, err
	}
}

// backfill empties a counts table and runs its migration's backfill (the
// statement after the CREATE TABLE).
func backfill(t *testing.T, st *Store, table string) func() {
	return func() {
		if _, err := st.w.ExecContext(t.Context(), "DELETE FROM "+table); err != nil {
			t.Fatal(err)
		}
		for _, m := range migrations {
			if m.table == table {
				if _, err := st.w.ExecContext(t.Context(), m.stmts[1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
