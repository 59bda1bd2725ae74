package sqlite

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/storage"
)

// The writer never checkpoints (its commits do not pay for copying the
// WAL); the background checkpointer keeps the WAL from growing with
// the data written.
func TestCheckpointsOffTheWriter(t *testing.T) {
	st := openTemp(t)
	st.ckpt.restartFrames = 1024 // 4 MiB: the test writes a few times that
	st.ckpt.every = 20 * time.Millisecond
	var auto int
	if err := st.w.QueryRowContext(t.Context(), "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Fatalf("the writer checkpoints every %d pages", auto)
	}
	state := map[string]any{"blob": strings.Repeat("x", 8<<10)}
	const n = 3000 // ~24 MB of state through the WAL
	for i := range n {
		sess := &storage.Session{SessionID: fmt.Sprint("s", i), SessionType: storage.SessionAgent, AgentID: "a", SessionState: state}
		if _, _, err := st.EnsureSession(context.Background(), sess); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for st.Stats().Checkpoints == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st.Stats().Checkpoints == 0 {
		t.Fatal("no checkpoint ran")
	}
	info, err := os.Stat(st.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	// Without checkpoints the WAL is several times what was written (each
	// write rewrites whole pages of the table and its indexes).
	if written := int64(n * 8 << 10); info.Size() > written {
		t.Fatalf("WAL is %d bytes after %d bytes written: checkpoints do not keep up", info.Size(), written)
	}
	// Once writes pause, a checkpoint catches up and the next write starts
	// the WAL over.
	if _, err := st.ckpt.run(t.Context(), "PASSIVE"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.EnsureSession(context.Background(), &storage.Session{SessionID: "last", SessionType: storage.SessionAgent, AgentID: "a"}); err != nil {
		t.Fatal(err)
	}
	frames, err := st.ckpt.run(t.Context(), "PASSIVE")
	if err != nil {
		t.Fatal(err)
	}
	if frames > 64 {
		t.Fatalf("the WAL holds %d frames after one small write: it did not start over", frames)
	}
}

// Readers never stop under load, and one inside the WAL keeps it from
// starting over: the writer's RESTART waits for them (briefly), so the
// WAL file stays bounded while reads and writes go on together.
func TestWALStartsOverUnderReaders(t *testing.T) {
	st := openTemp(t)
	st.ckpt.restartFrames = 1024 // 4 MiB
	st.ckpt.every = 20 * time.Millisecond
	ctx, stop := context.WithCancel(context.Background())
	var readers sync.WaitGroup
	for r := range 4 {
		readers.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				_, _ = st.GetSession(ctx, fmt.Sprint("s", (i*7+r)%50))
			}
		})
	}
	state := map[string]any{"blob": strings.Repeat("x", 8<<10)}
	const n = 4000 // ~32 MB of state through the WAL
	var largest int64
	for i := range n {
		sess := &storage.Session{SessionID: fmt.Sprint("s", i), SessionType: storage.SessionAgent, AgentID: "a", SessionState: state}
		if _, _, err := st.EnsureSession(context.Background(), sess); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			if info, err := os.Stat(st.path + "-wal"); err == nil {
				largest = max(largest, info.Size())
			}
		}
	}
	stop()
	readers.Wait()
	if st.Stats().Restarts == 0 {
		t.Fatal("the WAL never started over while readers read")
	}
	// Below what was written (without restarts the WAL is several times
	// that); a loaded machine may delay a restart or two, so no tighter.
	if written := int64(n * 8 << 10); largest > written {
		t.Fatalf("WAL reached %d bytes after %d bytes written under readers: it does not start over", largest, written)
	}
}
