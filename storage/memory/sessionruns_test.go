package memory

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// A session's runs are read from the per-session set; after creates,
// member runs, deleted sessions and pruning they are what a scan of every
// run finds.
func TestSessionRunsMatchAScan(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(3, 4))
	s := New()
	for i := range 300 {
		sid := fmt.Sprintf("s%02d", rng.IntN(40))
		if _, _, err := s.EnsureSession(ctx, &storage.Session{SessionID: sid, SessionType: storage.SessionAgent, AgentID: "a"}); err != nil {
			t.Fatal(err)
		}
		r := &storage.Run{RunID: fmt.Sprintf("r%03d", i), SessionID: sid, SessionType: storage.SessionAgent, ComponentID: "a",
			Status: run.StatusCompleted, CreatedAt: int64(rng.IntN(100) + 1)}
		if i%4 == 3 {
			r.ParentRunID = fmt.Sprintf("r%03d", i-1)
		}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if i%50 == 49 {
			if err := s.DeleteSessions(ctx, fmt.Sprintf("s%02d", rng.IntN(40)), fmt.Sprintf("s%02d", rng.IntN(40))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if res, err := s.Prune(ctx, storage.RetentionPolicy{MaxRuns: 60}); err != nil || res.Runs == 0 {
		t.Fatalf("prune: %+v, %v (the scenario must prune)", res, err)
	}
	listed := 0
	for i := range 40 {
		for _, q := range []storage.RunQuery{
			{SessionID: fmt.Sprintf("s%02d", i)},
			{SessionID: fmt.Sprintf("s%02d", i), TopLevel: true, Newest: true, Limit: 3},
			{SessionIDs: []string{fmt.Sprintf("s%02d", i), fmt.Sprintf("s%02d", (i+1)%40), fmt.Sprintf("s%02d", i)}, TopLevel: true},
		} {
			got, err := s.ListRuns(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			all := q
			all.SessionID, all.SessionIDs, all.Limit = "", nil, 0
			var want []string
			scan, err := s.ListRuns(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range scan {
				if MatchRun(r, q) {
					want = append(want, r.RunID)
				}
			}
			if q.Limit > 0 {
				want = want[:min(len(want), q.Limit)]
			}
			if ids := runIDs(got); !reflect.DeepEqual(ids, want) && !(len(ids) == 0 && len(want) == 0) {
				t.Errorf("%+v: %v, a scan gives %v", q, ids, want)
			}
			listed += len(got)
		}
	}
	if listed < 100 {
		t.Fatalf("only %d runs listed: the scenario lists too little", listed)
	}
}

func runIDs(rs []*storage.Run) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.RunID
	}
	return out
}
