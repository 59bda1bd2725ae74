package memory

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/agno-go/agno/storage"
)

// Listings in creation order read the kept order; after random creates,
// owner, user and creation changes, deletes and pruning they give what
// filtering and sorting every session gives, page by page.
func TestSessionOrderMatchesAScan(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	s := New()
	types := []storage.SessionType{storage.SessionAgent, storage.SessionTeam, storage.SessionWorkflow}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := range 400 {
		x := &storage.Session{SessionID: fmt.Sprintf("s%03d", rng.IntN(1000)), SessionType: types[rng.IntN(3)],
			UserID: pick("", "u1", "u2"), SessionName: pick("alpha", "beta", ""), CreatedAt: int64(rng.IntN(50) + 1)}
		x.SetComponentID(pick("", "o1", "o2", "o3"))
		if _, _, err := s.EnsureSession(ctx, x); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			_, _ = s.UpdateSession(ctx, x.SessionID, func(c *storage.Session) error {
				c.UserID = pick("", "u1", "u3")
				c.CreatedAt = int64(rng.IntN(50) + 1)
				c.SetComponentID(pick("o1", "o4"))
				return nil
			})
		}
		if i%11 == 0 {
			if err := s.DeleteSessions(ctx, fmt.Sprintf("s%03d", rng.IntN(1000))); err != nil {
				t.Fatal(err)
			}
		}
		if i%13 == 0 {
			if err := s.DeleteSessions(ctx, fmt.Sprintf("s%03d", rng.IntN(1000)), fmt.Sprintf("s%03d", rng.IntN(1000)), x.SessionID); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.mu.Lock()
	pruned := &storage.PruneResult{}
	s.pruneSessionsLocked(10, pruned) // sessions last updated before 10
	s.mu.Unlock()
	if pruned.Sessions < 2 {
		t.Fatalf("pruning took %d sessions: the scenario does not prune several", pruned.Sessions)
	}

	checked := 0
	for _, typ := range append(types, "") {
		for _, owner := range []string{"", "o1", "o4", "none"} {
			for _, user := range []string{"", "u1", "u3"} {
				for _, q := range []storage.SessionQuery{
					{SortOrder: storage.Desc, Limit: 7, Page: 1},
					{SortOrder: storage.Desc, Limit: 7, Page: 3},
					{SortBy: "created_at", SortOrder: storage.Asc, Limit: 5, Page: 2},
					{SortOrder: storage.Asc},
					{Limit: 4, Page: 1 << 40},
					{NameContains: "alp", Limit: 3, Page: 2},
					{CreatedAfter: 10, CreatedBefore: 30, SortOrder: storage.Desc, Limit: 6, Page: 1},
				} {
					q.SessionType, q.ComponentID, q.UserID = typ, owner, user
					s.mu.RLock()
					want, wantTotal := s.scanSessions(q)
					s.mu.RUnlock()
					got, total, err := s.ListSessions(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if total != wantTotal || !reflect.DeepEqual(ids(got), ids(want)) {
						t.Errorf("%+v: got %v (total %d), a scan gives %v (total %d)", q, ids(got), total, ids(want), wantTotal)
					}
					checked += len(want)
				}
			}
		}
	}
	if checked < 500 {
		t.Fatalf("only %d sessions compared: the scenario lists too little", checked)
	}
}

func ids(ss []*storage.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.SessionID
	}
	return out
}

// Memory listings by update or creation read the kept orders; after
// random upserts (moving memories between users, agents and teams, with
// updated_at ties) and deletes they give what a full scan gives.
func TestMemoryOrderMatchesAScan(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(5, 6))
	s := New()
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := range 400 {
		m := &storage.Memory{MemoryID: fmt.Sprintf("m%03d", rng.IntN(150)), Memory: "m", UserID: pick("", "u1", "u2"),
			AgentID: pick("", "a1", "a2"), TeamID: pick("", "t1"), UpdatedAt: int64(rng.IntN(40) + 1), CreatedAt: int64(rng.IntN(40) + 1)}
		if err := s.UpsertMemory(ctx, m); err != nil {
			t.Fatal(err)
		}
		if i%9 == 0 {
			if err := s.DeleteMemories(ctx, fmt.Sprintf("m%03d", rng.IntN(150)), fmt.Sprintf("m%03d", rng.IntN(150))); err != nil {
				t.Fatal(err)
			}
		}
	}
	checked := 0
	for _, user := range []string{"", "u1", "u2"} {
		for _, agent := range []string{"", "a1", "none"} {
			for _, team := range []string{"", "t1"} {
				for _, q := range []storage.MemoryQuery{
					{SortOrder: storage.Desc, Limit: 5, Page: 1},
					{SortOrder: storage.Desc, Limit: 5, Page: 3},
					{SortBy: "created_at", SortOrder: storage.Asc, Limit: 4, Page: 2},
					{SortBy: "created_at", SortOrder: storage.Desc},
					{Limit: 3, Page: 1 << 40},
				} {
					q.UserID, q.AgentID, q.TeamID = user, agent, team
					s.mu.RLock()
					want, wantTotal := s.scanMemories(q)
					s.mu.RUnlock()
					got, total, err := s.ListMemories(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if total != wantTotal || !reflect.DeepEqual(memoryIDs(got), memoryIDs(want)) {
						t.Errorf("%+v: got %v (total %d), a scan gives %v (total %d)", q, memoryIDs(got), total, memoryIDs(want), wantTotal)
					}
					checked += len(want)
				}
			}
		}
	}
	if checked < 300 {
		t.Fatalf("only %d memories compared: the scenario lists too little", checked)
	}
}

func memoryIDs(ms []*storage.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.MemoryID
	}
	return out
}
