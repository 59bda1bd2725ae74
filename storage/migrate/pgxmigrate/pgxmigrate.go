// Package pgxmigrate runs migrate plans in pgx transactions; it is apart
// from migrate so that SQLite-only programs do not link pgx.
package pgxmigrate

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/migrate"
)

// Tx adapts a pgx transaction.
func Tx(tx pgx.Tx) migrate.Tx { return pgxTx{tx} }

type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.Exec(ctx, query, args...)
	return err
}

func (t pgxTx) Query(ctx context.Context, query string, args []any, row func(func(...any) error) error) error {
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Lock takes the transaction-scoped advisory lock (class, hashtext(key)),
// so replicas starting together migrate one after another.
func Lock(ctx context.Context, tx pgx.Tx, class int32, key string) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, class, key)
	return err
}

// Exists is a migrate.Plan.Exists for tables of schema.
func Exists(schema string) func(context.Context, migrate.Tx, string) (bool, error) {
	return func(ctx context.Context, tx migrate.Tx, table string) (bool, error) {
		return migrate.HasRow(ctx, tx, `SELECT 1 WHERE to_regclass($1) IS NOT NULL`, pgx.Identifier{schema, table}.Sanitize())
	}
}
