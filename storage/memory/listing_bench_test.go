package memory

import (
	"fmt"
	"testing"

	"github.com/agno-go/agno/storage"
)

// The first page of agno's session list on 1,000 and 100,000 agent
// sessions (4 agents), as storage/sqlite's BenchmarkListing:
// go test -run '^$' -bench Listing ./storage/memory/
func BenchmarkListing(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		s := New()
		for i := range n {
			x := &storage.Session{SessionID: fmt.Sprintf("s%07d", i), SessionType: storage.SessionAgent,
				AgentID: fmt.Sprintf("agent-%d", i%4), UserID: "u", CreatedAt: int64(i + 1)}
			if _, _, err := s.EnsureSession(b.Context(), x); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("sessions-page1/sessions=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := s.ListSessions(b.Context(), storage.SessionQuery{SessionType: storage.SessionAgent, ComponentID: "agent-1", SortOrder: storage.Desc, Limit: 20, Page: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
