package runs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/runs/pgsignal"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// db is one database shared by several processes: each open is a store
// of its own on it (a connection pool, a file handle), as a separate
// process would have.
type db struct {
	name string
	open func(t *testing.T) storage.Store
	// pg: signals can cross processes through LISTEN/NOTIFY.
	pg bool
}

type backend struct {
	name string
	make func(t *testing.T) *db
}

var backends = []backend{
	{"memory", func(t *testing.T) *db {
		// One process's memory: every "process" shares the store.
		st := memory.New()
		t.Cleanup(func() { st.Close() })
		return &db{name: "memory", open: func(*testing.T) storage.Store { return st }}
	}},
	{"sqlite", func(t *testing.T) *db {
		path := filepath.Join(t.TempDir(), "agno.db")
		return &db{name: "sqlite", open: func(t *testing.T) storage.Store {
			st, err := sqlite.Open(context.Background(), sqlite.Config{Path: path, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}}
	}},
	{"postgres", func(t *testing.T) *db {
		dsn := pgtest.DSN(t)
		schema := pgtest.Schema(t, dsn)
		return &db{name: "postgres", pg: true, open: func(t *testing.T) storage.Store {
			st, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, Schema: schema, MaxConns: 6, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}}
	}},
}

// eachBackend runs fn on memory, SQLite and Postgres, in parallel.
func eachBackend(t *testing.T, fn func(t *testing.T, d *db)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			fn(t, b.make(t))
		})
	}
}

// signalsOf returns LISTEN/NOTIFY signals on a Postgres store.
func signalsOf(t *testing.T, st storage.Store) *pgsignal.Signals {
	t.Helper()
	pg := st.(*postgres.Store)
	sig, err := pgsignal.New(pg.Pool(), pg.Schema())
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

// engine returns an engine on st named instance, with short intervals;
// it is closed at cleanup (before its store, which was opened earlier).
func engine(t *testing.T, st storage.Store, instance string, opts ...func(*runs.Config)) *runs.Engine {
	t.Helper()
	cfg := runs.Config{Store: st, Instance: instance, Lease: time.Second, Poll: 10 * time.Millisecond,
		BatchEvents: 3, BatchDelay: 2 * time.Millisecond, StartDelay: -1, Logger: quiet}
	for _, o := range opts {
		o(&cfg)
	}
	e, err := runs.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func started(t *testing.T, e *runs.Engine) *runs.Engine {
	t.Helper()
	if err := e.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

const component = "agent-1"

func row(id string) storage.Run {
	return storage.Run{RunID: id, SessionID: "s-" + id, SessionType: storage.SessionAgent, ComponentID: component,
		CreatedAt: run.Now(), Data: doc(id, run.StatusRunning)}
}

func doc(id string, status run.Status) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"run_id":%q,"agent_id":%q,"status":%q}`, id, component, status))
}

func session(id string) *storage.Session {
	return &storage.Session{SessionID: "s-" + id, SessionType: storage.SessionAgent, AgentID: component}
}

// live is a run executing on an engine the way internal/engine runs one:
// its context's cancel registered with the engine and given to Begin.
type live struct {
	t          *testing.T
	id         string
	ctx        context.Context
	h          *runs.Run
	emit       run.Emitter
	unregister func()
	n          int // events emitted
}

func begin(t *testing.T, e *runs.Engine, id string, resumable bool) *live {
	t.Helper()
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	unregister := e.Register(id, cancel)
	h, err := e.Begin(ctx, runs.Begin{Row: row(id), Session: session(id), Resumable: resumable, Cancel: cancel})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Started(ctx); err != nil {
		t.Fatalf("run %s did not start: %v", id, err)
	}
	return &live{t: t, id: id, ctx: ctx, h: h, emit: h.Emitter(nil), unregister: unregister}
}

// claim continues a paused run on e as internal/engine's Continue does.
func claim(t *testing.T, e *runs.Engine, id string, resumable bool) (*live, error) {
	t.Helper()
	stored, err := e.Store().GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	unregister := e.Register(id, cancel)
	h, err := e.Claim(ctx, *stored, stored.Version, -1, resumable, cancel)
	if err != nil {
		unregister()
		return nil, err
	}
	return &live{t: t, id: id, ctx: ctx, h: h, emit: h.Emitter(nil), unregister: unregister}, nil
}

func content(i int) *run.RunContent {
	return &run.RunContent{EventBase: run.EventBase{AgentID: component}, Content: fmt.Sprintf("part %d", i)}
}

// events emits n content events (resumable runs) or records them.
func (l *live) events(n int) {
	for range n {
		e := content(l.n)
		l.n++
		if l.h.Resumable() {
			l.emit(e)
		} else {
			l.h.Record(e)
		}
	}
}

// end writes the run's end, delivers its terminal event as callers do
// after the write, and releases it.
func (l *live) end(status run.Status) error {
	var term run.Event = &run.RunCompleted{EventBase: run.EventBase{AgentID: component}, Content: "done"}
	if status == run.StatusPaused {
		term = &run.RunPaused{EventBase: run.EventBase{AgentID: component}}
	}
	f := runs.Finish{Status: status, Doc: doc(l.id, status)}
	if l.h.Resumable() {
		f.Terminal = []run.Event{term}
	} else {
		l.h.Record(term) // stored with the end
	}
	err := l.h.Finish(l.ctx, f)
	if err == nil && l.h.Resumable() {
		l.emit(term)
	}
	l.n++
	l.h.Close()
	l.unregister()
	return err
}

// release gives a claimed run back as paused (a refused continuation).
func (l *live) release() {
	l.h.Release()
	l.unregister()
}

func (l *live) mustEnd(status run.Status) {
	l.t.Helper()
	if err := l.end(status); err != nil {
		l.t.Fatalf("finish run %s: %v", l.id, err)
	}
}

func getRun(t *testing.T, st storage.Store, id string) *storage.Run {
	t.Helper()
	r, err := st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatalf("get run %s: %v", id, err)
	}
	return r
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// storedEvents waits until n events of a run are stored.
func storedEvents(t *testing.T, st storage.Store, id string, n int) {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("%d events of %s stored", n, id), func() bool {
		evs, err := st.ListEvents(context.Background(), id, -1)
		return err == nil && len(evs) >= n
	})
}

// tapped wraps real signals and reports what this process heard, so a
// test knows its listener is up and that a signal, not a poll, acted.
type tapped struct {
	runs.Signals
	mu    sync.Mutex
	heard []runs.Signal
}

func tap(s runs.Signals) *tapped { return &tapped{Signals: s} }

func (s *tapped) Listen(ctx context.Context, fn func(runs.Signal)) error {
	return s.Signals.Listen(ctx, func(sig runs.Signal) {
		s.mu.Lock()
		s.heard = append(s.heard, sig)
		s.mu.Unlock()
		fn(sig)
	})
}

func (s *tapped) heardKind(kind, runID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sig := range s.heard {
		if sig.Kind == kind && sig.RunID == runID {
			return true
		}
	}
	return false
}

// listening waits until every tapped listener hears a probe published
// by from: a signal published after it reaches them.
func listening(t *testing.T, from runs.Signals, taps ...*tapped) {
	t.Helper()
	probe := "probe-" + run.NewID()
	eventually(t, 10*time.Second, "the signal listeners are up", func() bool {
		if err := from.Publish(context.Background(), runs.Signal{Kind: "probe", RunID: probe}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		for _, tp := range taps {
			if !tp.heardKind("probe", probe) {
				return false
			}
		}
		return true
	})
}

func withLease(d time.Duration) func(*runs.Config) { return func(c *runs.Config) { c.Lease = d } }
func withPoll(d time.Duration) func(*runs.Config)  { return func(c *runs.Config) { c.Poll = d } }
func withSignals(s runs.Signals) func(*runs.Config) {
	return func(c *runs.Config) { c.Signals = s }
}

// blindToFlags hides cancel flags from an engine's poll of storage, so
// only a signal can bring it a cancel.
type blindToFlags struct{ storage.Store }

func (s blindToFlags) ListRuns(ctx context.Context, q storage.RunQuery) ([]*storage.Run, error) {
	if q.CancelRequested {
		return nil, nil
	}
	return s.Store.ListRuns(ctx, q)
}
