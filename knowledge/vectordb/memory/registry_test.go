package memory

import (
	"slices"
	"testing"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// The store opens by its registered name, as package config opens it.
func TestRegistered(t *testing.T) {
	if !slices.Contains(vectordb.Names(), RegistryName) {
		t.Fatalf("vectordb.Names() = %v", vectordb.Names())
	}
	open, _ := vectordb.Lookup(RegistryName)
	e, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	db, err := open(t.Context(), vectordb.Options{ID: "kb", Description: "docs", Embedder: e, SearchType: vectordb.SearchHybrid})
	if err != nil {
		t.Fatal(err)
	}
	if info := db.Info(); info.ID != "kb" || info.Description != "docs" || !slices.Contains(db.SupportedSearchTypes(), vectordb.SearchHybrid) {
		t.Errorf("store %+v", info)
	}
}
