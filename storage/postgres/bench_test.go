package postgres

import (
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/storetest"
)

// openBench opens a new schema for one benchmark.
func openBench(b *testing.B) storage.Store {
	dsn := pgtest.DSN(b)
	st, err := Open(b.Context(), Config{DSN: dsn, Schema: pgtest.Schema(b, dsn), MaxConns: 32, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// AGNO_TEST_POSTGRES_DSN=... go test -run '^$' -bench . -benchtime=200x ./storage/postgres/
func BenchmarkStore(b *testing.B) { storetest.Bench(b, openBench) }

// AGNO_TEST_POSTGRES_DSN=... go test -run '^$' -bench TurnAtScale -benchtime=2000x ./storage/postgres/
func BenchmarkTurnAtScale(b *testing.B) { storetest.BenchTurnAtScale(b, openBench, 20000) }
