package sqlite

import (
	"context"
	"testing"

	"github.com/agno-go/agno/storage/internal/sqlstore/sqlstoretest"
)

// The session counts the triggers keep give the same total_count as
// counting the rows, and the migration's backfill counts a store that had
// sessions before it.
func TestSessionCountsMatchTheRows(t *testing.T) {
	st := openTemp(t)
	query := func(ctx context.Context, q string, args ...any) (n int64, err error) {
		err = st.r.QueryRowContext(ctx, q, args...).Scan(&n)
		return n, err
	}
	sqlstoretest.SessionCountsMatchTheRows(t, st, st.d, query, func() {
		if _, err := st.w.ExecContext(t.Context(), "DELETE FROM agno_session_counts"); err != nil {
			t.Fatal(err)
		}
		for _, m := range migrations {
			if m.table == "agno_session_counts" {
				if _, err := st.w.ExecContext(t.Context(), m.stmts[1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
