package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/sqlstore"
)

var _ storage.Pruner = (*Store)(nil)

// Prune implements storage.Pruner, a transaction per batch. Replicas
// pruning at once each delete what the other has not.
func (s *Store) Prune(ctx context.Context, p storage.RetentionPolicy) (storage.PruneResult, error) {
	if err := s.check(); err != nil {
		return storage.PruneResult{}, err
	}
	res, err := s.d.Prune(ctx, sqlstore.Pruning{Blobs: pgx.Identifier{s.schema, "agno_blobs"}.Sanitize(), Seq: "row_seq",
		Write: func(ctx context.Context, fn func(context.Context, sqlstore.PruneTx) error) error {
			ctx, cancel := s.bound(ctx)
			defer cancel()
			return s.fail(pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(ctx, pruneTx{tx}) }))
		}}, p)
	if err != nil {
		return res, fmt.Errorf("postgres: prune: %w", err)
	}
	return res, nil
}

// pruneTx is a transaction as sqlstore.Prune uses it.
type pruneTx struct{ tx pgx.Tx }

func (t pruneTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (t pruneTx) Strings(ctx context.Context, query string, args ...any) ([][]string, error) {
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	n := len(rows.FieldDescriptions())
	var out [][]string
	for rows.Next() {
		row := make([]string, n)
		dst := make([]any, n)
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
