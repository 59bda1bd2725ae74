package pgvector

import (
	"context"
	"fmt"

	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/storage/postgres"
)

// RegistryName is the store's name in the vectordb registry.
const RegistryName = "pgvector"

func init() {
	vectordb.UseForStorage("postgres", RegistryName)
	vectordb.Register(RegistryName, func(ctx context.Context, o vectordb.Options) (vectordb.DB, error) {
		pg, ok := o.Storage.(postgres.Shared)
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
