package vectordb

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agno-go/agno/internal/registry"
	"github.com/agno-go/agno/knowledge/embedder"
)

// Options are what a knowledge base gives the factory of its vector
// store. Each store takes what applies to it.
type Options struct {
	ID          string
	Description string
	// Table names the store's table or collection; "" for the store's
	// default.
	Table               string
	Embedder            embedder.Embedder
	SearchType          SearchType
	SimilarityThreshold *float64
	Logger              *slog.Logger
	// Path is the database file, for stores that keep one (sqlitevec).
	Path string
	// Storage is the open session store the knowledge base shares its
	// database with, or nil. A store that can share it takes the
	// capability it needs (pgvector: Pool and Schema), so that this
	// package names no driver.
	Storage any
}

// Factory opens a vector store. Stores that hold connections implement
// io.Closer; the caller closes them.
type Factory func(ctx context.Context, o Options) (DB, error)

var stores = registry.New[Factory]("vectordb")

// Register makes a vector store available by name ("pgvector"): package
// config opens a knowledge base's store by the name its [storage] driver
// maps to. The built-in stores register from their own packages
// (memory, pgvector, sqlitevec, imported by package config); a program
// registers its own the same way. It panics on an empty or taken name or
// a nil factory.
func Register(name string, f Factory) {
	if f == nil {
		panic(fmt.Sprintf("vectordb: Register %q with a nil factory", name))
	}
	stores.Register(name, f)
}

// Lookup returns the factory registered under name.
func Lookup(name string) (Factory, bool) { return stores.Lookup(name) }

// Names lists the registered stores, sorted.
func Names() []string { return stores.Names() }

var forStorage = registry.New[string]("vectordb for storage")

// UseForStorage names the vector store (registered with Register) that
// knowledge bases keep their chunks in when the session store is of the
// storage driver ("sqlite" → "sqlitevec"): the session database's. A
// program adding a storage driver names its vector store the same way.
func UseForStorage(storageDriver, store string) { forStorage.Register(storageDriver, store) }

// ForStorage returns the name and factory of the vector store kept beside
// the session store of the storage driver.
func ForStorage(storageDriver string) (name string, f Factory, ok bool) {
	name, ok = forStorage.Lookup(storageDriver)
	if !ok {
		return "", nil, false
	}
	f, ok = Lookup(name)
	return name, f, ok
}
