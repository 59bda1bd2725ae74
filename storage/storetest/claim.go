package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// testClaim checks ClaimRun: a compare-and-set on the run status that
// exactly one of many concurrent claimers wins.
func testClaim(t *testing.T, open Opener) {
	st := newStore(t, open)
	ctx := context.Background()
	if err := st.ClaimRun(ctx, "missing", run.StatusPaused, run.StatusRunning); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("claim of a missing run: %v", err)
	}
	r := &storage.Run{RunID: "r-claim", SessionID: "s-claim", SessionType: storage.SessionWorkflow, ComponentID: "wf",
		Status: run.StatusPaused, Data: []byte(`{"run_id":"r-claim","status":"PAUSED"}`)}
	if err := st.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.ClaimRun(ctx, "r-claim", run.StatusPaused, run.StatusRunning)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, storage.ErrConflict):
			t.Fatalf("losing claim: %v, want ErrConflict", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d claims won, want exactly 1", wins)
	}
	got, err := st.GetRun(ctx, "r-claim")
	if err != nil || got.Status != run.StatusRunning {
		t.Fatalf("after claim: %+v %v", got, err)
	}
	// Giving the run back works the same way.
	if err := st.ClaimRun(ctx, "r-claim", run.StatusRunning, run.StatusPaused); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetRun(ctx, "r-claim"); got.Status != run.StatusPaused {
		t.Fatalf("after give-back: %s", got.Status)
	}
}
