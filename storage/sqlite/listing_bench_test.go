package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/storetest"
)

// seedSessions writes n agent sessions with one top-level run each and n
// memories in one transaction, straight into the tables (Start/Finish
// would take minutes for 100,000), then reopens the store so that it
// starts as AgentOS would on that file.
func seedSessions(b *testing.B, n int) *Store {
	b.Helper()
	path := filepath.Join(b.TempDir(), "agno.db")
	st, err := Open(b.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	tx, err := st.w.BeginTx(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		id := fmt.Sprintf("s%07d", i)
		agent := fmt.Sprintf("agent-%d", i%4)
		if _, err := tx.Exec(`INSERT INTO agno_sessions (session_id, session_type, agent_id, user_id, created_at, updated_at, version) VALUES (?1, 'agent', ?2, 'u', ?3, ?3, 1)`, id, agent, i); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO agno_runs (run_id, row_seq, session_id, session_type, component_id, status, created_at, updated_at, data) VALUES (?1, ?2, ?3, 'agent', ?4, 'COMPLETED', ?2, ?2, '{}')`, "r"+id, i, id, agent); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO agno_memories (memory_id, memory, user_id, agent_id, created_at, updated_at) VALUES (?1, 'm', ?2, ?3, ?4, ?4)`, "m"+id, fmt.Sprintf("user-%d", i%4), agent, i); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	st.Close()
	if st, err = Open(b.Context(), Config{Path: path, Logger: quiet}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// storetest.BenchListing on this store:
// go test -run '^$' -bench Listing ./storage/sqlite/
func BenchmarkListing(b *testing.B) {
	storetest.BenchListing(b, func(b *testing.B, n int) storage.Store { return seedSessions(b, n) })
}
