package sqlitevec

import (
	"context"

	"github.com/agno-go/agno/knowledge/vectordb"
)

// RegistryName is the store's name in the vectordb registry.
const RegistryName = "sqlitevec"

func init() {
	vectordb.UseForStorage("sqlite", RegistryName)
	vectordb.Register(RegistryName, func(ctx context.Context, o vectordb.Options) (vectordb.DB, error) {
		s, err := Open(ctx, Config{ID: o.ID, Description: o.Description, Path: o.Path, Table: o.Table, Embedder: o.Embedder,
			SearchType: o.SearchType, SimilarityThreshold: o.SimilarityThreshold, Logger: o.Logger})
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}
