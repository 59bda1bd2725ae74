package sqlite

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/storage"
)

// seedSessions writes n agent sessions with one top-level run each, in
// one transaction, straight into the tables (Start/Finish would take
// minutes for 100,000), then reopens the store so that it starts as
// AgentOS would on that file.
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

// What a run with add_history_to_context reads in a new session, and
// the first page of agno's session list, on stores of 1,000 and 100,000
// sessions: go test -run '^$' -bench Listing ./storage/sqlite/
func BenchmarkListing(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		st := seedSessions(b, n)
		b.Run(fmt.Sprintf("history/sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := st.ListRuns(b.Context(), storage.RunQuery{SessionID: "new-session", TopLevel: true, Newest: true, Limit: 3}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("sessions-page1/sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := st.ListSessions(b.Context(), storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "agent-1", SortOrder: storage.Desc, Limit: 20, Page: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
