package agentos

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/run"
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
	ex := k.lookup(o.catalog(), r.PathValue("id"))
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
		if err := run.CheckID(req.RunID); err != nil {
			fieldError(w, []string{"body", "run_id"}, "run_id "+err.Error()+"; leave it out to get a new one", "value_error")
			return nil, false
		}
		if !o.runIDFree(w, r, req.RunID) {
			return nil, false
		}
	}
	// agno's run endpoints default stream_events to true; a field overrides it.
	req.StreamEvents = stream
	if err := applyExtras(req, f.extras(o.log)); err != nil {
		fail(w, err)
		return nil, false
	}
	if req.SessionID == "" {
		req.SessionID = run.NewID()
	}
	if req.RunID == "" {
		req.RunID = run.NewID()
	}
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
	fail(w, err)
}

// prepareBackground stores a background run's row PENDING before the
// run is acknowledged, so a client polling at once finds it.
func (o *OS) prepareBackground(w http.ResponseWriter, r *http.Request, rec *storage.Run, doc map[string]any) bool {
	data, err := marshal(doc)
	if err != nil {
		fail(w, err)
		return false
	}
	rec.Status, rec.CreatedAt, rec.Data = run.StatusPending, run.Now(), data
	if err := o.cfg.Store.CreateRun(r.Context(), rec); err != nil {
		if !errors.Is(err, storage.ErrConflict) {
			err = errStatus(http.StatusInternalServerError, "Could not store the background run: %v", err)
		}
		runError(w, rec.RunID, err)
		return false
	}
	return true
}

// handleRun is POST /{agents|teams}/{id}/runs.
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
		if rf.background {
			if o.cfg.Store == nil {
				writeError(w, http.StatusBadRequest, "Background runs need a database: configure [storage] (the default SQLite store is used by agno agentos start)")
				return
			}
			o.startBackground(w, r, k, ex, rf)
			return
		}
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		done, ok := o.track(rf.req.RunID, k.name, cancel)
		if !ok {
			writeError(w, http.StatusServiceUnavailable, "AgentOS is shutting down")
			return
		}
		defer done()
		if !rf.stream {
			out, err := ex.Execute(ctx, rf.req, nil)
			if err != nil {
				runError(w, rf.req.RunID, err)
				return
			}
			writeJSON(w, http.StatusOK, out)
			return
		}
		sse := newSSE(w)
		if _, err := ex.Execute(ctx, rf.req, func(e run.Event) bool { return sse.send(e, -1) }); err != nil {
			sse.send(run.Stamp(&run.RunError{EventBase: run.EventBase{RunID: rf.req.RunID, SessionID: rf.req.SessionID}, Content: err.Error()}), -1)
		}
	}
}

// startBackground runs detached from the request: 202 for non-stream, a
// resumable stream (event_index) for stream. The run survives the client
// leaving and is pollable with GET .../runs/{run_id}.
func (o *OS) startBackground(w http.ResponseWriter, r *http.Request, k kind, ex run.Executor, rf *runForm) {
	req := rf.req
	if !o.prepareBackground(w, r, &storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: k.session, ComponentID: ex.ID(), UserID: req.UserID},
		map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending, "created_at": run.Now(), k.name + "_id": ex.ID()}) {
		return
	}
	req.Prepared = true
	release := rf.takeUploads()
	buf, ok := o.launch(r.Context(), req.RunID, k.name, func(ctx context.Context, emit run.Emitter) run.Status {
		defer release()
		out, err := ex.Execute(ctx, req, emit)
		if err == nil && out != nil {
			return out.Status
		}
		return run.StatusError
	})
	if !ok {
		release()
		writeError(w, http.StatusServiceUnavailable, "AgentOS is shutting down")
		return
	}
	if !rf.stream {
		writeJSON(w, http.StatusAccepted, map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending})
		return
	}
	o.streamBuffer(w, r, buf, -1)
}

// streamBuffer streams a background run's events from after index last
// until the run ends or the client leaves (the run goes on).
func (o *OS) streamBuffer(w http.ResponseWriter, r *http.Request, buf *runBuffer, last int) {
	o.streamBufferOn(newSSE(w), r, buf, last)
}

// knownRun reports a run of the component that this process runs or
// storage holds. Cancelling any other id is refused: an intent stored
// for it would cancel whatever run later got that id.
func (o *OS) knownRun(ctx context.Context, runID, kind, componentID string) bool {
	o.mu.Lock()
	a, active := o.active[runID]
	o.mu.Unlock()
	if active && a.kind == kind {
		return true
	}
	if o.cfg.Store == nil {
		return false
	}
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	return err == nil && rec.ComponentID == componentID
}

// handleCancel is POST .../runs/{run_id}/cancel: {} for a known run (the
// intent is recorded when it has not started yet), 404 for an unknown
// one.
func (o *OS) handleCancel(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		runID := r.PathValue("run_id")
		if !o.knownRun(r.Context(), runID, k.name, ex.ID()) {
			writeError(w, http.StatusNotFound, "Run not found")
			return
		}
		if c, ok := ex.(interface {
			Cancel(context.Context, string) (bool, error)
		}); ok {
			if _, err := c.Cancel(r.Context(), runID); err != nil {
				fail(w, err)
				return
			}
		}
		o.mu.Lock()
		if a, ok := o.active[runID]; ok && a.kind == k.name {
			a.cancel(run.ErrCancelled)
		}
		o.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{})
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
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		done, ok := o.track(creq.RunID, k.name, cancel)
		if !ok {
			writeError(w, http.StatusServiceUnavailable, "AgentOS is shutting down")
			return
		}
		defer done()
		if !stream {
			out, err := ex.ExecuteContinue(ctx, creq, nil)
			if err != nil {
				continueError(w, creq.RunID, err)
				return
			}
			writeJSON(w, http.StatusOK, out)
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

// storedRun loads a run of a component with its events, or 404s.
func (o *OS) storedRun(w http.ResponseWriter, r *http.Request, componentID string, sessionType storage.SessionType) (map[string]any, *storage.Run, bool) {
	if o.cfg.Store == nil {
		writeError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	rec, err := o.cfg.Store.GetRun(r.Context(), r.PathValue("run_id"))
	sid := r.URL.Query().Get("session_id")
	if err != nil || rec.ComponentID != componentID || (sid != "" && rec.SessionID != sid) || rec.ParentRunID != "" && sessionType == "" {
		writeError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	doc := map[string]any{}
	if err := run.DecodeJSON(rec.Data, &doc); err != nil {
		fail(w, err)
		return nil, nil, false
	}
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
			o.listRuns(w, r, ex.ID(), func(rec *storage.Run) map[string]any { return runSchema(rec, k.name) })
		}
	}
}

// listRuns answers a run listing of one component in one session,
// optionally filtered by status.
func (o *OS) listRuns(w http.ResponseWriter, r *http.Request, componentID string, schema func(*storage.Run) map[string]any) {
	sid := r.URL.Query().Get("session_id")
	if !r.URL.Query().Has("session_id") { // a required query parameter in agno
		fieldError(w, []string{"query", "session_id"}, "Field required", "missing")
		return
	}
	if o.cfg.Store == nil {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	if _, err := o.cfg.Store.GetSession(r.Context(), sid); err != nil {
		writeError(w, http.StatusNotFound, "Session not found")
		return
	}
	q := storage.RunQuery{SessionID: sid, ComponentID: componentID}
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
		out = append(out, schema(rec))
	}
	writeJSON(w, http.StatusOK, out)
}

// runSchema is agno's RunSchema / TeamRunSchema of a stored run.
func runSchema(rec *storage.Run, kind string) map[string]any {
	doc := map[string]any{}
	_ = run.DecodeJSON(rec.Data, &doc)
	s := map[string]any{"run_id": rec.RunID, "status": rec.Status, "created_at": rec.CreatedAt}
	if rec.ParentRunID != "" {
		s["parent_run_id"] = rec.ParentRunID
	}
	if rec.UserID != "" {
		s["user_id"] = rec.UserID
	}
	s[kind+"_id"] = rec.ComponentID
	if in, ok := doc["input"].(map[string]any); ok {
		if c, ok := in["input_content"]; ok {
			s["run_input"] = c
		}
	}
	format := "text"
	if ct, _ := doc["content_type"].(string); ct != "" && ct != "str" {
		format = "json"
	}
	s["run_response_format"] = format
	for _, f := range []string{"content", "reasoning_content", "metrics", "messages", "tools", "session_state", "images", "references"} {
		if v, ok := doc[f]; ok {
			s[f] = v
		}
	}
	return s
}

// handleResume is POST .../runs/{run_id}/resume: a background run's
// stream from last_event_index — catch_up and live events while it runs,
// replay once finished, or the stored events.
func (o *OS) handleResume(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := o.executor(w, r, k)
		if !ok {
			return
		}
		f, err := o.parseForm(w, r, "last_event_index", "session_id")
		if err != nil {
			fail(w, err)
			return
		}
		last := -1
		if s := f.str("last_event_index"); s != "" {
			if last, err = strconv.Atoi(s); err != nil {
				writeError(w, http.StatusBadRequest, "last_event_index must be an integer")
				return
			}
		}
		o.resume(w, r, r.PathValue("run_id"), ex.ID(), last)
	}
}

func (o *OS) resume(w http.ResponseWriter, r *http.Request, runID, componentID string, last int) {
	if buf := o.buffers.get(runID); buf != nil {
		evs, next, done, status, _ := buf.since(last)
		sse := newSSE(w)
		total := next + 1 // of the same snapshot as evs
		if done {
			sse.json("replay", map[string]any{"event": "replay", "run_id": runID, "status": status, "total_events": total, "total_buffered": total,
				"last_event_index_requested": last, "message": "Run completed. Replaying missed events."})
			for _, e := range evs {
				sse.raw(e.name, e.payload)
			}
			return
		}
		sse.json("catch_up", map[string]any{"event": "catch_up", "run_id": runID, "status": "running", "missed_events": len(evs),
			"current_event_count": total, "message": "Catching up on missed events."})
		o.streamBufferOn(sse, r, buf, last)
		return
	}
	sse := newSSE(w)
	var evs []storage.Event
	var rec *storage.Run
	var err error
	if o.cfg.Store != nil {
		rec, err = o.cfg.Store.GetRun(r.Context(), runID)
		if err == nil && rec.ComponentID == componentID {
			evs, err = o.cfg.Store.ListEvents(r.Context(), runID, int64(last))
		}
	}
	if o.cfg.Store == nil || err != nil || rec == nil || rec.ComponentID != componentID {
		sse.json("error", map[string]any{"event": "error", "error": "Run " + runID + " not found in buffer or database"})
		return
	}
	sse.json("replay", map[string]any{"event": "replay", "run_id": runID, "status": rec.Status, "total_events": len(evs),
		"message": "Run completed. Replaying all events from database."})
	for _, e := range evs {
		doc := map[string]any{}
		if run.DecodeJSON(e.Data, &doc) != nil {
			continue
		}
		doc["event_index"] = e.Seq
		name, _ := doc["event"].(string)
		sse.json(name, doc)
	}
}

// streamBufferOn continues an open SSE stream from a buffer.
func (o *OS) streamBufferOn(sse *sseWriter, r *http.Request, buf *runBuffer, last int) {
	heartbeat := time.NewTicker(30 * time.Second)
	defer heartbeat.Stop()
	gen := buf.generation()
	for {
		evs, next, done, wait := buf.sinceIn(gen, last)
		for _, e := range evs {
			if !sse.raw(e.name, e.payload) {
				return
			}
		}
		last = next
		if done {
			return
		}
		select {
		case <-wait:
		case <-heartbeat.C:
			if !sse.comment("heartbeat") {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
