package postgres

import (
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/storetest"
)

// seedSessions writes n agent sessions (4 agents) with one top-level run
// each and n memories (4 users) straight into the tables of a fresh schema, then opens the store
// on it as AgentOS would.
func seedSessions(b *testing.B, n int) *Store {
	b.Helper()
	dsn := pgtest.DSN(b)
	schema := pgtest.Schema(b, dsn)
	st, err := Open(b.Context(), Config{DSN: dsn, Schema: schema, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO ` + st.d.Sessions + ` (session_id, session_type, agent_id, user_id, created_at, updated_at, version)
			SELECT 's' || lpad(i::text, 7, '0'), 'agent', 'agent-' || (i % 4), 'u', i, i, 1 FROM generate_series(0, $1 - 1) i`,
		`INSERT INTO ` + st.d.Runs + ` (run_id, session_id, session_type, component_id, status, created_at, updated_at, data)
			SELECT 'rs' || lpad(i::text, 7, '0'), 's' || lpad(i::text, 7, '0'), 'agent', 'agent-' || (i % 4), 'COMPLETED', i, i, '{}' FROM generate_series(0, $1 - 1) i`,
		`INSERT INTO ` + st.d.Memories + ` (memory_id, memory, user_id, agent_id, created_at, updated_at)
			SELECT 'm' || lpad(i::text, 7, '0'), 'm', 'user-' || (i % 4), 'agent-' || (i % 4), i, i FROM generate_series(0, $1 - 1) i`,
	} {
		if _, err := st.pool.Exec(b.Context(), q, n); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	if st, err = Open(b.Context(), Config{DSN: dsn, Schema: schema, Logger: quiet}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// storetest.BenchListing on this store:
// AGNO_TEST_POSTGRES_DSN=... go test -run '^$' -bench Listing ./storage/postgres/
func BenchmarkListing(b *testing.B) {
	storetest.BenchListing(b, func(b *testing.B, n int) storage.Store { return seedSessions(b, n) })
}
