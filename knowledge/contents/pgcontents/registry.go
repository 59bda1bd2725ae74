package pgcontents

import (
	"context"
	"fmt"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/storage/postgres"
)

func init() {
	contents.Register("postgres", func(ctx context.Context, o contents.Options) (contents.Store, error) {
		pg, ok := o.Storage.(postgres.Shared)
		if !ok {
			return nil, fmt.Errorf("%w: the contents table shares the Postgres database of the session store, got %T", ErrInvalidConfig, o.Storage)
		}
		return Open(ctx, Config{Pool: pg.Pool(), Schema: pg.Schema(), Table: o.Table, Logger: o.Logger})
	})
}
