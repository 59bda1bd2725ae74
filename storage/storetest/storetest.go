// Package storetest is the conformance suite every storage.Store backend
// must pass. A backend's test calls Run with a function that opens a fresh,
// empty store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storage.Store { return openFresh(t) })
//	}
//
// Backends that keep sessions as JSON (every backend but the in-process
// one) also call RunSerialized.
//
// The suite closes each store it opens; open may register its own Close
// too, since Close must be idempotent.
package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/agno-go/agno/storage"
)

// Opener returns a new empty store for one test.
type Opener = func(t *testing.T) storage.Store

// Run runs the conformance suite against stores made by open.
func Run(t *testing.T, open Opener) {
	t.Run("Sessions", func(t *testing.T) { testSessions(t, open) })
	t.Run("ListSessions", func(t *testing.T) { testListSessions(t, open) })
	t.Run("ListSessionsTies", func(t *testing.T) { testListSessionsTies(t, open) })
	t.Run("Runs", func(t *testing.T) { testRuns(t, open) })
	t.Run("ClaimRun", func(t *testing.T) { testClaim(t, open) })
	t.Run("RunLifecycle", func(t *testing.T) { testRunLifecycle(t, open) })
	t.Run("ListRuns", func(t *testing.T) { testListRuns(t, open) })
	t.Run("Events", func(t *testing.T) { testEvents(t, open) })
	t.Run("DeleteSessions", func(t *testing.T) { testDeleteSessions(t, open) })
	t.Run("Memories", func(t *testing.T) { testMemories(t, open) })
	t.Run("Blobs", func(t *testing.T) { testBlobs(t, open) })
	t.Run("Encoding", func(t *testing.T) { testEncoding(t, open) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, open) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, open) })
	t.Run("Retention", func(t *testing.T) { testRetention(t, open) })
}

// RunSerialized checks what a store that serializes sessions to JSON
// must do with a value JSON cannot hold: refuse the write with an error
// and keep the stored session as it was.
func RunSerialized(t *testing.T, open Opener) {
	t.Run("Unencodable", func(t *testing.T) { testUnencodable(t, open) })
}

func newStore(t *testing.T, open Opener) storage.Store {
	t.Helper()
	st := open(t)
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return st
}

// canonical re-encodes JSON (numbers kept exact, keys sorted) so values
// can be compared whatever Go types carried them.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	out, err := json.Marshal(x)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return string(out)
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if g, w := canonical(t, got), canonical(t, want); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

// parallel runs fn(i) for i in [0,n) on n goroutines released together
// and waits for all of them.
func parallel(n int, fn func(i int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn(i)
		}()
	}
	close(start)
	wg.Wait()
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = id(x)
	}
	return out
}

func sessionIDs(s []*storage.Session) []string {
	return ids(s, func(x *storage.Session) string { return x.SessionID })
}

func runIDs(r []*storage.Run) []string { return ids(r, func(x *storage.Run) string { return x.RunID }) }

func memoryIDs(m []*storage.Memory) []string {
	return ids(m, func(x *storage.Memory) string { return x.MemoryID })
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: got %q, want %q", what, got, want)
			return
		}
	}
}
