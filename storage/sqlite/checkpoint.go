package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"
)

// checkpointer copies the WAL back into the database file from its own
// connection, so the writer's commits never pay for it (SQLite's
// automatic checkpoint runs inside the commit that crosses the
// threshold). PASSIVE never waits for readers or writers; the WAL is
// written from its start again once a checkpoint catches up. Under
// writes that never pause, PASSIVE never quite catches up and the WAL
// would grow without end. So past restartFrames the writer itself
// checkpoints between two group commits: nothing is added meanwhile, it
// copies the last frames (the background copied the rest), and the next
// write starts the WAL over — a short stop once every restartFrames.
type checkpointer struct {
	db            *sql.DB
	s             *Store
	log           *slog.Logger
	wake          chan struct{}
	stop          context.CancelFunc
	done          sync.WaitGroup
	restartFrames int
	every         time.Duration
}

// defaultRestartFrames is about 16 MiB of WAL at SQLite's 4 KiB pages.
const defaultRestartFrames = 4096

// checkpointEvery bounds how often checkpoints run while writes go on:
// often enough to keep the WAL small, rarely enough that a page written
// again and again is not copied (and the file synced) each time.
const checkpointEvery = 250 * time.Millisecond

func startCheckpointer(path string, common url.Values, s *Store, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open("sqlite", path+"?"+url.Values{"_pragma": common["_pragma"]}.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s for checkpoints: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{db: db, s: s, log: log, wake: make(chan struct{}, 1), stop: cancel, restartFrames: defaultRestartFrames, every: checkpointEvery}
	c.done.Add(1)
	go c.loop(ctx)
	return c, nil
}

// poke says a commit added to the WAL.
func (c *checkpointer) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop(ctx context.Context) {
	defer c.done.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		c.checkpoint(ctx)
		// Commits meanwhile poked again: the next checkpoint waits a
		// little, so a busy writer is followed, not chased.
		t := time.NewTimer(c.every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (c *checkpointer) checkpoint(ctx context.Context) {
	frames, err := c.run(ctx, "PASSIVE")
	if err == nil && frames > c.restartFrames {
		c.s.restart.Store(true)
	}
	if err != nil && ctx.Err() == nil {
		c.log.Warn("sqlite: WAL checkpoint failed; retrying after the next write", "error", err)
	}
}

// run checkpoints in mode and returns the frames the WAL holds.
func (c *checkpointer) run(ctx context.Context, mode string) (frames int, err error) {
	var busy, done int
	if err := c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &done); err != nil {
		return 0, err
	}
	c.s.checkpoints.Add(1)
	return frames, nil
}

// close stops the loop and checkpoints what is left, so a closed
// database is whole in its main file (other processes' readers may still
// keep a WAL).
func (c *checkpointer) close() error {
	c.stop()
	c.done.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	return c.db.Close()
}
