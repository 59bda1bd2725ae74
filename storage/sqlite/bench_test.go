package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/storetest"
)

// openBench opens a new store file for one benchmark.
func openBench(b *testing.B) storage.Store {
	st, err := Open(b.Context(), Config{Path: filepath.Join(b.TempDir(), "agno.db"), Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// go test -run '^$' -bench . -benchtime=200x ./storage/sqlite/
func BenchmarkStore(b *testing.B) { storetest.Bench(b, openBench) }

// go test -run '^$' -bench TurnAtScale -benchtime=2000x ./storage/sqlite/
func BenchmarkTurnAtScale(b *testing.B) { storetest.BenchTurnAtScale(b, openBench, 20000) }
