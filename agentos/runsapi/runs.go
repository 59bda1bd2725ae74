package runsapi

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

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
)

// kind is agents or teams: the same endpoints over a different catalog.
type kind struct {
	name    string // agent | team
	title   string // Agent | Team
	session storage.SessionType
}

var (
	agentKind = kind{name: "agent", title: "Agent", session: storage.SessionAgent}
	teamKind  = kind{name: "team", title: "Team", session: storage.SessionTeam}
)

func (g *Group) executor(w http.ResponseWriter, r *http.Request, k kind) (run.Executor, bool) {
	ex := g.host.Executor(k.name, r.PathValue(k.name+"_id"))
	if ex == nil {
		httpapi.WriteError(w, http.StatusNotFound, k.title+" not found")
		return nil, false
	}
	return ex, true
}

// runForm holds the common fields of a run request.
type runForm struct {
	req        *run.Request
	stream     bool
	background bool
	uploads    Form
}

// release removes the request's spooled uploads, unless a background
// run took them.
func (rf *runForm) release() {
	if rf.uploads != nil {
		rf.uploads.Release()
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
	return f.Release
}

// parseRunForm reads a run request; the caller releases the result.
func (g *Group) parseRunForm(r *http.Request, w http.ResponseWriter) (_ *runForm, ok bool) {
	f, err := g.host.ParseForm(w, r, "message", "stream", "session_id", "user_id", "files", "background", "run_id")
	if err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	defer func() {
		if !ok {
			f.Release()
		}
	}()
	if !f.Has("message") {
		httpapi.FieldError(w, []string{"body", "message"}, "Field required", "missing")
		return nil, false
	}
	stream, err := f.Bool("stream", true)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	background, err := f.Bool("background", false)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	req := &run.Request{Input: f.Str("message"), SessionID: f.Str("session_id"), UserID: f.Str("user_id"), RunID: f.Str("run_id"),
		Images: f.Images(), Files: f.Files(), StoreEvents: true}
	if f.Has("run_id") {
		if err := checkClientID(req.RunID); err != nil {
			httpapi.FieldError(w, []string{"body", "run_id"}, "run_id "+err.Error()+"; leave it out to get a new one", "value_error")
			return nil, false
		}
		if !g.runIDFree(w, r, req.RunID) {
			return nil, false
		}
		req.NewRunID = true
	}
	// agno's run endpoints default stream_events to true; a field overrides it.
	req.StreamEvents = stream
	if err := applyExtras(req, extras(f, g.host.Logger())); err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	if req.SessionID == "" {
		req.SessionID, req.NewSessionID = run.NewID(), true
	} else if user := httpapi.ScopedUser(r.Context()); user != "" && !g.host.SessionOpenTo(r.Context(), req.SessionID, user) {
		httpapi.WriteError(w, http.StatusNotFound, "Session not found")
		return nil, false
	}
	if req.RunID == "" {
		req.RunID, req.NewRunID = run.NewID(), true
	}
	g.host.NoteRunID(r.Context(), req.RunID)
	req.Stream = stream
	return &runForm{req: req, stream: stream, background: background, uploads: f}, true
}

// runIDFree answers 409 when a client-chosen run id is taken: a new run
// never replaces a stored one. (The run's own create is the final check,
// for two requests racing for one id.)
func (g *Group) runIDFree(w http.ResponseWriter, r *http.Request, runID string) bool {
	if g.host.Store() == nil {
		return true
	}
	_, err := g.host.Store().GetRun(r.Context(), runID)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return true
	case err != nil:
		httpapi.Fail(w, err)
		return false
	}
	httpapi.WriteError(w, http.StatusConflict, httpapi.RunExistsText(runID))
	return false
}

// runAccepted is agno's 202 answer to a background run.
type runAccepted struct {
	RunID     string     `json:"run_id"`
	SessionID string     `json:"session_id"`
	Status    run.Status `json:"status"`
}

// handleRun is POST /{agents|teams}/{agent_id|team_id}/runs.
func (g *Group) handleRun(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := g.executor(w, r, k)
		if !ok {
			return
		}
		rf, ok := g.parseRunForm(r, w)
		if !ok {
			return
		}
		defer rf.release()
		g.honorCancelIntent(r.Context(), ex.ID(), rf.req)
		if rf.background {
			if g.host.Store() == nil {
				httpapi.WriteError(w, http.StatusBadRequest, "Background runs need a database: configure [storage] (the default SQLite store is used by agno agentos start)")
				return
			}
			g.startBackground(w, r, k, ex, rf)
			return
		}
		if g.host.Draining() {
			httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.ShuttingDown)
			return
		}
		ctx := r.Context()
		if !rf.stream {
			out, err := ex.Execute(ctx, rf.req, nil)
			if err != nil {
				httpapi.RunError(w, rf.req.RunID, err)
				return
			}
			writeOutput(w, out)
			return
		}
		sse := g.host.SSE(w)
		if _, err := ex.Execute(ctx, rf.req, sse.Event); err != nil {
			sse.Event(run.Stamp(&run.RunError{EventBase: run.EventBase{RunID: rf.req.RunID, SessionID: rf.req.SessionID}, Content: err.Error()}))
		}
	}
}

// startBackground runs detached from the request: 202 for non-stream, a
// resumable stream (event_index) for stream. The run survives the client
// leaving, is pollable with GET .../runs/{run_id}, and is resumed on any
// instance.
func (g *Group) startBackground(w http.ResponseWriter, r *http.Request, k kind, ex run.Executor, rf *runForm) {
	req := rf.req
	req.Prepared, req.Resumable = true, true
	g.launch(w, r, rf, storage.Run{RunID: req.RunID, SessionID: req.SessionID, SessionType: k.session, ComponentID: ex.ID(), UserID: req.UserID},
		map[string]any{"run_id": req.RunID, "session_id": req.SessionID, "status": run.StatusPending, "created_at": run.Now(), k.name + "_id": ex.ID()},
		func(ctx context.Context) { _, _ = ex.Execute(ctx, req, nil) })
}

// launch stores a background run PENDING (answering 409 for a taken id,
// 500 when it cannot be stored), runs exec through the engine, then
// answers 202 or follows the run's stream.
func (g *Group) launch(w http.ResponseWriter, r *http.Request, rf *runForm, row storage.Run, doc map[string]any, exec func(context.Context)) {
	data, err := httpapi.Marshal(doc)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	row.Data, row.CreatedAt = data, run.Now()
	release := rf.takeUploads()
	err = g.host.Launch(r.Context(), runs.Launch{Row: row, Exec: func(ctx context.Context) {
		defer release()
		exec(ctx)
	}})
	if err != nil {
		release()
		switch {
		case errors.Is(err, runs.ErrRefused):
			httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.RefusedText(err))
		case errors.Is(err, run.ErrRunExists):
			httpapi.WriteError(w, http.StatusConflict, httpapi.RunExistsText(row.RunID))
		default:
			httpapi.WriteError(w, http.StatusInternalServerError, "Could not store the background run: "+err.Error())
		}
		return
	}
	if !rf.stream {
		httpapi.WriteJSON(w, http.StatusAccepted, runAccepted{RunID: row.RunID, SessionID: row.SessionID, Status: run.StatusPending})
		return
	}
	f, err := g.host.Follow(r.Context(), row.RunID, "", -1)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	sse := g.host.SSE(w)
	for _, ev := range f.Missed {
		if !sse.Raw(ev.Name, ev.Payload) {
			return
		}
	}
	g.follow(sse, r, f)
}

// follow streams a run's events after the follow's Missed until the run
// settles or the client leaves (the run goes on).
func (g *Group) follow(sse Stream, r *http.Request, f *runs.Follow) {
	for ev, err := range f.Live(r.Context(), 30*time.Second, func() bool { return sse.Comment("heartbeat") }) {
		if err != nil {
			sse.JSON("error", map[string]any{"event": "error", "error": err.Error()})
			return
		}
		if !sse.Raw(ev.Name, ev.Payload) {
			return
		}
	}
}

// cancel is POST .../runs/{run_id}/cancel: {} for a known run, wherever
// it executes (its owner sees the request within a poll, at once with
// signals); {} as agno for an unknown one too, keeping the caller's
// intent when no run has the id (cancelintent.go).
func (g *Group) cancel(w http.ResponseWriter, r *http.Request, componentID string) {
	runID := r.PathValue("run_id")
	// An isolated caller must name a session it owns, and no session owns
	// a run that does not exist: that stays a 404 (agno's ownership check).
	known := g.host.KnownRun(r.Context(), runID, componentID)
	if !known && httpapi.ScopedUser(r.Context()) == "" {
		unused, err := g.runIDUnused(r.Context(), runID)
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		if unused && checkClientID(runID) == nil {
			g.intents.add(runID, httpapi.CallerUser(r.Context()), componentID, time.Now())
			// Or it runs on another instance and is not stored yet
			// (runs.Config.StartDelay): its owner hears the signal.
			_, _ = g.host.Cancel(r.Context(), runID)
		}
		httpapi.WriteJSON(w, http.StatusOK, struct{}{})
		return
	}
	if httpapi.ScopedUser(r.Context()) != "" && !g.ownRunForm(w, r, runID) {
		return
	}
	if !known {
		httpapi.WriteError(w, http.StatusNotFound, "Run not found")
		return
	}
	if _, err := g.host.Cancel(r.Context(), runID); err != nil && !errors.Is(err, run.ErrNotFound) {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, struct{}{}) // agno answers {}
}

// handleCancel is POST .../runs/{run_id}/cancel.
func (g *Group) handleCancel(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := g.executor(w, r, k)
		if !ok {
			return
		}
		g.cancel(w, r, ex.ID())
	}
}

// handleContinue is POST .../runs/{run_id}/continue: agents send `tools`
// (ToolExecution dicts), teams `requirements` (RunRequirement dicts).
func (g *Group) handleContinue(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := g.executor(w, r, k)
		if !ok {
			return
		}
		f, err := g.host.ParseForm(w, r, "tools", "requirements", "session_id", "user_id", "stream", "background")
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		defer f.Release()
		creq := &run.ContinueRequest{RunID: r.PathValue("run_id"), SessionID: f.Str("session_id"), UserID: f.Str("user_id"), StoreEvents: true}
		if creq.SessionID == "" {
			httpapi.WriteError(w, http.StatusBadRequest, "session_id is required to continue a run")
			return
		}
		if !g.host.OwnRun(w, r, creq.RunID, creq.SessionID) || !g.host.ApprovalGate(w, r, creq.RunID) {
			return
		}
		if creq.Tools, err = parseJSONList[*run.ToolExecution](f, "tools"); err != nil {
			httpapi.Fail(w, err)
			return
		}
		if creq.Requirements, err = parseJSONList[*run.Requirement](f, "requirements"); err != nil {
			httpapi.Fail(w, err)
			return
		}
		stream, err := f.Bool("stream", true)
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		creq.Stream, creq.StreamEvents = stream, stream
		if err := applyContinueExtras(creq, extras(f, g.host.Logger())); err != nil {
			httpapi.Fail(w, err)
			return
		}
		if g.host.Draining() {
			httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.ShuttingDown)
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
		if err := g.checkPaused(ctx, creq.RunID, ex.ID()); err != nil {
			continueError(w, creq.RunID, err)
			return
		}
		sse := g.host.SSE(w)
		if _, err := ex.ExecuteContinue(ctx, creq, sse.Event); err != nil {
			sse.Event(run.Stamp(&run.RunError{EventBase: run.EventBase{RunID: creq.RunID, SessionID: creq.SessionID}, Content: err.Error()}))
		}
	}
}

func (g *Group) checkPaused(ctx context.Context, runID, componentID string) error {
	if g.host.Store() == nil {
		return nil
	}
	rec, err := g.host.Store().GetRun(ctx, runID)
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
		httpapi.WriteError(w, http.StatusNotFound, "Run not found")
	case errors.As(err, &np):
		httpapi.WriteError(w, http.StatusConflict, "Run "+runID+" is not paused: "+alreadyText(np.status))
	case errors.Is(err, run.ErrNotPaused):
		httpapi.WriteError(w, http.StatusConflict, "Run "+runID+" is not paused: "+err.Error())
	case errors.Is(err, run.ErrUnresolved):
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, runs.ErrRefused):
		httpapi.WriteError(w, http.StatusServiceUnavailable, httpapi.RefusedText(err))
	case errors.Is(err, runs.ErrStorage):
		httpapi.WriteError(w, http.StatusInternalServerError, err.Error())
	default:
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
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
func (g *Group) ownRunForm(w http.ResponseWriter, r *http.Request, runID string) bool {
	sid := r.URL.Query().Get("session_id")
	if sid == "" && r.ContentLength != 0 {
		f, err := g.host.ParseForm(w, r, "session_id")
		if err != nil {
			httpapi.Fail(w, err)
			return false
		}
		f.Release()
		sid = f.Str("session_id")
	}
	return g.host.OwnRun(w, r, runID, sid)
}

// storedRun loads a run of a component with its events, or 404s.
func (g *Group) storedRun(w http.ResponseWriter, r *http.Request, componentID string, sessionType storage.SessionType) (map[string]any, *storage.Run, bool) {
	if !r.URL.Query().Has("session_id") { // a required query parameter in agno
		httpapi.FieldError(w, []string{"query", "session_id"}, "Field required", "missing")
		return nil, nil, false
	}
	if g.host.Store() == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	rec, err := g.host.Store().GetRun(r.Context(), r.PathValue("run_id"))
	sid := r.URL.Query().Get("session_id")
	if err != nil || rec.ComponentID != componentID || (sid != "" && rec.SessionID != sid) || rec.ParentRunID != "" && sessionType == "" || !httpapi.Shown(rec) ||
		httpapi.ScopedUser(r.Context()) != "" && !g.host.RunOwnedBy(r.Context(), rec.RunID, rec.SessionID, httpapi.ScopedUser(r.Context())) {
		httpapi.WriteError(w, http.StatusNotFound, "Run not found")
		return nil, nil, false
	}
	doc := map[string]any{}
	if err := run.DecodeJSON(rec.Data, &doc); err != nil {
		httpapi.Fail(w, err)
		return nil, nil, false
	}
	httpapi.RowStatus(doc, rec)
	httpapi.ReadStored(doc, rec)
	if evs, err := g.host.Store().ListEvents(r.Context(), rec.RunID, -1); err == nil && len(evs) > 0 {
		list := make([]json.RawMessage, len(evs))
		for i, e := range evs {
			list[i] = e.Data
		}
		doc["events"] = list
	}
	return doc, rec, true
}

// handleGetRun is GET .../runs/{run_id}?session_id=.
func (g *Group) handleGetRun(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ex, ok := g.executor(w, r, k)
		if !ok {
			return
		}
		doc, _, ok := g.storedRun(w, r, ex.ID(), k.session)
		if ok {
			httpapi.WriteJSON(w, http.StatusOK, doc)
		}
	}
}

// handleListRuns is GET .../runs?session_id=&status=.
func (g *Group) handleListRuns(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ex, ok := g.executor(w, r, k); ok {
			g.listRuns(w, r, ex.ID(), k.name)
		}
	}
}

// listRuns answers a run listing of one component in one session,
// optionally filtered by status: agno's RunSchema, TeamRunSchema or
// WorkflowRunSchema (kind), the same items GET /sessions/{id}/runs lists.
func (g *Group) listRuns(w http.ResponseWriter, r *http.Request, componentID, kind string) {
	sid := r.URL.Query().Get("session_id")
	if !r.URL.Query().Has("session_id") { // a required query parameter in agno
		httpapi.FieldError(w, []string{"query", "session_id"}, "Field required", "missing")
		return
	}
	if g.host.Store() == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Session not found")
		return
	}
	if _, err := httpapi.GetSession(r.Context(), g.host.Store(), sid, "", httpapi.ScopedUser(r.Context())); err != nil {
		httpapi.WriteError(w, http.StatusNotFound, "Session not found")
		return
	}
	q := storage.RunQuery{SessionID: sid, ComponentID: componentID, Settled: true}
	if s := r.URL.Query().Get("status"); s != "" {
		q.Status = []run.Status{run.Status(strings.ToUpper(s))}
	}
	recs, err := g.host.Store().ListRuns(r.Context(), q)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	out := make([]map[string]any, 0, len(recs))
	for _, rec := range recs {
		events, err := httpapi.RunEvents(r.Context(), g.host.Store(), rec.RunID)
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		out = append(out, httpapi.WithoutNone(httpapi.RunSchema(rec, httpapi.DecodeRun(rec), events, kind)))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

// handleResume is POST .../runs/{run_id}/resume: a background run's
// stream from last_event_index — catch_up and live events while it runs,
// replay once finished, or the stored events.
func (g *Group) handleResume(k kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ex, ok := g.executor(w, r, k); ok {
			g.resume(w, r, ex.ID())
		}
	}
}

// resume answers a resume request of a run of componentID, on whichever
// instance it arrives: last_event_index from the form, else the SSE
// Last-Event-ID header (a reconnecting EventSource).
func (g *Group) resume(w http.ResponseWriter, r *http.Request, componentID string) {
	if !g.host.MayRun(w, r, componentID) {
		return
	}
	form, err := g.host.ParseForm(w, r, "last_event_index", "session_id")
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	form.Release()
	if !g.host.OwnRun(w, r, r.PathValue("run_id"), cmp.Or(form.Str("session_id"), r.URL.Query().Get("session_id"))) {
		return
	}
	last := -1
	s := form.Str("last_event_index")
	if s == "" {
		s = r.Header.Get("Last-Event-ID")
	}
	if s != "" {
		if last, err = strconv.Atoi(strings.TrimSpace(s)); err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "last_event_index must be an integer")
			return
		}
	}
	runID := r.PathValue("run_id")
	f, err := g.host.Follow(r.Context(), runID, componentID, int64(last))
	sse := g.host.SSE(w)
	if err != nil {
		sse.JSON("error", map[string]any{"event": "error", "error": "Run " + runID + " not found in buffer or database"})
		return
	}
	switch {
	case f.Settled && f.Local:
		sse.JSON("replay", map[string]any{"event": "replay", "run_id": runID, "status": f.Status, "total_events": f.Total, "total_buffered": f.Total,
			"last_event_index_requested": last, "message": "Run completed. Replaying missed events."})
	case f.Settled:
		sse.JSON("replay", map[string]any{"event": "replay", "run_id": runID, "status": f.Status, "total_events": len(f.Missed),
			"message": "Run completed. Replaying all events from database."})
	default:
		sse.JSON("catch_up", map[string]any{"event": "catch_up", "run_id": runID, "status": "running", "missed_events": len(f.Missed),
			"current_event_count": f.Total, "message": "Catching up on missed events."})
	}
	for _, ev := range f.Missed {
		if !sse.Raw(ev.Name, ev.Payload) {
			return
		}
	}
	g.follow(sse, r, f)
}

// writeOutput answers a run's output: the document its end stored, with
// its events, rather than the run encoded again.
func writeOutput(w http.ResponseWriter, out *run.Output) {
	b, err := out.Encode()
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, err.Error())
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
