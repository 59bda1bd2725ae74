package runs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Begin describes a run that starts.
type Begin struct {
	// Row is the run's row as it starts: ids, session type, component,
	// user, status (RUNNING) and first document. Owner and Listed are the
	// engine's to set.
	Row storage.Run
	// Session, when set, is ensured in the same write as the row: its
	// stored form is what Started returns.
	Session *storage.Session
	// Prepared: the row exists PENDING (Launch); the run takes it over.
	Prepared bool
	// Resumable: the run's stream is kept live with event_index and every
	// event is stored, so a client resumes it on any instance (background
	// and WebSocket runs). Other runs store what Record is given.
	Resumable bool
	// Cancel cancels the run's context (a cancel from anywhere).
	Cancel context.CancelCauseFunc
	// NewID: no run has Row.RunID (just made, or checked); NewSession: no
	// session has Session's id. A run whose row waits (StartDelay) then
	// reads neither; its write refuses a taken id all the same.
	NewID, NewSession bool
}

// Run is one run in progress: what its executor tells the engine. Its
// methods are safe for concurrent use.
type Run struct {
	e         *Engine
	row       storage.Run
	resumable bool
	// continuation: the run was claimed from a pause (Claim).
	continuation bool
	cancel       context.CancelCauseFunc
	// unregister takes a cancel the caller gave out of the engine's
	// cancels (Close).
	unregister func()

	started  chan struct{}
	session  *storage.Session
	startErr error
	// deferred: the row is not written yet (Config.StartDelay); the start
	// timer or the run's next write creates it, ensuring startSession.
	// Guarded by writing.
	deferred     bool
	newSession   bool // its session did not exist as it started
	finished     bool // its end was written, or tried: no start after it
	startSession *storage.Session
	startTimer   *time.Timer
	startTries   int // failed writes of the deferred start (r.mu)

	mu      sync.Mutex
	next    int64
	pending []storage.Event
	indexed map[run.Event]int64 // events given an index before delivery
	timer   *time.Timer
	writing sync.Mutex // one write at a time, in order
	// emitting keeps a resumable run's buffer in index order when its
	// emitter is called from several goroutines.
	emitting sync.Mutex
	failed   error
	begun    time.Time // for the duration logEnd reports
	stream   *stream
	gen      int
	closed   bool
}

// Begin starts a run: its row (and session) are written in the
// background — Started waits for that — so the first event goes out
// before the first write completes. A run id that is taken fails
// Started with run.ErrRunExists and nothing is written.
func (e *Engine) Begin(ctx context.Context, b Begin) (*Run, error) {
	if err := e.admit(b.Row.RunID); err != nil {
		return nil, err
	}
	r := e.newRun(b.Row, b.Resumable, b.Cancel)
	r.row.Owner = e.cfg.Instance
	r.row.Listed = b.Prepared || b.Row.Listed
	r.row.Status = run.StatusRunning
	e.track(r, b.Cancel)
	if e.st == nil {
		close(r.started)
		return r, nil
	}
	wctx := context.WithoutCancel(ctx)
	if !b.Prepared && !r.resumable && e.deferStarts() {
		r.deferred = true
		r.row.CreatedAt = cmp.Or(r.row.CreatedAt, run.Now())
		go func() {
			defer close(r.started)
			r.session, r.startSession, r.newSession, r.startErr = e.readStart(wctx, b, r.row.RunID)
			if r.startErr == nil {
				r.mu.Lock()
				if !r.closed {
					r.startTimer = time.AfterFunc(e.cfg.StartDelay, func() { r.writeStart(wctx) })
				}
				r.mu.Unlock()
			}
		}()
		return r, nil
	}
	first := r.rowCopy()
	go func() {
		defer close(r.started)
		sess, err := e.st.StartRun(wctx, b.Session, first, b.Prepared)
		switch {
		case errors.Is(err, storage.ErrConflict) && !b.Prepared:
			r.startErr = fmt.Errorf("%w: %s (choose another run_id, or leave it out)", run.ErrRunExists, b.Row.RunID)
		case err != nil:
			r.startErr = fmt.Errorf("%w: start run %s: %v", ErrStorage, b.Row.RunID, err)
		}
		r.session = sess
		if r.startErr == nil && b.Prepared {
			e.flagged(wctx, r)
		}
	}()
	return r, nil
}

// readStart is the start of a deferred run: its id checked unused and its
// session read, or made as a store would make it (created: written with
// the row). start is what the row's write ensures.
func (e *Engine) readStart(ctx context.Context, b Begin, runID string) (stored, start *storage.Session, created bool, err error) {
	if !b.NewID {
		switch _, err := e.st.GetRun(ctx, runID); {
		case err == nil:
			return nil, nil, false, fmt.Errorf("%w: %s (choose another run_id, or leave it out)", run.ErrRunExists, runID)
		case !errors.Is(err, storage.ErrNotFound):
			return nil, nil, false, fmt.Errorf("%w: start run %s: %v", ErrStorage, runID, err)
		}
	}
	if b.Session == nil {
		return nil, nil, false, nil
	}
	if !b.NewSession {
		stored, err = e.st.GetSession(ctx, b.Session.SessionID)
		if err == nil {
			return stored, b.Session, false, nil
		}
		if !errors.Is(err, storage.ErrNotFound) {
			return nil, nil, false, fmt.Errorf("%w: start run %s: %v", ErrStorage, runID, err)
		}
	}
	fresh, err := firstForm(b.Session)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%w: start run %s: session: %v", ErrStorage, runID, err)
	}
	return fresh.Clone(), fresh, true, nil
}

// firstForm is a new session as a read gives it back once it is stored:
// its timestamps set and its documents as JSON decodes them.
func firstForm(sess *storage.Session) (*storage.Session, error) {
	c := *sess
	now := run.Now()
	c.CreatedAt = cmp.Or(c.CreatedAt, now)
	c.UpdatedAt = cmp.Or(c.UpdatedAt, c.CreatedAt)
	if out, ok := decodedForm(&c); ok {
		out.Version = 1
		return out, nil
	}
	data, err := json.Marshal(&c)
	if err != nil {
		return nil, err
	}
	var out storage.Session
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	out.Version = 1
	return &out, nil
}

// decodedForm is what json.Marshal then json.Unmarshal make of c, made
// without the text when its documents allow (most new sessions: no
// summary or metrics yet, state and data of plain values).
func decodedForm(c *storage.Session) (*storage.Session, bool) {
	if c.Summary != nil || c.Metrics != nil {
		return nil, false
	}
	for _, s := range []string{c.SessionID, string(c.SessionType), c.AgentID, c.TeamID, c.WorkflowID, c.UserID, c.SessionName} {
		if !utf8.ValidString(s) {
			return nil, false
		}
	}
	out := *c
	for _, m := range []*map[string]any{&out.SessionState, &out.Metadata, &out.Data} {
		if len(*m) == 0 { // omitempty: an empty document is left out
			*m = nil
			continue
		}
		var ok bool
		if *m, ok = run.JSONForm(*m); !ok {
			return nil, false
		}
	}
	return &out, true
}

// WriteStart writes the run's row now if it is not written yet: for a
// step that reads or changes the run's session in the store before the
// run ends (a session summary, a retry reloading state).
func (r *Run) WriteStart(ctx context.Context) error {
	if r == nil || r.e.st == nil {
		return nil
	}
	if _, err := r.Started(ctx); err != nil {
		return err
	}
	r.writing.Lock()
	defer r.writing.Unlock()
	return r.writeStartLocked(context.WithoutCancel(ctx))
}

// writeStart writes a deferred run's row when it is still running at
// StartDelay. A taken id stops the run; a storage failure is tried again,
// each wait twice the last up to maxStartRetryWait (an outage may end
// before the run does, and the run's end writes the row in any case).
func (r *Run) writeStart(ctx context.Context) {
	r.writing.Lock()
	err := r.writeStartLocked(ctx)
	r.writing.Unlock()
	switch {
	case errors.Is(err, run.ErrRunExists):
		r.fail(err)
	case err != nil:
		r.mu.Lock()
		r.startTries++
		tries := r.startTries
		if !r.closed && r.startTimer != nil {
			r.startTimer.Reset(min(r.e.cfg.StartDelay<<min(tries, 16), maxStartRetryWait))
		}
		r.mu.Unlock()
		if tries == 1 { // once per run: an outage fails every run's start
			r.e.log.Warn("runs: a run's start could not be stored yet; trying again, and its end stores it", "run_id", r.row.RunID, "error", err)
		}
	}
}

// maxStartRetryWait bounds the wait between tries of a deferred start.
const maxStartRetryWait = 5 * time.Second

// writeStartLocked writes the row of a deferred run; needs r.writing.
func (r *Run) writeStartLocked(ctx context.Context) error {
	if !r.deferred || r.finished {
		return nil
	}
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil
	}
	_, err := r.e.st.StartRun(ctx, r.startSession, r.rowCopy(), false)
	switch {
	case errors.Is(err, storage.ErrConflict):
		return fmt.Errorf("%w: %s (choose another run_id, or leave it out)", run.ErrRunExists, r.row.RunID)
	case err != nil:
		return fmt.Errorf("%w: start run %s: %v", ErrStorage, r.row.RunID, err)
	}
	r.deferred = false
	r.e.changed(ctx, r.rowCopy(), true)
	return nil
}

// stopStartTimer stops a deferred run's start timer.
func (r *Run) stopStartTimer() {
	r.mu.Lock()
	if r.startTimer != nil {
		r.startTimer.Stop()
		r.startTimer = nil
	}
	r.mu.Unlock()
}

// Claim continues a paused run that was read at version: it moves it to
// RUNNING under this instance, so of every continuation of one pause —
// on any instance, over any channel — exactly one wins. next is the
// number of events the run has stored (-1: count them). A lost claim is
// run.ErrNotPaused.
func (e *Engine) Claim(ctx context.Context, row storage.Run, version int64, next int64, resumable bool, cancel context.CancelCauseFunc) (*Run, error) {
	if err := e.admit(row.RunID); err != nil {
		return nil, err
	}
	r := e.newRun(row, resumable, cancel)
	r.row.Owner, r.row.Listed, r.row.Status = e.cfg.Instance, true, run.StatusRunning
	if e.st == nil { // no store to claim in: this process's claims decide
		e.mu.Lock()
		_, taken := e.live[row.RunID]
		if !taken {
			e.live[row.RunID] = r
		}
		e.mu.Unlock()
		if taken {
			e.runs.Done()
			return nil, fmt.Errorf("continue run %s: %w (status=RUNNING)", row.RunID, run.ErrNotPaused)
		}
	}
	if e.st != nil {
		claimed, err := e.st.ClaimRun(ctx, storage.Claim{RunID: row.RunID, From: run.StatusPaused, To: run.StatusRunning,
			Owner: e.cfg.Instance, Version: version, Listed: true})
		if err != nil {
			e.runs.Done()
			switch {
			case errors.Is(err, storage.ErrNotFound):
				return nil, fmt.Errorf("continue run %s: %w", row.RunID, run.ErrNotFound)
			case errors.Is(err, storage.ErrConflict):
				return nil, fmt.Errorf("continue run %s: %w (status=RUNNING)", row.RunID, run.ErrNotPaused)
			}
			return nil, fmt.Errorf("%w: claim run %s: %v", ErrStorage, row.RunID, err)
		}
		r.row.UserID = claimed.UserID
		if next < 0 {
			evs, err := e.st.ListEvents(ctx, row.RunID, -1)
			if err != nil {
				r.release()
				return nil, fmt.Errorf("%w: read events of run %s: %v", ErrStorage, row.RunID, err)
			}
			next = int64(len(evs))
		}
	}
	r.next = max(next, 0)
	r.continuation = true
	close(r.started)
	e.track(r, cancel)
	e.changed(ctx, r.rowCopy(), false)
	return r, nil
}

func (e *Engine) newRun(row storage.Run, resumable bool, cancel context.CancelCauseFunc) *Run {
	r := &Run{e: e, row: row, resumable: resumable, cancel: cancel, started: make(chan struct{}), indexed: map[run.Event]int64{},
		unregister: func() {}, begun: time.Now()}
	if cancel == nil {
		r.cancel = func(error) {}
	}
	return r
}

// track registers a run as live here: its stream opens, a cancel reaches
// it (the caller's cancel is registered, so one from another process's
// flag or signal finds it too).
func (e *Engine) track(r *Run, cancel context.CancelCauseFunc) {
	if r.resumable {
		r.stream, r.gen = e.streams.open(r.row.RunID, r.next, r.continuation)
	}
	if cancel != nil {
		r.unregister = e.cancels.register(r.row.RunID, cancel)
	}
	e.mu.Lock()
	e.live[r.row.RunID] = r
	e.mu.Unlock()
}

// flagged cancels a run whose cancel was requested before it started.
func (e *Engine) flagged(ctx context.Context, r *Run) {
	if stored, err := e.st.GetRun(ctx, r.row.RunID); err == nil && stored.CancelRequested {
		r.cancel(run.ErrCancelled)
	}
}

// Started waits for the run's first write and returns its session as
// stored (nil when Begin had none, or without a store).
func (r *Run) Started(ctx context.Context) (*storage.Session, error) {
	if r == nil { // a run the engine does not keep (nested)
		return nil, nil
	}
	select {
	case <-r.started:
		return r.session, r.startErr
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// NewSession reports a run that created its session (known only for a
// run whose row waits, Config.StartDelay): the session has no earlier
// runs to read.
func (r *Run) NewSession() bool {
	if r == nil {
		return false
	}
	<-r.started
	return r.newSession
}

// ID is the run's id.
func (r *Run) ID() string { return r.row.RunID }

// Resumable reports a run whose stream is live and stored whole.
func (r *Run) Resumable() bool { return r != nil && r.resumable }

func (r *Run) rowCopy() *storage.Run {
	c := r.row
	return &c
}

// Record stores an event of a run that is not resumable (those store
// their stream): it is written with the run's next write — its end, or
// a batch once BatchEvents are queued. Nobody follows such a run from
// storage, so a timed batch would only add a write per run (with
// thousands of runs in flight, one more in SQLite's single writer queue).
// It returns the event's JSON as stored (nil when it is not), so the run's
// output need not encode it again.
func (r *Run) Record(e run.Event) json.RawMessage {
	if r == nil || r.resumable {
		return nil
	}
	_, data := r.queue(e)
	return data
}

// queue gives an event the next index and queues it for storage; data is
// its JSON (nil when it does not encode).
func (r *Run) queue(e run.Event) (idx int64, data json.RawMessage) {
	data, err := run.EncodeJSON(e)
	r.mu.Lock()
	defer r.mu.Unlock()
	idx = r.next
	if err != nil {
		// Not stored, and not buffered either (it does not encode there
		// for the same reason): it takes no index, or indexes would skip.
		return idx, nil
	}
	r.next++
	if r.e.st == nil {
		return idx, data
	}
	r.pending = append(r.pending, storage.Event{RunID: r.row.RunID, Seq: idx, Data: data})
	switch {
	case len(r.pending) >= r.e.cfg.BatchEvents:
		r.flushSoonLocked(0)
	case r.timer == nil && r.resumable:
		r.flushSoonLocked(r.e.cfg.BatchDelay)
	}
	return idx, data
}

// flushSoonLocked schedules a batch write; needs r.mu.
func (r *Run) flushSoonLocked(after time.Duration) {
	if r.timer != nil {
		if after > 0 {
			return
		}
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(after, func() {
		if err := r.flush(context.Background()); err != nil {
			r.fail(err)
		}
	})
}

// flush writes the queued events (after the run's first write).
func (r *Run) flush(ctx context.Context) error {
	if _, err := r.Started(ctx); err != nil {
		return nil // the run fails on Started; its events are not kept
	}
	r.writing.Lock()
	defer r.writing.Unlock()
	r.mu.Lock()
	evs := r.pending
	r.pending, r.timer = nil, nil
	r.mu.Unlock()
	if len(evs) == 0 {
		return nil
	}
	if err := r.writeStartLocked(ctx); err != nil {
		r.requeue(evs)
		return err
	}
	if err := r.e.st.SaveRun(ctx, storage.RunWrite{RunID: r.row.RunID, Owner: r.row.Owner, Events: evs}); err != nil {
		if errors.Is(err, storage.ErrConflict) && r.row.Owner != "" {
			r.lose() // taken over: nothing more of it runs here
			return nil
		}
		r.requeue(evs)
		return fmt.Errorf("%w: events of run %s: %v", ErrStorage, r.row.RunID, err)
	}
	r.e.publish(ctx, Signal{Kind: SignalEvents, RunID: r.row.RunID})
	return nil
}

// requeue puts events whose write failed back at the head of the queue:
// the next write (at the latest the run's end) stores them, so the
// stored indexes have no gap.
func (r *Run) requeue(evs []storage.Event) {
	r.mu.Lock()
	r.pending = append(evs, r.pending...)
	r.mu.Unlock()
}

// fail ends the run with a storage failure (a batch that could not be
// written): its context is cancelled with the error as cause.
func (r *Run) fail(err error) {
	r.mu.Lock()
	first := r.failed == nil
	if first {
		r.failed = err
	}
	r.mu.Unlock()
	if first {
		r.e.log.Error("run storage failed; the run is stopped", "run_id", r.row.RunID, "error", err)
		r.cancel(err)
	}
}

// Failed is the storage failure that stopped the run, if any.
func (r *Run) Failed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Emitter returns the run's emitter: for a resumable run every event
// gets its index, goes to the live stream and to storage, then to next
// (nil: none); other runs emit to next unchanged.
func (r *Run) Emitter(next run.Emitter) run.Emitter {
	if r == nil || !r.resumable {
		return next
	}
	return func(e run.Event) bool {
		run.Stamp(e)
		r.emitting.Lock()
		r.mu.Lock()
		idx, ok := r.indexed[e]
		delete(r.indexed, e)
		r.mu.Unlock()
		if !ok {
			idx, _ = r.queue(e)
		}
		if p, err := payload(e, idx, r.row.RunID); err == nil {
			r.stream.add(Event{Index: idx, Name: e.Kind(), Payload: p}, ok)
		}
		r.emitting.Unlock()
		if next == nil {
			return true
		}
		return next(e)
	}
}

// Finish is the end of a run (or of its generation: a pause).
type Finish struct {
	Status run.Status
	// Doc is the run's document (its output, without events).
	Doc json.RawMessage
	// Terminal are the events a resumable run delivers after this write
	// (RunCompleted, WorkflowPaused…): stored with it, so no follower
	// sees the run settled without them.
	Terminal []run.Event
	// Children are runs it started (team members), stored with it.
	Children []*storage.Run
	// SessionID and Session change the session in the same write.
	SessionID string
	Session   func(*storage.Session) error
}

// Finish writes the run's end in one write: its row, the events not yet
// stored, its member runs and the session change. Then the run's own
// terminal events may be delivered, and Close releases it.
func (r *Run) Finish(ctx context.Context, f Finish) error {
	err := r.finish(ctx, f)
	r.logEnd(err)
	return err
}

// logEnd writes the one line an operator reads of a run that ended: at
// ERROR when it failed or its end could not be stored, with the reason.
func (r *Run) logEnd(storeErr error) {
	level, status := slog.LevelInfo, r.row.Status
	if storeErr != nil {
		status = run.StatusError // what the caller gets
	}
	attrs := []slog.Attr{slog.String("run_id", r.row.RunID), slog.String("component", r.row.ComponentID),
		slog.String("session_id", r.row.SessionID), slog.String("status", string(status)),
		slog.Int64("duration_ms", time.Since(r.begun).Milliseconds())}
	if r.row.ParentRunID != "" {
		attrs = append(attrs, slog.String("parent_run_id", r.row.ParentRunID))
	}
	if r.row.Status == run.StatusError {
		level = slog.LevelError
		var doc struct {
			Content any `json:"content"`
		}
		if json.Unmarshal(r.row.Data, &doc) == nil {
			if reason, ok := doc.Content.(string); ok && reason != "" {
				attrs = append(attrs, slog.String("reason", reason))
			}
		}
	}
	if storeErr != nil {
		level = slog.LevelError
		attrs = append(attrs, slog.String("unsaved_status", string(r.row.Status)), slog.String("error", storeErr.Error()))
	}
	r.e.log.LogAttrs(context.Background(), level, "run ended", attrs...)
}

func (r *Run) finish(ctx context.Context, f Finish) error {
	if r.stream != nil && len(f.Terminal) > 0 {
		r.stream.expectTerminal(len(f.Terminal))
	}
	for _, e := range f.Terminal {
		idx, _ := r.queue(run.Stamp(e))
		r.mu.Lock()
		r.indexed[e] = idx
		r.mu.Unlock()
	}
	if r.e.st == nil {
		r.row.Status, r.row.Data = f.Status, f.Doc
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if _, err := r.Started(ctx); err != nil {
		r.row.Status, r.row.Data = f.Status, f.Doc // no start timer runs
		return err
	}
	r.stopStartTimer()
	r.writing.Lock()
	defer r.writing.Unlock()
	// Under writing: a start timer that already fired reads the row.
	r.row.Status, r.row.Data = f.Status, f.Doc
	r.mu.Lock()
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	evs := r.pending
	r.pending = nil
	r.mu.Unlock()
	w := storage.RunWrite{Run: r.rowCopy(), Events: evs, Children: f.Children, SessionID: f.SessionID, Session: f.Session}
	if r.deferred { // ended before its start was written: one write
		w.Create, w.StartSession, w.SessionNew = true, r.startSession, r.newSession
	}
	err := r.e.st.SaveRun(ctx, w)
	r.finished = true
	if err != nil {
		r.requeue(evs)
	} else {
		r.deferred = false
	}
	if w.Create && errors.Is(err, storage.ErrConflict) {
		return fmt.Errorf("%w: %w: %s (choose another run_id, or leave it out)", ErrStorage, run.ErrRunExists, r.row.RunID)
	}
	if errors.Is(err, storage.ErrConflict) {
		if r.row.Owner != "" {
			r.lose()
		}
		return fmt.Errorf("%w: run %s was taken over by another instance (its lease expired): %v", ErrStorage, r.row.RunID, err)
	}
	if err != nil {
		r.e.unsettle(r.row.RunID, "The run's end could not be stored: "+err.Error())
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	r.e.changed(ctx, r.rowCopy(), !r.continuation)
	return nil
}

// Save writes the run's row and queued events mid-run (a workflow's
// document as it goes); the run stays in flight.
func (r *Run) Save(ctx context.Context, doc json.RawMessage) error {
	if r.e.st == nil {
		r.row.Data = doc
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if _, err := r.Started(ctx); err != nil {
		r.row.Data = doc
		return err
	}
	r.writing.Lock()
	defer r.writing.Unlock()
	r.row.Data = doc
	if err := r.writeStartLocked(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	evs := r.pending
	r.pending = nil
	r.mu.Unlock()
	if err := r.e.st.SaveRun(ctx, storage.RunWrite{Run: r.rowCopy(), Events: evs}); err != nil {
		r.requeue(evs)
		if errors.Is(err, storage.ErrConflict) && r.row.Owner != "" {
			r.lose() // taken over: no further step of it runs here
		}
		return fmt.Errorf("%w: %v", ErrStorage, err)
	}
	return nil
}

// Close releases the run: its stream ends (with the status Finish gave),
// it no longer takes cancels, and the engine stops counting it. Close is
// idempotent.
func (r *Run) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	if r.startTimer != nil {
		r.startTimer.Stop()
		r.startTimer = nil
	}
	r.mu.Unlock()
	if r.stream != nil {
		r.stream.finish(r.gen, r.row.Status)
	}
	r.unregister()
	e := r.e
	e.mu.Lock()
	if e.live[r.row.RunID] == r {
		delete(e.live, r.row.RunID)
	}
	e.mu.Unlock()
	e.wakeFollowers(r.row.RunID)
	e.runs.Done()
}

// release gives a claimed run back as paused (the continuation was
// refused before it started) and closes it.
func (r *Run) release() {
	if r.e.st != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := r.e.st.ClaimRun(ctx, storage.Claim{RunID: r.row.RunID, From: run.StatusRunning, To: run.StatusPaused,
			ExpectOwner: r.e.cfg.Instance, Version: -1, Listed: true}); err != nil {
			r.e.log.Warn("could not give a claimed run back as paused", "run_id", r.row.RunID, "error", err)
		}
	}
	r.row.Status = run.StatusPaused
	r.Close()
}

// Release gives a claimed run back as PAUSED: its continuation was
// refused before anything ran.
func (r *Run) Release() { r.release() }
