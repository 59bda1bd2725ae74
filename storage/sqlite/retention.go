package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

var _ storage.Pruner = (*Store)(nil)

// Prune implements storage.Pruner: each batch is one write of the
// store's writer, so runs and other writes go on between batches.
func (s *Store) Prune(ctx context.Context, p storage.RetentionPolicy) (storage.PruneResult, error) {
	if err := s.check(); err != nil {
		return storage.PruneResult{}, err
	}
	res, err := s.d.Prune(ctx, sqlstore.Pruning{Blobs: "agno_blobs", Seq: "row_seq",
		Write: func(ctx context.Context, fn func(context.Context, sqlstore.PruneTx) error) error {
			ctx, cancel := s.bound(ctx)
			defer cancel()
			return s.write(ctx, func(ctx context.Context, tx *sql.Tx) error { return fn(ctx, pruneTx{tx}) })
		}}, p)
	if err != nil {
		return res, fmt.Errorf("sqlite: prune: %w", err)
	}
	return res, nil
}

// pruneTx is a write transaction as sqlstore.Prune uses it.
type pruneTx struct{ tx *sql.Tx }

func (t pruneTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	r, err := t.tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}

func (t pruneTx) Strings(ctx context.Context, query string, args ...any) ([][]string, error) {
	rows, err := t.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		row := make([]string, len(cols))
		dst := make([]any, len(cols))
		for i := range row {
			dst[i] = &row[i]
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}
