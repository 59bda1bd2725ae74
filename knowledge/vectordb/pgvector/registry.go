package pgvector

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/knowledge/vectordb"
)

// RegistryName is the store's name in the vectordb registry.
const RegistryName = "pgvector"

// pooled is what the registered factory needs of Options.Storage: the
// Postgres session store's pool and schema, which the knowledge tables
// share.
type pooled interface {
	Pool() *pgxpool.Pool
	Schema() string
}

func init() {
	vectordb.UseForStorage("postgres", RegistryName)
	vectordb.Register(RegistryName, func(ctx context.Context, o vectordb.Options) (vectordb.DB, error) {
		pg, ok := o.Storage.(pooled)
		if !ok {
			return nil, fmt.Errorf("%w: pgvector shares the Postgres database of the session store, got %T", vectordb.ErrInvalidConfig, o.Storage)
		}
		s, err := Open(ctx, Config{ID: o.ID, Description: o.Description, Pool: pg.Pool(), Schema: pg.Schema(), Table: o.Table,
			Embedder: o.Embedder, SearchType: o.SearchType, SimilarityThreshold: o.SimilarityThreshold, Logger: o.Logger})
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}
