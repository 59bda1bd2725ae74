// Package pgtest gives tests a PostgreSQL database: the DSN from
// AGNO_TEST_POSTGRES_DSN and a fresh schema per test, dropped at cleanup,
// so parallel test runs never see each other's rows.
//
// Without AGNO_TEST_POSTGRES_DSN, or with a server that does not answer,
// tests skip — unless AGNO_TEST_REQUIRE_POSTGRES=1 (CI sets it), which
// makes both a test failure.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables read by DSN.
const (
	EnvDSN     = "AGNO_TEST_POSTGRES_DSN"
	EnvRequire = "AGNO_TEST_REQUIRE_POSTGRES"
)

// DSN returns the test database's DSN after checking the server answers.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	required := os.Getenv(EnvRequire) == "1"
	if dsn == "" {
		if required {
			t.Fatalf("%s=1 but %s is not set", EnvRequire, EnvDSN)
		}
		t.Skipf("%s not set: skipping PostgreSQL tests", EnvDSN)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(ctx)
	}
	if err != nil {
		if required {
			t.Fatalf("PostgreSQL at %s=%q is required (%s=1) but unreachable: %v", EnvDSN, dsn, EnvRequire, err)
		}
		t.Skipf("PostgreSQL at %s unreachable, skipping: %v", EnvDSN, err)
	}
	return dsn
}

// Schema returns a new schema name unique to this test (the schema itself
// is not created) and drops it with everything in it when the test ends.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	name := "agno_test_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		// t.Context() is already canceled when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("drop test schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop test schema %s: %v", name, err)
		}
	})
	return name
}
