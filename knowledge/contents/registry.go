package contents

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agno-go/agno/internal/registry"
)

// Options are what a knowledge base gives the factory of its contents
// store, which lives in the database of the session store.
type Options struct {
	// Table is the contents table; "" for the store's default.
	Table string
	// Path is the database file, for stores that keep one.
	Path string
	// Storage is the open session store whose database the table shares;
	// a store takes the capability it needs (pgcontents: Pool and
	// Schema), so that this package names no driver.
	Storage any
	Logger  *slog.Logger
}

// Factory opens a contents store. Stores that hold connections implement
// io.Closer; the caller closes them.
type Factory func(ctx context.Context, o Options) (Store, error)

var byStorage = registry.New[Factory]("contents")

// Register makes a contents store the one kept beside the session store
// of a storage driver ("sqlite"). The built-ins register from their own
// packages; a program adding a storage driver registers its contents
// store the same way. It panics on an empty or taken driver name or a nil
// factory.
func Register(storageDriver string, f Factory) {
	if f == nil {
		panic(fmt.Sprintf("contents: Register %q with a nil factory", storageDriver))
	}
	byStorage.Register(storageDriver, f)
}

// ForStorage returns the contents store kept beside the session store of
// the storage driver.
func ForStorage(storageDriver string) (Factory, bool) { return byStorage.Lookup(storageDriver) }

func init() {
	// Nothing outlives the process with the memory driver, contents
	// included.
	Register("memory", func(context.Context, Options) (Store, error) { return NewMemory(), nil })
}
