package pgcontents

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/knowledge/contents"
)

// shared is what the registered factory needs of the session store: its
// pool and schema, which the contents table shares.
type shared interface {
	Pool() *pgxpool.Pool
	Schema() string
}

func init() {
	contents.Register("postgres", func(ctx context.Context, o contents.Options) (contents.Store, error) {
		pg, ok := o.Storage.(shared)
		if !ok {
			return nil, fmt.Errorf("%w: the contents table shares the Postgres database of the session store, got %T", ErrInvalidConfig, o.Storage)
		}
		return Open(ctx, Config{Pool: pg.Pool(), Schema: pg.Schema(), Table: o.Table, Logger: o.Logger})
	})
}
