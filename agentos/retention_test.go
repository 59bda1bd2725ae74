package agentos

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/internal/testlog"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
)

// The loop prunes at start and every interval, logs each prune with its
// counts, keeps runs in flight, and stops without a goroutine left.
func TestRetentionLoop(t *testing.T) {
	st := readySQLite(t, t.TempDir())
	ctx := t.Context()
	old := time.Now().Add(-30 * 24 * time.Hour).Unix()
	mk := func(sess, id string, status run.Status, at int64) {
		t.Helper()
		if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: sess, SessionType: storage.SessionAgent, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateRun(ctx, &storage.Run{RunID: id, SessionID: sess, SessionType: storage.SessionAgent, Status: status, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendEvents(ctx, id, json.RawMessage(`{"event":"RunStarted"}`)); err != nil {
			t.Fatal(err)
		}
	}
	mk("s-old", "r-old", run.StatusCompleted, old)
	mk("s-running", "r-running", run.StatusRunning, old)
	var logs testlog.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	before := goleak.IgnoreCurrent() // the store's own goroutines run on
	stop, err := StartRetention(st, RetentionConfig{Policy: storage.RetentionPolicy{MaxAge: 7 * 24 * time.Hour}, Interval: 20 * time.Millisecond}, log)
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never happened; log:\n%s", what, logs.String())
			}
		}
	}
	waitFor("the old session pruned", func() bool {
		_, err := st.GetSession(ctx, "s-old")
		return errors.Is(err, storage.ErrNotFound)
	})
	waitFor("the prune logged", func() bool {
		return strings.Contains(logs.String(), `msg="storage retention: pruned" sessions=1 runs=1 events=1 `)
	})
	// The next interval prunes what became old since.
	mk("s-later", "r-later", run.StatusError, old)
	waitFor("a later prune", func() bool {
		_, err := st.GetRun(ctx, "r-later")
		return errors.Is(err, storage.ErrNotFound)
	})
	if _, err := st.GetRun(ctx, "r-running"); err != nil {
		t.Errorf("the running run: %v", err)
	}
	if _, err := st.GetSession(ctx, "s-running"); err != nil {
		t.Errorf("the running run's session: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	goleak.VerifyNone(t, before)
	// Stopped: nothing more is pruned.
	mk("s-after", "r-after", run.StatusCompleted, old)
	time.Sleep(60 * time.Millisecond)
	if _, err := st.GetRun(ctx, "r-after"); err != nil {
		t.Errorf("a run pruned after stop: %v", err)
	}
}

// A policy of nothing starts nothing; a store that cannot prune, or a
// negative policy, is an error.
func TestStartRetentionRefuses(t *testing.T) {
	before := goleak.IgnoreCurrent()
	stop, err := StartRetention(memory.New(), RetentionConfig{}, nil)
	if err != nil || stop() != nil {
		t.Fatalf("zero policy: %v", err)
	}
	goleak.VerifyNone(t, before)
	type opaque struct{ storage.Store } // hides memory's Prune
	if _, err := StartRetention(opaque{memory.New()}, RetentionConfig{Policy: storage.RetentionPolicy{MaxRuns: 5}}, nil); err == nil || !strings.Contains(err.Error(), "cannot prune") {
		t.Errorf("a store without Prune: %v", err)
	}
	if _, err := StartRetention(memory.New(), RetentionConfig{Policy: storage.RetentionPolicy{MaxRuns: -1}}, nil); err == nil {
		t.Error("a negative MaxRuns was accepted")
	}
}
