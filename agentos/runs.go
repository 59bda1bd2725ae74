package agentos

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// kind is agents or teams: the same endpoints over a different catalog.
type kind struct {
	name    string // agent | team
	title   string // Agent | Team
	session storage.SessionType
	lookup  func(*catalog, string) run.Executor
}

var (
	agentKind = kind{name: "agent", title: "Agent", session: storage.SessionAgent, lookup: func(c *catalog, id string) run.Executor {
		if a, ok := c.agents[id]; ok {
			return a
		}
		return nil
	}}
	teamKind = kind{name: "team", title: "Team", session: storage.SessionTeam, lookup: func(c *catalog, id string) run.Executor {
		if t, ok := c.teams[id]; ok {
			return t
		}
		return nil
	}}
)

func (o *OS) executor(w http.ResponseWriter, r *http.Request, k kind) (run.Executor, bool) {
	ex := k.lookup(o.catalog(), r.PathValue(k.name+"_id"))
	if ex == nil {
		writeError(w, http.StatusNotFound, k.title+" not found")
		return nil, false
	}
	return ex, true
}

// runForm holds the common fields of a run request.
type runForm struct {
	req        *run.Request
	stream     bool
	background bool
	uploads    *form
}

// release removes the request's spooled uploads, unless a background
// run took them.
func (rf *runForm) release() {
	if rf.uploads != nil {
		rf.uploads.release()
	}
}

// takeUploads hands the spooled uploads to a run that outlives the
// request; the returned func removes them.
func (rf *runForm) takeUploads() func() {
	f := rf.uploads
	rf.uploads = nil
	if f == nil {
		return func() {}
	}
	return f.release
}

// parseRunForm reads a run request; the caller releases the result.
func (o *OS) parseRunForm(r *http.Request, w http.ResponseWriter) (_ *runForm, ok bool) {
	f, err := o.parseForm(w, r, "message", "stream", "session_id", "user_id", "files", "background", "run_id")
	if err != nil {
		fail(w, err)
		return nil, false
	}
	defer func() {
		if !ok {
			f.release()
		}
	}()
	if !f.has("message") {
		fieldError(w, []string{"body", "message"}, "Field required", "missing")
		return nil, false
	}
	stream, err := f.boolean("stream", true)
	if err != nil {
		fail(w, err)
		return nil, false
	}
	background, err := f.boolean("background", false)
	if err != nil {
		fail(w, err)
		return nil, false
	}
	req := &run.Request{Input: f.str("message"), SessionID: f.str("session_id"), UserID: f.str("user_id"), RunID: f.str("run_id"),
		Images: f.images, Files: f.files, StoreEvents: true}
	if f.has("run_id") {
		if err := checkClientID(req.RunID); err != nil {
			fieldError(w, []string{"body", "run_id"}, "run_id "+err.Error()+"; leave it out to get a new one", "value_error")
			return nil, false
		}
		if !o.runIDFree(w, r, req.RunID) {
			return nil, false
		}
		req.NewRunID = true
	}
	// agno's run endpoints default stream_events to true; a field overrides it.
	req.StreamEvents = stream
	if err := applyExtras(req, f.extras(o.log)); err != nil {
		fail(w, err)
		return nil, false
	}
	if req.SessionID == "" {
		req.SessionID, req.NewSessionID = run.NewID(), true
	} else if user := scopedUser(r.Context()); user != "" && !o.sessionOpenTo(r.Context(), req.SessionID, user) {
		writeError(w, http.StatusNotFound, "Session not found")
		return nil, false
	}
	if req.RunID == "" {
		req.RunID, req.NewRunID = run.NewID(), true
	}
	noteRunID(r.Context(), req.RunID)
	req.Stream = stream
	return &runForm{req: req, stream: stream, background: background, uploads: f}, true
}

// runIDFree answers 409 when a client-chosen run id is taken: a new run
// never replaces a stored one. (The run's own create is the final check,
// for two requests racing for one id.)
func (o *OS) runIDFree(w http.ResponseWriter, r *http.Request, runID string) bool {
	if o.cfg.Store == nil {
		return true
	}
	_, err := o.cfg.Store.GetRun(r.Context(), runID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return true
	case err != nil:
		fail(w, err)
		return false
	}
	writeError(w, http.StatusConflict, runExistsText(runID))
	return false
}

func runExistsText(runID string) string {
	return "Run " + runID + " already exists: choose another run_id, or leave it out to get a new one"
}

// runError answers a run that could not start.
func runError(w http.ResponseWriter, runID string, err error) {
	if errors.Is(err, run.ErrRunExists) || errors.Is(err, storage.ErrConflict) {
		writeError(w, http.StatusConflict, runExistsText(runID))
		return
	}
	if errors.Is(err, runs.ErrRefused) {
		writeError(w, http.StatusServiceUnavailable, refusedText(err))
		return
	}
	fail(w, err)
}

// runAccepted is agno's 202 answer to a background run.
type runAccepted struct {
	RunID     string     `json:"run_id"`
	SessionID string     `json:"session_id"`
	Status    run.Status `json:"status"`
}

// handleRun is POST /{agents|teams}/{agent_id|team_id}/runs.
func (o *OS) handleRun(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		rf, ok := o.parseRunForm(r, w)
		if !ok {
			return
		}
		defer rf.release()
		o.honorCancelIntent(r.Context(), ex.ID(), rf.req)
		if rf.background {
			if o.cfg.Store == nil {
				writeError(w, http.StatusBadRequest, "Background runs need a database: configure [storage] (the default SQLite store is used by agno agentos start)")
				return
			}
			o.startBackground(w, r, k, ex, rf)
			return
		}
		if o.draining.Load() {
			writeError(w, http.StatusServiceUnavailable, shuttingDown)
			return
		}
		ctx := r.Context()
		if !rf.stream {
			out, err := ex.Execute(ctx, rf.req, nil)
			if err != nil {
				runError(w, rf.req.RunID, err)
				return
			}
			writeOutput(w, out)
			return
		}
		sse := newSSE(w)
		if _, err := ex.Execute(ctx, rf.req, func(e run.Event) bool { return sse.send(e, -1) }); err != nil {
			sse.send(run.Stamp(&run.RunError{EventBase: run.EventBase{RunID: rf.req.RunID, SessionID: rf.req.SessionID}, Content: err.Error()}), -1)
		}
	}
}

const shuttingDown = "AgentOS is shutting down"

// refusedText answers a run the engine refused (runs.ErrRefused).
func refusedText(err error) string {
	if errors.Is(err, runs.ErrLeaseLapsed) {
		return "This AgentOS instance lost its database lease and takes no new run until it renews it: retry, another replica can take the run"
	}
	return shuttingDown
}

// startBackground runs detached from the request: 202 for non-stream, a
// resumable stream (event_index) for stream. The run survives the client
// leaving, is pollable with GET .../runs/{run_id}, and is resumed on any
// instance.
func (o *OS) startBackground(w http.ResponseWriter, r *http.Request, k kind, ex run.Executor, rf *runForm) {
	req := rf.req
	req.Prepared, req.Resumable = true, true
	o.launch(w, r, rf, storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: k.session, ComponentID: ex.ID(), UserID: req.UserID},
		map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending, "created_at": run.Now(), k.name + "_id": ex.ID()},
		func(ctx context.Context) { _, _ = ex.Execute(ctx, req, nil) })
}

// launch stores a background run PENDING (answering 409 for a taken id,
// 500 when it cannot be stored), runs exec through the engine, then
// answers 202 or follows the run's stream.
func (o *OS) launch(w http.ResponseWriter, r *http.Request, rf *runForm, row storage.Run, doc map[string]any, exec func(context.Context)) {
	data, err := marshal(doc)
	if err != nil {
		fail(w, err)
		return
	}
	row.Data, row.CreatedAt = data, run.Now()
	release := rf.takeUploads()
	err = o.eng.Launch(r.Context(), runs.Launch{Row: row, Exec: func(ctx context.Context) {
		defer release()
		exec(ctx)
	}})
	if err != nil {
		release()
		switch {
		case errors.Is(err, runs.ErrRefused):
			writeError(w, http.StatusServiceUnavailable, refusedText(err))
		case errors.Is(err, run.ErrRunExists):
			writeError(w, http.StatusConflict, runExistsText(row.RunID))
		default:
			writeError(w, http.StatusInternalServerError, "Could not store the background run: "+err.Error())
		}
		return
	}
	if !rf.stream {
		writeJSON(w, http.StatusAccepted, runAccepted{RunID: row.RunID, SessionID: row.SessionID, Status: run.StatusPending})
		return
	}
	f, err := o.eng.Follow(r.Context(), row.RunID, "", -1)
	if err != nil {
		fail(w, err)
		return
	}
	sse := newSSE(w)
	for _, ev := range f.Missed {
		if !sse.raw(ev.Name, ev.Payload) {
			return
		}
	}
	o.follow(sse, r, f)
}

// follow streams a run's events after the follow's Missed until the run
// settles or the client leaves (the run goes on).
func (o *OS) follow(sse *sseWriter, r *http.Request, f *runs.Follow) {
	for ev, err := range f.Live(r.Context(), 30*time.Second, func() bool { return sse.comment("heartbeat") }) {
		if err != nil {
			sse.json("error", map[string]any{"event": "error", "error": err.Error()})
			return
		}
		if !sse.raw(ev.Name, ev.Payload) {
			return
		}
	}
}

// knownRun reports a run of the component that this process runs or
// storage holds. Cancelling any other id is refused: an intent stored
// for it would cancel whatever run later got that id.
func (o *OS) knownRun(ctx context.Context, runID, componentID string) bool {
	if o.eng.Running(runID) {
		return true
	}
	if o.cfg.Store == nil {
		return false
	}
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	return err == nil && rec.ComponentID == componentID
}

// cancel is POST .../runs/{run_id}/cancel: {} for a known run, wherever
// it executes (its owner sees the request within a poll, at once with
// signals); {} as agno for an unknown one too, keeping the caller's
// intent when no run has the id (cancelintent.go).
func (o *OS) cancel(w http.ResponseWriter, r *http.Request, componentID string) {
	runID := r.PathValue("run_id")
	// An isolated caller must name a session it owns, and no session owns
	// a run that does not exist: that stays a 404 (agno's ownership check).
	known := o.knownRun(r.Context(), runID, componentID)
	if !known && scopedUser(r.Context()) == "" {
		unused, err := o.runIDUnused(r.Context(), runID)
		if err != nil {
			fail(w, err)
			return
		}
		if unused && checkClientID(runID) == nil {
			o.intents.add(runID, callerUser(r.Context()), componentID, time.Now())
			// Or it runs on another instance and is not stored yet
			// (runs.Config.StartDelay): its owner hears the signal.
			_, _ = o.eng.Cancel(r.Context(), runID)
		}
		writeJSON(w, http.StatusOK, struct{}{})
		return
	}
	if scopedUser(r.Context()) != "" && !o.ownRunForm(w, r, runID) {
		return
	}
	if !known {
		writeError(w, http.StatusNotFound, "Run not found")
		return
	}
	if _, err := o.eng.Cancel(r.Context(), runID); err != nil && !errors.Is(err, run.ErrNotFound) {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct{}{}) // agno answers {}
}

// handleCancel is POST .../runs/{run_id}/cancel.
func (o *OS) handleCancel(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		o.cancel(w, r, ex.ID())
	}
}

// handleContinue is POST .../runs/{run_id}/continue: agents send `tools`
// (ToolExecution dicts), teams `requirements` (RunRequirement dicts).
func (o *OS) handleContinue(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		f, err := o.parseForm(w, r, "tools", "requirements", "session_id", "user_id", "stream", "background")
		if err != nil {
			fail(w, err)
			return
		}
		defer f.release()
		creq := &run.ContinueRequest{RunID: r.PathValue("run_id"), SessionID: f.str("session_id"), UserID: f.str("user_id"), StoreEvents: true}
		if creq.SessionID == "" {
			writeError(w, http.StatusBadRequest, "session_id is required to continue a run")
			return
		}
		if !o.ownRun(w, r, creq.RunID, creq.SessionID) || !o.approvalGate(w, r, creq.RunID) {
			return
		}
		if creq.Tools, err = parseJSONList[*run.ToolExecution](f, "tools"); err != nil {
			fail(w, err)
			return
		}
		if creq.Requirements, err = parseJSONList[*run.Requirement](f, "requirements"); err != nil {
			fail(w, err)
			return
		}
		stream, err := f.boolean("stream", true)
		if err != nil {
			fail(w, err)
			return
		}
		creq.Stream, creq.StreamEvents = stream, stream
		if err := applyContinueExtras(creq, f.extras(o.log)); err != nil {
			fail(w, err)
			return
		}
		if o.draining.Load() {
			writeError(w, http.StatusServiceUnavailable, shuttingDown)
			return
		}
		ctx := r.Context()
		if !stream {
			out, err := ex.ExecuteContinue(ctx, creq, nil)
			if err != nil {
				continueError(w, creq.RunID, err)
				return
			}
			writeOutput(w, out)
			return
		}
		// Check the run can continue before committing to a stream, so
		// misuse gets a status code.
		if err := o.checkPaused(ctx, creq.RunID, ex.ID()); err != nil {
			continueError(w, creq.RunID, err)
			return
		}
		sse := newSSE(w)
		if _, err := ex.ExecuteContinue(ctx, creq, func(e run.Event) bool { return sse.send(e, -1) }); err != nil {
			sse.send(run.Stamp(&run.RunError{EventBase: run.EventBase{RunID: creq.RunID, SessionID: creq.SessionID}, Content: err.Error()}), -1)
		}
	}
}

func (o *OS) checkPaused(ctx context.Context, runID, componentID string) error {
	if o.cfg.Store == nil {
		return nil
	}
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	if err != nil || rec.ComponentID != componentID {
		return run.ErrNotFound
	}
	if rec.Status != run.StatusPaused {
		return &notPaused{status: rec.Status}
	}
	return nil
}

type notPaused struct{ status run.Status }

func (e *notPaused) Error() string { return "not paused" }
func (e *notPaused) Unwrap() error { return run.ErrNotPaused }

// continueError maps continue failures to agno's status codes.
func continueError(w http.ResponseWriter, runID string, err error) {
	var np *notPaused
	switch {
	case errors.Is(err, run.ErrNotFound):
		writeError(w, http.StatusNotFound, "Run not found")
	case errors.As(err, &np):
		writeError(w, http.StatusConflict, "Run "+runID+" is not paused: "+alreadyText(np.status))
	case errors.Is(err, run.ErrNotPaused):
		writeError(w, http.StatusConflict, "Run "+runID+" is not paused: "+err.Error())
	case errors.Is(err, run.ErrUnresolved):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, runs.ErrRefused):
		writeError(w, http.StatusServiceUnavailable, refusedText(err))
	case errors.Is(err, runs.ErrStorage):
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeError(w, http.StatusBadRequest, err.Error())
	}
}

func alreadyText(s run.Status) string {
	switch s {
	case run.StatusRunning:
		return "run is already running"
	case run.StatusCompleted:
		return "run is already continued/completed"
	case run.StatusError:
		return "run has errored"
	case run.StatusCancelled:
		return "run is already cancelled"
	case run.StatusPending:
		return "run is pending"
	}
	return "status " + string(s)
}

// ownRunForm is ownRun with the session id from the query or the form.
func (o *OS) ownRunForm(w http.ResponseWriter, r *http.Request, runID string) bool {
	sid := r.URL.Query().Get("session_id")
	if sid == "" && r.ContentLength != 0 {
		f, err := o.parseForm(w, r, "session_id")
		if err != nil {
			fail(w, err)
			return false
		}
		f.release()
		sid = f.str("session_id")
	}
	return o.ownRun(w, r, runID, sid)
}

// storedRun loads a run of a component with its events, or 404s.
func (o *OS) storedRun(w http.ResponseWriter, r *http.Request, componentID string, sessionType storage.SessionType) (map[string]any, *storage.Run, bool) {
	if !r.URL.Query().Has("session_id") { // a required query parameter in agno
		fieldError(w, []string{"query", "session_id"}, "Field required", "missing")
		return nil, nil, false
	}
	if o.cfg.Store == nil {
		writeError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	rec, err := o.cfg.Store.GetRun(r.Context(), r.PathValue("run_id"))
	sid := r.URL.Query().Get("session_id")
	if err != nil || rec.ComponentID != componentID || (sid != "" && rec.SessionID != sid) || rec.ParentRunID != "" && sessionType == "" || !shown(rec) ||
		scopedUser(r.Context()) != "" && !o.runOwnedBy(r.Context(), rec.RunID, rec.SessionID, scopedUser(r.Context())) {
		writeError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	doc := map[string]any{}
	if err := run.DecodeJSON(rec.Data, &doc); err != nil {
		fail(w, err)
		return nil, nil, false
	}
	rowStatus(doc, rec)
	readStored(doc, rec)
	if evs, err := o.cfg.Store.ListEvents(r.Context(), rec.RunID, -1); err == nil && len(evs) > 0 {
		list := make([]json.RawMessage, len(evs))
		for i, e := range evs {
			list[i] = e.Data
		}
		doc["events"] = list
	}
	return doc, rec, true
}

// handleGetRun is GET .../runs/{run_id}?session_id=.
func (o *OS) handleGetRun(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		doc, _, ok := o.storedRun(w, r, ex.ID(), k.session)
		if ok {
			writeJSON(w, http.StatusOK, doc)
		}
	}
}

// handleListRuns is GET .../runs?session_id=&status=.
func (o *OS) handleListRuns(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ex, ok := o.executor(w, r, k); ok {
			o.listRuns(w, r, ex.ID(), k.name)
		}
	}
}

// listRuns answers a run listing of one component in one session,
// optionally filtered by status: agno's RunSchema, TeamRunSchema or
// WorkflowRunSchema (kind), the same items GET /sessions/{id}/runs lists.
func (o *OS) listRuns(w http.ResponseWriter, r *http.Request, componentID, kind string) {
	sid := r.URL.Query().Get("session_id")
	if !r.URL.Query().Has("session_id") { // a required query parameter in agno
		fieldError(w, []string{"query", "session_id"}, "Field required", "missing")
		return
	}
	if o.cfg.Store == nil {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	if _, err := getSession(r.Context(), o.cfg.Store, sid, "", scopedUser(r.Context())); err != nil {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	q := storage.RunQuery{SessionID: sid, ComponentID: componentID, Settled: true}
	if s := r.URL.Query().Get("status"); s != "" {
		q.Status = []run.Status{run.Status(strings.ToUpper(s))}
	}
	recs, err := o.cfg.Store.ListRuns(r.Context(), q)
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		events, err := runEvents(r.Context(), o.cfg.Store, rec.RunID)
		if err != nil {
			fail(w, err)
			return
		}
		out = append(out, withoutNone(runSchema(rec, decodeRun(rec), events, kind)))
	}
	writeJSON(w, http.StatusOK, out)
}

// handleResume is POST .../runs/{run_id}/resume: a background run's
// stream from last_event_index — catch_up and live events while it runs,
// replay once finished, or the stored events.
func (o *OS) handleResume(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ex, ok := o.executor(w, r, k); ok {
			o.resume(w, r, ex.ID())
		}
	}
}

// resume answers a resume request of a run of componentID, on whichever
// instance it arrives: last_event_index from the form, else the SSE
// Last-Event-ID header (a reconnecting EventSource).
func (o *OS) resume(w http.ResponseWriter, r *http.Request, componentID string) {
	if !o.mayRun(w, r, componentID) {
		return
	}
	form, err := o.parseForm(w, r, "last_event_index", "session_id")
	if err != nil {
		fail(w, err)
		return
	}
	form.release()
	if !o.ownRun(w, r, r.PathValue("run_id"), cmp.Or(form.str("session_id"), r.URL.Query().Get("session_id"))) {
		return
	}
	last := -1
	s := form.str("last_event_index")
	if s == "" {
		s = r.Header.Get("Last-Event-ID")
	}
	if s != "" {
		if last, err = strconv.Atoi(strings.TrimSpace(s)); err != nil {
			writeError(w, http.StatusBadRequest, "last_event_index must be an integer")
			return
		}
	}
	runID := r.PathValue("run_id")
	f, err := o.eng.Follow(r.Context(), runID, componentID, int64(last))
	sse := newSSE(w)
	if err != nil {
		sse.json("error", map[string]any{"event": "error", "error": "Run " + runID + " not found in buffer or database"})
		return
	}
	switch {
	case f.Settled && f.Local:
		sse.json("replay", map[string]any{"event": "replay", "run_id": runID, "status": f.Status, "total_events": f.Total, "total_buffered": f.Total,
			"last_event_index_requested": last, "message": "Run completed. Replaying missed events."})
	case f.Settled:
		sse.json("replay", map[string]any{"event": "replay", "run_id": runID, "status": f.Status, "total_events": len(f.Missed),
			"message": "Run completed. Replaying all events from database."})
	default:
		sse.json("catch_up", map[string]any{"event": "catch_up", "run_id": runID, "status": "running", "missed_events": len(f.Missed),
			"current_event_count": f.Total, "message": "Catching up on missed events."})
	}
	for _, ev := range f.Missed {
		if !sse.raw(ev.Name, ev.Payload) {
			return
		}
	}
	o.follow(sse, r, f)
}

// writeOutput answers a run's output: the document its end stored, with
// its events, rather than the run encoded again.
func writeOutput(w http.ResponseWriter, out *run.Output) {
	b, err := out.Encode()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// maxIDLength bounds client-chosen ids.
const maxIDLength = 128

// checkClientID reports whether s can be a client-chosen id (run_id): 1 to 128
// letters, digits and - _ . : (a UUID fits).
func checkClientID(s string) error {
	if s == "" || len(s) > maxIDLength {
		return fmt.Errorf("must be 1 to %d characters long, got %d", maxIDLength, len(s))
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return fmt.Errorf("may hold only letters, digits and - _ . : (found %q)", c)
		}
	}
	return nil
}
