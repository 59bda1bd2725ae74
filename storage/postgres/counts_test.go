package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/internal/sqlstore/sqlstoretest"
)

// The sharded session and memory counts the triggers keep give the same
// total_count as counting the rows, and the migrations' backfills count a
// schema that had rows before them.
func TestSessionCountsMatchTheRows(t *testing.T) {
	st := openFresh(t)
	sqlstoretest.SessionCountsMatchTheRows(t, st, st.d, countQuerier(st), backfill(t, st, "agno_session_counts"))
}

func TestMemoryCountsMatchTheRows(t *testing.T) {
	st := openFresh(t)
	sqlstoretest.MemoryCountsMatchTheRows(t, st, st.d, countQuerier(st), backfill(t, st, "agno_memory_counts"))
}

func TestMemoryUsersBackfill(t *testing.T) {
	st := openFresh(t)
	sqlstoretest.MemoryUsersBackfill(t, st, backfill(t, st, "agno_memory_users"))
}

func countQuerier(st *Store) sqlstoretest.CountQuerier {
	return func(ctx context.Context, q string, args ...any) (n int64, err error) {
		err = st.pool.QueryRow(ctx, q, args...).Scan(&n)
		return n, err
	}
}

// backfill empties a counts table and runs its migration's backfill (its
// last statement).
func backfill(t *testing.T, st *Store, table string) func() {
	return func() {
		ctx := t.Context()
		if _, err := st.pool.Exec(ctx, "DELETE FROM "+pgx.Identifier{st.schema, table}.Sanitize()); err != nil {
			t.Fatal(err)
		}
		for _, m := range migrations {
			if m.table == table {
				stmt := m.stmts[len(m.stmts)-1]
				if _, err := st.pool.Exec(ctx, strings.ReplaceAll(stmt, "{schema}", pgx.Identifier{st.schema}.Sanitize())); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
