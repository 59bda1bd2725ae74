// Package runs is the run engine: the one place that keeps runs of every
// kind — agents, teams, workflows — in storage and across processes.
// Agents, teams and workflows describe what to run; the Engine decides
// how it is kept: it creates the run row, moves its status, appends its
// events while it runs (in small batches), stores its output, claims a
// paused run for the one continuation that wins, launches background
// runs, cancels a run wherever it executes, keeps the live event stream
// that clients resume, and recovers the runs of a process that died.
//
// Several AgentOS processes may share one database. Each is an instance
// with a lease it renews (Start); a run names its owner, and only runs
// whose owner's lease expired are recovered, by any instance. Cancels,
// new events and status changes cross processes through Signals
// (Postgres LISTEN/NOTIFY) or, without them, by polling storage.
//
// Library code needs no setup: For(store) is the store's engine, made on
// first use (no lease, no background work). AgentOS makes one with New,
// Attaches it to its store and Starts it.
package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Errors of the engine.
var (
	// ErrRefused is matched by every refusal of a new run by this
	// instance (ErrShuttingDown, ErrLeaseLapsed): another may take it.
	ErrRefused = errors.New("runs: this instance takes no new run")
	// ErrShuttingDown: the engine is draining and starts no run.
	ErrShuttingDown = fmt.Errorf("%w: shutting down", ErrRefused)
	// ErrStorage wraps a storage failure on a run's durable path: the run
	// fails with it (nothing is silently lost).
	ErrStorage = errors.New("runs: the run could not be stored")
	// ErrLeaseLapsed: this instance could not renew its lease for longer
	// than the lease, so other instances may have taken its runs; it
	// takes no run until a renewal succeeds.
	ErrLeaseLapsed = fmt.Errorf("%w until it renews its lease: the lease lapsed (the database did not take its renewals)", ErrRefused)
	// ErrTakenOver: another instance recovered the run while this one had
	// lost its lease; the run is stopped here.
	ErrTakenOver = errors.New("runs: the run was taken over by another instance (this instance's lease had lapsed)")
	// ErrInstanceAlive: Start found the instance id's lease renewed by
	// another live process.
	ErrInstanceAlive = errors.New("runs: the instance is alive in another process")
)

// Config configures an Engine.
type Config struct {
	// Store keeps the runs; nil keeps nothing (a library run without a
	// database): cancels and live streams still work in this process.
	Store storage.Store
	// Instance names this process in storage (the owner of its runs).
	// Give a stable one (host and port) so a restarted process recovers
	// its own runs at once; default a random id.
	Instance string
	// Lease is how long an instance that stopped renewing keeps its runs
	// before another recovers them (default 15s; renewed every Lease/3).
	Lease time.Duration
	// Signals carry cancels, new events and status changes between
	// processes; nil: storage is polled every Poll.
	Signals Signals
	// Poll is how often storage is read for what signals did not say
	// (default 100ms).
	Poll time.Duration
	// BatchEvents and BatchDelay bound how long an event waits before it
	// is durable: a batch is written at that many events or that long
	// after its first (defaults 64 and 20ms); a run's end writes the rest.
	// Runs that are not resumable batch by count only (Run.Record).
	BatchEvents int
	BatchDelay  time.Duration
	// StartDelay is how long a run that is not resumable goes before its
	// row is written (default 250ms; negative: at once). One that ends
	// sooner is stored in one write, at its end, as agno stores its runs;
	// until then storage does not have it, and a cancel from another
	// instance reaches it by signal: without Signals, runs write their row
	// as they start while another instance is alive.
	StartDelay time.Duration
	// DrainGrace bounds how long Drain waits, after it cancelled the runs
	// still in flight, for them to end (default 5s): a run stuck in a
	// call that ignores its context must not hold shutdown.
	DrainGrace time.Duration
	Logger     *slog.Logger
}

// Engine keeps runs; safe for concurrent use.
type Engine struct {
	cfg Config
	st  storage.Store
	log *slog.Logger

	cancels *cancels
	streams *streams

	mu       sync.Mutex
	live     map[string]*Run // runs with a handle in this process
	launched map[string]context.CancelCauseFunc
	// unsettled are runs whose end could not be stored: their rows stay
	// RUNNING under this live instance, so nobody else recovers them;
	// the heartbeat stores them ERROR once storage answers.
	unsettled map[string]string // run id → reason
	draining  bool
	runs      sync.WaitGroup // live and launched runs, for Drain

	waitMu  sync.Mutex
	waiters map[string][]chan struct{} // storage followers by run id

	watchMu  sync.Mutex
	watchers map[int]func(Change)
	watchSeq int

	// othersAlive: another instance renewed its lease within one
	// (noteOthers).
	othersAlive atomic.Bool
	// renewedAt is when the lease was last renewed (unix ns; 0 before
	// Start); healthySince when renewals last started to succeed again
	// (0 while they fail).
	renewedAt    atomic.Int64
	healthySince atomic.Int64
	now          func() time.Time

	loopCtx    context.Context
	stopLoops  context.CancelFunc
	loops      sync.WaitGroup
	startOnce  sync.Once
	closeOnce  sync.Once
	startedSig atomic.Bool
	// sigq are signals waiting for the publisher (publishLoop).
	sigq chan Signal
}

// New returns an engine. It does no background work until Start.
func New(cfg Config) (*Engine, error) {
	if cfg.Lease < 0 || cfg.Poll < 0 || cfg.BatchDelay < 0 || cfg.BatchEvents < 0 || cfg.DrainGrace < 0 {
		return nil, errors.New("runs: Lease, Poll, BatchDelay, BatchEvents and DrainGrace must not be negative")
	}
	if cfg.DrainGrace == 0 {
		cfg.DrainGrace = 5 * time.Second
	}
	if cfg.Lease == 0 {
		cfg.Lease = 15 * time.Second
	}
	if cfg.Poll == 0 {
		cfg.Poll = 100 * time.Millisecond
	}
	if cfg.BatchEvents == 0 {
		cfg.BatchEvents = 64
	}
	if cfg.BatchDelay == 0 {
		cfg.BatchDelay = 20 * time.Millisecond
	}
	if cfg.StartDelay == 0 {
		cfg.StartDelay = 250 * time.Millisecond
	}
	if cfg.Instance == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Instance = "instance-" + hex.EncodeToString(b[:])
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Engine{cfg: cfg, st: cfg.Store, log: cfg.Logger, cancels: newCancels(), streams: newStreams(),
		live: map[string]*Run{}, launched: map[string]context.CancelCauseFunc{}, unsettled: map[string]string{}, waiters: map[string][]chan struct{}{},
		watchers: map[int]func(Change){}, now: time.Now}
	e.loopCtx, e.stopLoops = context.WithCancel(context.Background())
	return e, nil
}

// Instance is the id this engine owns runs under.
func (e *Engine) Instance() string { return e.cfg.Instance }

// Store is the engine's store (nil: none).
func (e *Engine) Store() storage.Store { return e.st }

// ---- one engine per store ----

var (
	byStoreMu sync.Mutex
	byStore   = map[storage.Store]*Engine{}
	storeless = mustNew(Config{Instance: ""})
)

func mustNew(cfg Config) *Engine {
	e, err := New(cfg)
	if err != nil {
		panic(err)
	}
	e.cfg.Instance = "" // runs of library engines have no owner: no lease keeps them
	return e
}

// For returns the engine of st: the one Attached, or a library engine
// made on first use (runs have no owner, nothing runs in the
// background). For(nil) is the process-wide engine of runs without a
// store.
func For(st storage.Store) *Engine {
	if st == nil {
		return storeless
	}
	byStoreMu.Lock()
	defer byStoreMu.Unlock()
	if e, ok := byStore[st]; ok {
		return e
	}
	e := mustNew(Config{Store: st})
	byStore[st] = e
	return e
}

// Attach makes e the engine For(e.Store()) returns; agents, teams and
// workflows on that store run through it from their next run on.
func Attach(e *Engine) error {
	if e.st == nil {
		return errors.New("runs: Attach needs an engine with a Store")
	}
	byStoreMu.Lock()
	defer byStoreMu.Unlock()
	if cur, ok := byStore[e.st]; ok && cur != e && cur.busy() {
		return errors.New("runs: the store's engine has runs in flight; attach before running anything")
	}
	byStore[e.st] = e
	return nil
}

// Detach undoes Attach (AgentOS at shutdown).
func Detach(e *Engine) {
	byStoreMu.Lock()
	defer byStoreMu.Unlock()
	if byStore[e.st] == e {
		delete(byStore, e.st)
	}
}

func (e *Engine) busy() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.live)+len(e.launched) > 0
}

// ---- lifecycle ----

// Start registers the instance's lease, recovers at once the runs this
// instance left in flight (a restart) and those of no owner, and starts
// the background work: lease renewal, recovery of expired instances'
// runs, and following cancels and changes from other processes.
func (e *Engine) Start(ctx context.Context) error {
	if e.st == nil {
		return errors.New("runs: Start needs a Store")
	}
	if e.cfg.Instance == "" {
		return errors.New("runs: Start needs an Instance")
	}
	var err error
	e.startOnce.Do(func() {
		if err = e.waitOwnLease(ctx); err != nil {
			return
		}
		if err = e.st.Heartbeat(ctx, e.cfg.Instance); err != nil {
			err = fmt.Errorf("runs: register instance %s: %w", e.cfg.Instance, err)
			return
		}
		e.renewed(false)
		if insts, ierr := e.st.Instances(ctx); ierr == nil {
			e.noteOthers(insts)
		} else {
			e.othersAlive.Store(true) // unknown: write runs as they start
		}
		if err = e.Recover(ctx); err != nil {
			return
		}
		if e.cfg.Signals != nil {
			e.sigq = make(chan Signal, maxQueuedSignals)
			e.loop(e.publishLoop)
		}
		e.startedSig.Store(true)
		e.loop(e.heartbeatLoop)
		e.loop(e.recoveryLoop)
		e.loop(e.cancelLoop)
		if e.cfg.Signals != nil {
			e.loop(e.signalLoop)
		} else {
			e.loop(e.pollChanges)
		}
	})
	return err
}

// Recover marks ERROR the runs this instance left in flight (it
// restarted: none of them runs any more) and the in-flight runs of no
// owner (a library process, or a database from before owners).
func (e *Engine) Recover(ctx context.Context) error {
	if e.st == nil {
		return nil
	}
	owners := []string{""}
	if e.cfg.Instance != "" {
		owners = append(owners, e.cfg.Instance)
	}
	for _, owner := range owners {
		if err := e.recoverOwner(ctx, owner, "the server stopped while it was running"); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) loop(fn func(ctx context.Context)) {
	e.loops.Add(1)
	go func() {
		defer e.loops.Done()
		fn(e.loopCtx)
	}()
}

// Close stops the background work. Runs in flight are not waited for
// (see Drain).
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.stopLoops()
		e.loops.Wait()
	})
	return nil
}

// Release ends a closed engine's lease at once, for a clean shutdown
// after Drain (the store must be a storage.InstanceReleaser): a restart
// with the same instance id need not wait for the lease to lapse, and
// other instances recover at once any run the drain left.
func (e *Engine) Release(ctx context.Context) error {
	rel, ok := e.st.(storage.InstanceReleaser)
	if !ok || e.renewedAt.Load() == 0 {
		return nil
	}
	e.Close() // no renewal after the release
	if err := rel.ReleaseInstance(ctx, e.cfg.Instance); err != nil {
		return fmt.Errorf("runs: release the lease of %s: %w", e.cfg.Instance, err)
	}
	return nil
}

// Drain refuses new runs, waits for the runs in flight until ctx ends,
// then cancels the rest with cause and waits for them to end (they are
// stored CANCELLED, never left RUNNING) — at most DrainGrace: a run still
// going then is left to recovery (this instance's restart, or another's
// once the lease Close releases lapses) and logged. It returns the ids it
// cancelled.
func (e *Engine) Drain(ctx context.Context, cause error) []string {
	e.mu.Lock()
	e.draining = true
	e.mu.Unlock()
	done := make(chan struct{})
	go func() { e.runs.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	var ids []string
	e.mu.Lock()
	for id, r := range e.live {
		ids = append(ids, id)
		r.cancel(cause)
	}
	for id, c := range e.launched {
		if _, ok := e.live[id]; !ok {
			ids = append(ids, id)
		}
		c(cause)
	}
	e.mu.Unlock()
	e.cancels.cancelAll(cause)
	grace := time.NewTimer(e.cfg.DrainGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		e.log.Error("runs: runs still in flight after the drain's cancel; leaving them to recovery", "runs", ids, "grace", e.cfg.DrainGrace)
	}
	return ids
}

// admit counts a run in flight unless the engine drains. A background
// run launched or detached before the drain is in flight already: its
// executor's Begin or Claim (runID) is admitted, so it ends stored
// rather than left PENDING.
func (e *Engine) admit(runID string) error {
	if e.leaseLapsed() {
		return ErrLeaseLapsed
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, launched := e.launched[runID]; e.draining && (runID == "" || !launched) {
		return ErrShuttingDown
	}
	e.runs.Add(1)
	return nil
}

// ---- cancel ----

// Register ties a run id to the cancel function of its context
// (run.Canceller): a cancel from this process or another reaches it.
func (e *Engine) Register(runID string, cancel context.CancelCauseFunc) (unregister func()) {
	return e.cancels.register(runID, cancel)
}

// Cancel cancels a run wherever it executes: at once when it runs in
// this process, else through its cancel flag in storage, which its owner
// follows (a signal, or its next poll). It reports whether a run in
// flight was reached or flagged; a run that does not exist is
// run.ErrNotFound.
func (e *Engine) Cancel(ctx context.Context, runID string) (bool, error) {
	if e.cancels.cancel(runID) {
		return true, nil
	}
	if e.st == nil {
		e.cancels.intend(runID)
		return false, nil
	}
	r, err := e.st.RequestCancel(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) {
		// A run whose row is not written yet (StartDelay) may be live on
		// another instance: its owner hears the signal, or finds the flag
		// set once the row is written.
		e.publish(ctx, Signal{Kind: SignalCancel, RunID: runID})
		r, err = e.awaitRow(ctx, runID)
	}
	if errors.Is(err, storage.ErrNotFound) {
		return false, fmt.Errorf("cancel run %s: %w", runID, run.ErrNotFound)
	}
	if err != nil {
		return false, fmt.Errorf("cancel run %s: %w", runID, err)
	}
	if !r.InFlight() {
		return false, nil
	}
	// A run launched here but not registered yet is about to start.
	e.cancels.intend(runID)
	e.publish(ctx, Signal{Kind: SignalCancel, RunID: runID, Owner: r.Owner})
	return true, nil
}

// awaitRow flags a run for cancellation once its row is written: without
// signals, an instance that has not seen this one yet writes a new run's
// row only at StartDelay. ErrNotFound when no row came by then.
func (e *Engine) awaitRow(ctx context.Context, runID string) (*storage.Run, error) {
	if e.cfg.Signals != nil || e.cfg.StartDelay <= 0 || e.renewedAt.Load() == 0 {
		return nil, storage.ErrNotFound // signals reach it; or no replicas
	}
	deadline := time.Now().Add(e.cfg.StartDelay + e.cfg.StartDelay/2)
	t := time.NewTicker(max(e.cfg.StartDelay/10, 5*time.Millisecond))
	defer t.Stop()
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-t.C:
		}
		r, err := e.st.RequestCancel(ctx, runID)
		if !errors.Is(err, storage.ErrNotFound) {
			return r, err
		}
	}
	return nil, storage.ErrNotFound
}

// Running reports a run executing in this process.
func (e *Engine) Running(runID string) bool {
	e.mu.Lock()
	_, live := e.live[runID]
	_, launched := e.launched[runID]
	e.mu.Unlock()
	return live || launched || e.cancels.registered(runID)
}

var _ run.Canceller = (*Engine)(nil)
