package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/internal/sqlstore/sqlstoretest"
)

// The sharded session counts the triggers keep give the same total_count
// as counting the rows, and the migration's backfill counts a schema that
// had sessions before it.
func TestSessionCountsMatchTheRows(t *testing.T) {
	st := openFresh(t)
	query := func(ctx context.Context, q string, args ...any) (n int64, err error) {
		err = st.pool.QueryRow(ctx, q, args...).Scan(&n)
		return n, err
	}
	sqlstoretest.SessionCountsMatchTheRows(t, st, st.d, query, func() {
		ctx := t.Context()
		if _, err := st.pool.Exec(ctx, "DELETE FROM "+st.d.SessionCounts); err != nil {
			t.Fatal(err)
		}
		for _, m := range migrations {
			if m.table == "agno_session_counts" {
				backfill := m.stmts[len(m.stmts)-1]
				if _, err := st.pool.Exec(ctx, strings.ReplaceAll(backfill, "{schema}", pgx.Identifier{st.schema}.Sanitize())); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
