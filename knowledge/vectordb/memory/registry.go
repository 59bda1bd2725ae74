package memory

import (
	"context"

	"github.com/agno-go/agno/knowledge/vectordb"
)

// RegistryName is the store's name in the vectordb registry.
const RegistryName = "memory"

func init() {
	vectordb.UseForStorage("memory", RegistryName)
	vectordb.Register(RegistryName, func(_ context.Context, o vectordb.Options) (vectordb.DB, error) {
		s, err := New(Config{ID: o.ID, Description: o.Description, Embedder: o.Embedder, SearchType: o.SearchType, SimilarityThreshold: o.SimilarityThreshold})
		if err != nil {
			return nil, err
		}
		return s, nil
	})
}
