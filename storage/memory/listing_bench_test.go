package memory

import (
	"fmt"
	"testing"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/storetest"
)

// storetest.BenchListing on this store:
// go test -run '^$' -bench Listing ./storage/memory/
func BenchmarkListing(b *testing.B) {
	storetest.BenchListing(b, func(b *testing.B, n int) storage.Store {
		s := New()
		for i := range n {
			x := &storage.Session{SessionID: fmt.Sprintf("s%07d", i), SessionType: storage.SessionAgent,
				AgentID: fmt.Sprintf("agent-%d", i%4), UserID: "u", CreatedAt: int64(i + 1)}
			if _, _, err := s.EnsureSession(b.Context(), x); err != nil {
				b.Fatal(err)
			}
			r := &storage.Run{RunID: "r" + x.SessionID, SessionID: x.SessionID, SessionType: storage.SessionAgent, ComponentID: x.AgentID,
				Status: "COMPLETED", CreatedAt: int64(i + 1)}
			if err := s.CreateRun(b.Context(), r); err != nil {
				b.Fatal(err)
			}
			m := &storage.Memory{MemoryID: "m" + x.SessionID, Memory: "m", UserID: fmt.Sprintf("user-%d", i%4), AgentID: x.AgentID,
				CreatedAt: int64(i + 1), UpdatedAt: int64(i + 1)}
			if err := s.UpsertMemory(b.Context(), m); err != nil {
				b.Fatal(err)
			}
		}
		return s
	})
}
