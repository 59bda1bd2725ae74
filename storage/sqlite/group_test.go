package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// queueBehindBlockedWrite holds the write connection with a write that
// waits for release, so the writes submitted meanwhile form one group.
func queueBehindBlockedWrite(t *testing.T, st *Store) (release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- st.write(context.Background(), func(context.Context, *sql.Tx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	return func() {
		close(unblock)
		if err := <-done; err != nil {
			t.Errorf("blocking write: %v", err)
		}
	}
}

func waitPending(t *testing.T, st *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := st.group.Pending()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes pending, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func putRunWrite(st *Store, id string) error {
	return st.CreateRun(context.Background(), &storage.Run{RunID: id, SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusCompleted})
}

// Writes queued behind a commit are committed together, and a write that
// fails inside the group takes none of the others down.
func TestGroupCommitIsolatesAFailingWrite(t *testing.T) {
	st := openTemp(t)
	release := queueBehindBlockedWrite(t, st)
	const writers = 8
	errs := make([]error, writers)
	var wg sync.WaitGroup
	boom := errors.New("boom")
	for i := range writers {
		wg.Go(func() {
			if i == 3 {
				errs[i] = st.write(context.Background(), func(ctx context.Context, tx *sql.Tx) error {
					if _, err := tx.StmtContext(ctx, st.st.createRun).ExecContext(ctx, "doomed", "s", "", "agent", "a", "", "COMPLETED", 1, 1, "{}", "", false, nil); err != nil {
						return err
					}
					return boom
				})
				return
			}
			errs[i] = putRunWrite(st, fmt.Sprintf("r%d", i))
		})
	}
	waitPending(t, st, writers)
	release()
	wg.Wait()
	for i, err := range errs {
		if i == 3 {
			if !errors.Is(err, boom) {
				t.Fatalf("failing write: %v, want its own error", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if _, err := st.GetRun(context.Background(), fmt.Sprintf("r%d", i)); err != nil {
			t.Fatalf("run r%d lost: %v", i, err)
		}
	}
	if _, err := st.GetRun(context.Background(), "doomed"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the failing write's row: %v, want it rolled back", err)
	}
}

// A writer whose context ends while it waits in the queue gets its
// context's error and writes nothing; the others commit.
func TestGroupCommitSkipsACancelledWrite(t *testing.T) {
	st := openTemp(t)
	release := queueBehindBlockedWrite(t, st)
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled, other error
	var wg sync.WaitGroup
	wg.Go(func() {
		cancelled = st.CreateRun(ctx, &storage.Run{RunID: "gone", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "a", Status: run.StatusCompleted})
	})
	wg.Go(func() { other = putRunWrite(st, "kept") })
	waitPending(t, st, 2)
	cancel()
	release()
	wg.Wait()
	if !errors.Is(cancelled, context.Canceled) || other != nil {
		t.Fatalf("cancelled write: %v; other write: %v", cancelled, other)
	}
	if _, err := st.GetRun(context.Background(), "gone"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("cancelled write stored: %v", err)
	}
	if _, err := st.GetRun(context.Background(), "kept"); err != nil {
		t.Fatal(err)
	}
}

// Two updates of one session in one group: the second sees the first's
// version and retries, so neither change is lost.
func TestGroupCommitKeepsConcurrentSessionUpdates(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent, SessionState: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	release := queueBehindBlockedWrite(t, st)
	var wg sync.WaitGroup
	const writers = 16
	for i := range writers {
		wg.Go(func() {
			if _, err := st.UpdateSession(ctx, "s", func(s *storage.Session) error {
				s.SessionState[fmt.Sprint(i)] = i
				return nil
			}); err != nil {
				t.Error(err)
			}
		})
	}
	waitPending(t, st, writers)
	release()
	wg.Wait()
	s, err := st.GetSession(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SessionState) != writers {
		t.Fatalf("state has %d keys, want %d: %v", len(s.SessionState), writers, s.SessionState)
	}
}
