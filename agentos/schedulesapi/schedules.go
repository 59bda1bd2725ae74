// Package schedulesapi is the Schedules route group of AgentOS: agno's
// /schedules routes over package schedule (the schedules and their runs,
// kept in the OS's DB) and, with the scheduler on, the poller that fires
// them as requests to the OS, each for the principal that made it. It
// builds on the core (agentos/internal/httpapi) and on Host, what it
// needs of the OS; agentos serves its rows.
package schedulesapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage/sqldb"
)

// Config configures the cron poller (agno's scheduler=True).
// The schedule routes work with a DB either way; the poller fires due
// schedules and serves POST /schedules/{id}/trigger.
type Config struct {
	Enabled bool
	// PollInterval is how often due schedules are claimed (default 15s,
	// agno's scheduler_poll_interval).
	PollInterval time.Duration
}

// Host is what the group needs of the OS. A schedule acts with at most
// the rights of the caller that made it: the group checks them through
// Host as the OS checks a request's.
type Host interface {
	// DB holds the schedules and their runs.
	DB() *sqldb.DB
	Logger() *slog.Logger
	// Instance names this process in the poller's leases.
	Instance() string
	// CallerFor is the caller an object acting for p is, under today's
	// admin scope and isolation; nil outside JWT mode.
	CallerFor(p httpapi.Principal) *httpapi.Caller
	// May reports whether c's scopes grant required on the resource
	// typ/id; true outside JWT mode.
	May(c *httpapi.Caller, required []string, typ, id string) bool
	// SessionOpenTo reports whether user may add runs to the session
	// sessionID: it is the user's, or does not exist yet.
	SessionOpenTo(ctx context.Context, sessionID, user string) bool
	// ServeInternal makes one in-process request to the OS for p,
	// admitted as p's own request would be.
	ServeInternal(ctx context.Context, p httpapi.Principal, method, target, contentType string, body io.Reader) (int, []byte, error)
	// StoredRun is the stored document of a run of componentID in
	// sessionID, as GET .../runs/{run_id} answers it; nil while it is
	// not stored yet.
	StoredRun(ctx context.Context, componentID, runID, sessionID string) (map[string]any, error)
}

// Group is the schedules part of the control plane: New, then Routes,
// Start and Stop.
type Group struct {
	host Host
	cfg  Config
	// store is nil until Start.
	store  *schedule.Store
	poller *schedule.Poller // nil when the scheduler is off
}

// New is the group serving h's schedules.
func New(h Host, cfg Config) *Group { return &Group{host: h, cfg: cfg} }

// Start opens the schedule tables and, with the scheduler on, starts the
// poller.
func (g *Group) Start() error {
	if g.cfg.PollInterval < 0 {
		return fmt.Errorf("agentos: Scheduler.PollInterval (poll_interval_seconds under [scheduler]) is %s: give a positive interval, or 0 for agno's 15s", g.cfg.PollInterval)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := schedule.NewStore(ctx, g.host.DB())
	if err != nil {
		return fmt.Errorf("agentos: schedules: %w", err)
	}
	var p *schedule.Poller
	if g.cfg.Enabled {
		p, err = schedule.NewPoller(schedule.PollerConfig{
			Store: st, Executor: executor{g}, Instance: g.host.Instance(),
			Interval: g.cfg.PollInterval, Logger: g.host.Logger(),
		})
		if err != nil {
			return fmt.Errorf("agentos: scheduler: %w", err)
		}
	}
	g.store, g.poller = st, p
	if p != nil {
		p.Start()
	}
	return nil
}

// Stop stops the poller.
func (g *Group) Stop() {
	if g.poller != nil {
		g.poller.Stop()
	}
}

// ---- the executor (agno's ScheduleExecutor, in process) ----

// executor fires a schedule as a request to this AgentOS, served in
// process (Host.ServeInternal): no network, no base URL, no token. For a
// run endpoint it starts a background run (payload as the form,
// stream=false, background=true) and follows it until it ends; any other
// endpoint gets the payload as JSON.
type executor struct{ g *Group }

var _ schedule.Executor = executor{}

// The run-form fields a schedule does not pass: it always runs in the
// background, unstreamed, on the live version (agno drops them too).
var droppedFields = map[string]bool{"stream": true, "background": true, "version": true, versionKey: true}

// versionKey is agno's run-metadata key pinning a draft version.
const versionKey = "agno_component_version"

// Execute fires s for its principal: the caller that created or last
// changed it, checked now as its own request would be.
func (e executor) Execute(ctx context.Context, s *schedule.Schedule) schedule.Result {
	method := strings.ToUpper(s.Method)
	if method == "" {
		method = http.MethodPost
	}
	p := httpapi.DecodePrincipal(s.Principal)
	if err := e.g.scheduleActor(ctx, s, p); err != nil {
		return schedule.Result{Status: schedule.StatusFailed, Error: err.Error()}
	}
	if m := schedule.RunEndpoint.FindStringSubmatch(s.Endpoint); m != nil && method == http.MethodPost {
		return e.backgroundRun(ctx, s, p, m[2])
	}
	var body io.Reader
	ctype := ""
	if len(s.Payload) > 0 {
		b, err := httpapi.Marshal(s.Payload)
		if err != nil {
			return schedule.Result{Status: schedule.StatusFailed, Error: "payload: " + err.Error()}
		}
		body, ctype = strings.NewReader(string(b)), "application/json"
	}
	code, out, err := e.g.host.ServeInternal(ctx, p, method, s.Endpoint, ctype, body)
	if err != nil {
		return schedule.Result{Status: schedule.StatusFailed, Error: err.Error()}
	}
	if code >= 200 && code < 300 {
		return schedule.Result{Status: schedule.StatusSuccess, StatusCode: &code}
	}
	return schedule.Result{Status: schedule.StatusFailed, StatusCode: &code, Error: string(out)}
}

// formValue renders a payload value as agno's executor does (Python's
// str, JSON for objects and lists).
func formValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case map[string]any, []any:
		b, _ := httpapi.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

func (e executor) backgroundRun(ctx context.Context, s *schedule.Schedule, p httpapi.Principal, id string) schedule.Result {
	form := url.Values{}
	for k, v := range s.Payload {
		if droppedFields[k] {
			continue
		}
		if k == "metadata" {
			v = unpinned(v)
		}
		form.Set(k, formValue(v))
	}
	form.Set("stream", "false")
	form.Set("background", "true")
	code, body, err := e.g.host.ServeInternal(ctx, p, http.MethodPost, s.Endpoint, "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		return schedule.Result{Status: schedule.StatusFailed, Error: err.Error()}
	}
	if code >= 400 {
		return schedule.Result{Status: schedule.StatusFailed, StatusCode: &code, Error: string(body)}
	}
	var started struct {
		RunID     string `json:"run_id"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(body, &started); err != nil {
		return schedule.Result{Status: schedule.StatusFailed, StatusCode: &code, Error: "Invalid JSON in background run response: " + truncate(string(body), 500)}
	}
	if started.RunID == "" || started.SessionID == "" {
		return schedule.Result{Status: schedule.StatusFailed, StatusCode: &code, RunID: started.RunID, SessionID: started.SessionID,
			Error: "Missing run_id or session_id in background run response: " + string(body)}
	}
	return e.follow(ctx, s, id, started.RunID, started.SessionID)
}

// unpinned drops the draft-version pin from run metadata (a
// schedule fires the live version).
func unpinned(v any) any {
	if text, ok := v.(string); ok {
		var m map[string]any
		if run.DecodeJSON([]byte(text), &m) != nil || m == nil {
			return v
		}
		v = m
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if k != versionKey {
			out[k] = x
		}
	}
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// follow reads the stored run until it ends (COMPLETED, PAUSED,
// CANCELLED or ERROR) or ctx does (the schedule's timeout). The run is the
// one the principal's own request just started, so reading its outcome is
// the executor's bookkeeping, not the principal's: it needs no read scope
// (agno polls GET /{type}/{id}/runs/{run_id} as its internal admin). In
// process a read is cheap, so it starts fast and backs off.
func (e executor) follow(ctx context.Context, s *schedule.Schedule, id, runID, sessionID string) schedule.Result {
	failed := func(code *int, msg string) schedule.Result {
		return schedule.Result{Status: schedule.StatusFailed, StatusCode: code, Error: msg, RunID: runID, SessionID: sessionID}
	}
	wait := 20 * time.Millisecond
	for {
		data, err := e.g.host.StoredRun(ctx, id, runID, sessionID)
		if ctx.Err() != nil {
			return failed(nil, fmt.Sprintf("Polling timed out after %ds for run %s", s.TimeoutSeconds, runID))
		}
		if err != nil {
			return failed(nil, err.Error())
		}
		if data != nil {
			if res, done := runOutcome(data, http.StatusOK); done {
				res.RunID, res.SessionID = runID, sessionID
				return res
			}
		}
		select {
		case <-ctx.Done():
			return failed(nil, fmt.Sprintf("Polling timed out after %ds for run %s", s.TimeoutSeconds, runID))
		case <-time.After(wait):
		}
		wait = min(wait*2, 2*time.Second)
	}
}

// runOutcome maps a stored run to a schedule run's outcome, done when the
// run has ended.
func runOutcome(data map[string]any, code int) (schedule.Result, bool) {
	status, _ := data["status"].(string)
	res := schedule.Result{StatusCode: &code}
	errText := func(def string) string {
		if e, ok := data["error"].(string); ok && e != "" {
			return e
		}
		return def
	}
	switch run.Status(status) {
	case run.StatusCompleted:
		res.Status = schedule.StatusSuccess
	case run.StatusPaused:
		res.Status = schedule.StatusPaused
		res.Requirements = runRequirements(data)
	case run.StatusCancelled:
		res.Status, res.Error = schedule.StatusFailed, errText("Run was cancelled")
	case run.StatusError:
		res.Status, res.Error = schedule.StatusFailed, errText("Run failed with status ERROR")
	default:
		return res, false
	}
	if in, ok := data["input"].(map[string]any); ok {
		res.Input = in
	}
	if content, ok := data["content"]; ok && content != nil {
		res.Output = map[string]any{"content": content, "content_type": data["content_type"]}
	}
	return res, true
}

// runRequirements is a paused run's HITL requirements (a workflow's step
// requirements when it has no others).
func runRequirements(data map[string]any) []map[string]any {
	raw, _ := data["requirements"].([]any)
	if len(raw) == 0 {
		raw, _ = data["step_requirements"].([]any)
	}
	var out []map[string]any
	for _, r := range raw {
		if m, ok := r.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// ---- responses (agno's os/routers/schedules/schema.py) ----

// ScheduleResponse is agno's ScheduleResponse.
type ScheduleResponse struct {
	ID                string         `json:"id"`
	Name              string         `json:"name"`
	Description       *string        `json:"description"`
	Method            string         `json:"method"`
	Endpoint          string         `json:"endpoint"`
	Payload           map[string]any `json:"payload"`
	CronExpr          string         `json:"cron_expr"`
	Timezone          string         `json:"timezone"`
	TimeoutSeconds    int            `json:"timeout_seconds"`
	MaxRetries        int            `json:"max_retries"`
	RetryDelaySeconds int            `json:"retry_delay_seconds"`
	Enabled           bool           `json:"enabled"`
	NextRunAt         *int64         `json:"next_run_at"`
	CreatedAt         *int64         `json:"created_at"`
	UpdatedAt         *int64         `json:"updated_at"`
}

// ScheduleStateResponse is agno's answer to enable and disable.
type ScheduleStateResponse struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Enabled   bool   `json:"enabled"`
	NextRunAt *int64 `json:"next_run_at"`
	UpdatedAt *int64 `json:"updated_at"`
}

// ScheduleRunResponse is agno's ScheduleRunResponse.
type ScheduleRunResponse struct {
	ID           string           `json:"id"`
	ScheduleID   string           `json:"schedule_id"`
	Attempt      int              `json:"attempt"`
	TriggeredAt  *int64           `json:"triggered_at"`
	CompletedAt  *int64           `json:"completed_at"`
	Status       string           `json:"status"`
	StatusCode   *int             `json:"status_code"`
	RunID        *string          `json:"run_id"`
	SessionID    *string          `json:"session_id"`
	Error        *string          `json:"error"`
	Input        map[string]any   `json:"input"`
	Output       map[string]any   `json:"output"`
	Requirements []map[string]any `json:"requirements"`
	CreatedAt    *int64           `json:"created_at"`
}

// SchedulePage is agno's PaginatedResponse[T] of the schedule routes.
type SchedulePage[T any] struct {
	Data []T                    `json:"data"`
	Meta httpapi.PaginationInfo `json:"meta"`
}

func scheduleResponse(s *schedule.Schedule) ScheduleResponse {
	created := s.CreatedAt
	return ScheduleResponse{ID: s.ID, Name: s.Name, Description: s.Description, Method: s.Method, Endpoint: s.Endpoint, Payload: s.Payload,
		CronExpr: s.CronExpr, Timezone: s.Timezone, TimeoutSeconds: s.TimeoutSeconds, MaxRetries: s.MaxRetries,
		RetryDelaySeconds: s.RetryDelaySeconds, Enabled: s.Enabled, NextRunAt: s.NextRunAt, CreatedAt: &created, UpdatedAt: s.UpdatedAt}
}

func scheduleRunResponse(r *schedule.Run) ScheduleRunResponse {
	created := r.CreatedAt
	return ScheduleRunResponse{ID: r.ID, ScheduleID: r.ScheduleID, Attempt: r.Attempt, TriggeredAt: r.TriggeredAt, CompletedAt: r.CompletedAt,
		Status: r.Status, StatusCode: r.StatusCode, RunID: r.RunID, SessionID: r.SessionID, Error: r.Error, Input: r.Input,
		Output: r.Output, Requirements: r.Requirements, CreatedAt: &created}
}

func pagination(page, limit, total int) httpapi.PaginationInfo {
	return httpapi.PaginationInfo{Page: page, Limit: limit, TotalPages: httpapi.TotalPages(total, limit), TotalCount: total}
}

// ---- request validation (agno's ScheduleCreate / ScheduleUpdate) ----

// The name pattern: agno's, with spaces allowed inside (the spec's).
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9 ._-]*$`)

// scheduleBody collects pydantic's errors for one body, in field order.
type scheduleBody struct {
	fields map[string]json.RawMessage
	whole  any // the body, pydantic's input of a missing field
	errs   []httpapi.ValidationItem
}

func (b *scheduleBody) fail(field, typ, msg string, input any, ctx map[string]any) {
	loc := []any{"body"}
	if field != "" {
		loc = append(loc, field)
	}
	b.errs = append(b.errs, httpapi.ValidationItem{Type: typ, Loc: loc, Msg: msg, Input: input, Ctx: ctx})
}

func (b *scheduleBody) valueError(field, msg string, input any) {
	b.fail(field, "value_error", "Value error, "+msg, input, map[string]any{"error": map[string]any{}})
}

// present reports whether the body sets field (null included), and
// decodes it.
func (b *scheduleBody) present(field string) (any, bool) {
	raw, ok := b.fields[field]
	if !ok {
		return nil, false
	}
	var v any
	_ = run.DecodeJSON(raw, &v)
	return v, true
}

// str reads a string field; required fields must be present, optional
// ones may be null (set reports a non-null value). check validates it.
func (b *scheduleBody) str(field string, required bool, maxLen int, check func(string) (string, error)) (val string, set bool) {
	v, ok := b.present(field)
	if !ok {
		if required {
			b.fail(field, "missing", "Field required", b.whole, nil)
		}
		return "", false
	}
	if v == nil && !required {
		return "", false
	}
	s, isStr := v.(string)
	if !isStr {
		b.fail(field, "string_type", "Input should be a valid string", v, nil)
		return "", false
	}
	if utf8.RuneCountInString(s) > maxLen {
		b.fail(field, "string_too_long", fmt.Sprintf("String should have at most %d characters", maxLen), s, map[string]any{"max_length": maxLen})
		return "", false
	}
	if check != nil {
		out, err := check(s)
		if err != nil {
			b.valueError(field, err.Error(), s)
			return "", false
		}
		s = out
	}
	return s, true
}

// integer reads an int field within [lo, hi] (pydantic's lax int).
func (b *scheduleBody) integer(field string, lo, hi int) (val int, set bool) {
	v, ok := b.present(field)
	if !ok || v == nil {
		return 0, false
	}
	var n int64
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			f, ferr := x.Float64()
			if ferr != nil || f != float64(int64(f)) {
				b.fail(field, "int_from_float", "Input should be a valid integer, got a number with a fractional part", v, nil)
				return 0, false
			}
			i = int64(f)
		}
		n = i
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			b.fail(field, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", v, nil)
			return 0, false
		}
		n = i
	case bool:
		if x {
			n = 1
		}
	default:
		b.fail(field, "int_type", "Input should be a valid integer", v, nil)
		return 0, false
	}
	if n < int64(lo) {
		b.fail(field, "greater_than_equal", fmt.Sprintf("Input should be greater than or equal to %d", lo), v, map[string]any{"ge": lo})
		return 0, false
	}
	if n > int64(hi) {
		b.fail(field, "less_than_equal", fmt.Sprintf("Input should be less than or equal to %d", hi), v, map[string]any{"le": hi})
		return 0, false
	}
	return int(n), true
}

// payload reads the optional payload object (null clears it).
func (b *scheduleBody) payload() (val map[string]any, set bool) {
	v, ok := b.present("payload")
	if !ok {
		return nil, false
	}
	if v == nil {
		return nil, true
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		b.fail("payload", "dict_type", "Input should be a valid dictionary", v, nil)
		return nil, false
	}
	return m, true
}

func checkName(s string) (string, error) {
	if !namePattern.MatchString(s) {
		//lint:ignore ST1005 agno's validation message, word for word
		return "", errors.New("Name must start with alphanumeric and contain only alphanumeric, '.', '_', '-'")
	}
	return s, nil
}

func checkMethod(s string) (string, error) {
	s = strings.ToUpper(s)
	switch s {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
		return s, nil
	}
	//lint:ignore ST1005 agno's validation message, word for word
	return "", errors.New("Method must be GET, POST, PUT, PATCH, or DELETE")
}

func checkEndpoint(s string) (string, error) {
	if !strings.HasPrefix(s, "/") {
		//lint:ignore ST1005 agno's validation message, word for word
		return "", errors.New("Endpoint must start with '/'")
	}
	if strings.Contains(s, "://") {
		//lint:ignore ST1005 agno's validation message, word for word
		return "", errors.New("Endpoint must be a path, not a full URL")
	}
	return s, nil
}

func readScheduleBody(w http.ResponseWriter, r *http.Request) (*scheduleBody, bool) {
	jb, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return nil, false
	}
	b := &scheduleBody{fields: jb.Fields}
	delete(b.fields, "user_id") // readBody's isolation stamp; no schedule field
	whole := map[string]any{}
	for k := range b.fields {
		v, _ := b.present(k)
		whole[k] = v
	}
	b.whole = whole
	return b, true
}

// ---- routes ----

const scheduleNotFound = "Schedule not found"

func scheduleExists(name string) string {
	return fmt.Sprintf("Schedule with name '%s' already exists", name)
}

// loadSchedule answers 404 for a missing schedule, and under user
// isolation for another user's.
func (g *Group) loadSchedule(w http.ResponseWriter, r *http.Request) (*schedule.Schedule, bool) {
	s, err := g.store.Get(r.Context(), r.PathValue("schedule_id"))
	if errors.Is(err, schedule.ErrNotFound) || err == nil && !httpapi.OwnedBy(r.Context(), s.CreatedBy) {
		httpapi.WriteError(w, http.StatusNotFound, scheduleNotFound)
		return nil, false
	}
	if err != nil {
		httpapi.Fail(w, err)
		return nil, false
	}
	return s, true
}

// scheduleRights is what a caller needs to make a schedule fire method
// endpoint with payload, since the schedule fires as that caller: for a
// POST run endpoint, <type>:run on that component and, under isolation,
// a payload session of its own; anything else, the admin scope. Outside
// JWT mode (c nil) everything the API serves.
func (g *Group) scheduleRights(ctx context.Context, c *httpapi.Caller, endpoint, method string, payload map[string]any) *httpapi.StatusError {
	if c == nil || c.Admin {
		return nil
	}
	m := schedule.RunEndpoint.FindStringSubmatch(endpoint)
	if m == nil || strings.ToUpper(method) != http.MethodPost {
		return &httpapi.StatusError{Status: http.StatusForbidden, Detail: "Only admins can schedule an endpoint that is not a run endpoint"}
	}
	scope := m[1] + ":run"
	if !g.host.May(c, []string{scope}, m[1], m[2]) {
		return &httpapi.StatusError{Status: http.StatusForbidden, Detail: "Insufficient permissions. Required scope(s): " + scope}
	}
	if sid, _ := payload["session_id"].(string); sid != "" && c.Isolated && !g.host.SessionOpenTo(ctx, sid, c.UserID) {
		return &httpapi.StatusError{Status: http.StatusNotFound, Detail: "Session not found: payload.session_id names a session of another user"}
	}
	return nil
}

// maySchedule answers scheduleRights' refusal for the request's caller.
func (g *Group) maySchedule(w http.ResponseWriter, r *http.Request, endpoint, method string, payload map[string]any) bool {
	if err := g.scheduleRights(r.Context(), httpapi.CallerOf(r.Context()), endpoint, method, payload); err != nil {
		httpapi.WriteError(w, err.Status, err.Detail)
		return false
	}
	return true
}

// scheduleActor checks, as s fires, that its principal still may make
// it: the same rights as at creation, with the scopes it was given then.
func (g *Group) scheduleActor(ctx context.Context, s *schedule.Schedule, p httpapi.Principal) error {
	c := g.host.CallerFor(p)
	if c == nil { // outside JWT mode
		return nil
	}
	if len(s.Principal) == 0 {
		return errors.New("this schedule acts for nobody: it was stored before schedules kept who they act for; update or re-enable it with a token that may call its endpoint")
	}
	if err := g.scheduleRights(ctx, c, s.Endpoint, s.Method, s.Payload); err != nil {
		return err
	}
	return nil
}

// ownPayload makes an isolated caller's schedule run as that
// caller: its payload's user_id is the caller's (the request it fires is
// admitted as the caller again, which stamps the same user).
func ownPayload(r *http.Request, payload map[string]any) map[string]any {
	user := httpapi.ScopedUser(r.Context())
	if user == "" {
		return payload
	}
	out := make(map[string]any, len(payload)+1)
	for k, v := range payload {
		out[k] = v
	}
	out["user_id"] = user
	return out
}

func (g *Group) handleListSchedules(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var errs []httpapi.ValidationItem
	var enabled *bool
	if vs, ok := q["enabled"]; ok {
		if b, ok := httpapi.ParseBool(vs[0]); ok {
			enabled = &b
		} else {
			errs = append(errs, httpapi.ValidationItem{Type: "bool_parsing", Loc: []any{"query", "enabled"},
				Msg: "Input should be a valid boolean, unable to interpret input", Input: vs[0]})
		}
	}
	limit, e := httpapi.IntQuery(q, "limit", 100, 1, 1000)
	errs = append(errs, e...)
	page, e := httpapi.IntQuery(q, "page", 1, 1, 0)
	errs = append(errs, e...)
	if len(errs) > 0 {
		httpapi.WriteValidation(w, errs...)
		return
	}
	opts := schedule.ListOptions{Enabled: enabled, Limit: limit, Page: page}
	if u := httpapi.ScopedUser(r.Context()); u != "" {
		opts.CreatedBy = &u // under isolation, one's own
	}
	list, total, err := g.store.List(r.Context(), opts)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	out := SchedulePage[ScheduleResponse]{Data: make([]ScheduleResponse, 0, len(list)), Meta: pagination(page, limit, total)}
	for _, s := range list {
		out.Data = append(out.Data, scheduleResponse(s))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (g *Group) handleCreateSchedule(w http.ResponseWriter, r *http.Request) {
	b, ok := readScheduleBody(w, r)
	if !ok {
		return
	}
	s := schedule.Schedule{Method: schedule.DefaultMethod, Timezone: schedule.DefaultTimezone, TimeoutSeconds: schedule.DefaultTimeoutSeconds,
		MaxRetries: schedule.DefaultMaxRetries, RetryDelaySeconds: schedule.DefaultRetryDelaySeconds}
	s.Name, _ = b.str("name", true, 255, checkName)
	s.CronExpr, _ = b.str("cron_expr", true, 128, nil)
	s.Endpoint, _ = b.str("endpoint", true, 512, checkEndpoint)
	if m, set := b.str("method", true, 10, checkMethod); set {
		s.Method = m
	} else if _, present := b.fields["method"]; !present {
		b.errs = dropMissing(b.errs, "method") // it has a default
	}
	if d, set := b.str("description", false, 1024, nil); set {
		s.Description = &d
	}
	s.Payload, _ = b.payload()
	if tz, set := b.str("timezone", true, 64, nil); set {
		s.Timezone = tz
	} else if _, present := b.fields["timezone"]; !present {
		b.errs = dropMissing(b.errs, "timezone")
	}
	if n, set := b.integer("timeout_seconds", 1, 86400); set {
		s.TimeoutSeconds = n
	}
	if n, set := b.integer("max_retries", 0, 10); set {
		s.MaxRetries = n
	}
	if n, set := b.integer("retry_delay_seconds", 1, 3600); set {
		s.RetryDelaySeconds = n
	}
	if len(b.errs) > 0 {
		httpapi.WriteValidation(w, b.errs...)
		return
	}
	if schedule.ValidateCron(s.CronExpr) != nil {
		httpapi.WriteError(w, http.StatusUnprocessableEntity, "Invalid cron expression: "+s.CronExpr)
		return
	}
	if _, err := schedule.LoadTimezone(s.Timezone); err != nil {
		httpapi.WriteError(w, http.StatusUnprocessableEntity, "Invalid timezone: "+s.Timezone)
		return
	}
	s.Payload = ownPayload(r, s.Payload)
	if !g.maySchedule(w, r, s.Endpoint, s.Method, s.Payload) {
		return
	}
	s.CreatedBy, s.Principal = httpapi.CallerUser(r.Context()), httpapi.PrincipalOf(r.Context()).Encode()
	st := g.store
	if _, err := st.GetByName(r.Context(), s.Name); err == nil {
		httpapi.WriteError(w, http.StatusConflict, scheduleExists(s.Name))
		return
	} else if !errors.Is(err, schedule.ErrNotFound) {
		httpapi.Fail(w, err)
		return
	}
	n, err := schedule.New(s, time.Now())
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if err := st.Create(r.Context(), n); errors.Is(err, schedule.ErrNameTaken) {
		// The name check races with concurrent creates; the unique index
		// turns the loser into the same 409.
		httpapi.WriteError(w, http.StatusConflict, scheduleExists(s.Name))
		return
	} else if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusCreated, scheduleResponse(n))
}

// dropMissing removes the "missing" error of a field that has a default.
func dropMissing(errs []httpapi.ValidationItem, field string) []httpapi.ValidationItem {
	out := errs[:0]
	for _, e := range errs {
		if e.Type == "missing" && len(e.Loc) == 2 && e.Loc[1] == field {
			continue
		}
		out = append(out, e)
	}
	return out
}

func (g *Group) handleGetSchedule(w http.ResponseWriter, r *http.Request) {
	if s, ok := g.loadSchedule(w, r); ok {
		httpapi.WriteJSON(w, http.StatusOK, scheduleResponse(s))
	}
}

// The ScheduleUpdate fields that may be left out but not set to null, in
// agno's order.
var scheduleNonNullable = []string{"name", "cron_expr", "endpoint", "method", "timezone", "timeout_seconds", "max_retries", "retry_delay_seconds"}

func (g *Group) handleUpdateSchedule(w http.ResponseWriter, r *http.Request) {
	b, ok := readScheduleBody(w, r)
	if !ok {
		return
	}
	var p schedule.Patch
	str := func(field string, maxLen int, check func(string) (string, error), dst **string) {
		if v, set := b.str(field, false, maxLen, check); set {
			*dst = &v
		}
	}
	str("name", 255, checkName, &p.Name)
	str("cron_expr", 128, nil, &p.CronExpr)
	str("endpoint", 512, checkEndpoint, &p.Endpoint)
	str("method", 10, checkMethod, &p.Method)
	if v, ok := b.present("description"); ok {
		d, set := b.str("description", false, 1024, nil)
		switch {
		case v == nil:
			p.Description = new(*string)
		case set:
			p.Description = ptr(&d)
		}
	}
	if m, set := b.payload(); set {
		p.Payload = &m
	}
	str("timezone", 64, nil, &p.Timezone)
	num := func(field string, lo, hi int, dst **int) {
		if n, set := b.integer(field, lo, hi); set {
			*dst = &n
		}
	}
	num("timeout_seconds", 1, 86400, &p.TimeoutSeconds)
	num("max_retries", 0, 10, &p.MaxRetries)
	num("retry_delay_seconds", 1, 3600, &p.RetryDelaySeconds)
	if len(b.errs) == 0 {
		for _, f := range scheduleNonNullable {
			if v, ok := b.present(f); ok && v == nil {
				b.valueError("", fmt.Sprintf("'%s' cannot be set to null", f), b.whole)
				break
			}
		}
	}
	if len(b.errs) > 0 {
		httpapi.WriteValidation(w, b.errs...)
		return
	}
	existing, ok := g.loadSchedule(w, r)
	if !ok {
		return
	}
	if p.IsZero() {
		httpapi.WriteJSON(w, http.StatusOK, scheduleResponse(existing))
		return
	}
	if p.Payload != nil {
		owned := ownPayload(r, *p.Payload)
		p.Payload = &owned
	}
	// Any change makes the schedule fire as this caller: what it would
	// fire after the change is checked against this caller's rights.
	endpoint, method, payload := existing.Endpoint, existing.Method, existing.Payload
	if p.Endpoint != nil {
		endpoint = *p.Endpoint
	}
	if p.Method != nil {
		method = *p.Method
	}
	if p.Payload != nil {
		payload = *p.Payload
	}
	if !g.maySchedule(w, r, endpoint, method, payload) {
		return
	}
	p.Principal = httpapi.PrincipalOf(r.Context()).Encode()
	if p.CronExpr != nil || p.Timezone != nil {
		cronExpr, tz := existing.CronExpr, existing.Timezone
		if p.CronExpr != nil {
			cronExpr = *p.CronExpr
		}
		if p.Timezone != nil {
			tz = *p.Timezone
		}
		if schedule.ValidateCron(cronExpr) != nil {
			httpapi.WriteError(w, http.StatusUnprocessableEntity, "Invalid cron expression: "+cronExpr)
			return
		}
		if _, err := schedule.LoadTimezone(tz); err != nil {
			httpapi.WriteError(w, http.StatusUnprocessableEntity, "Invalid timezone: "+tz)
			return
		}
	}
	renaming := p.Name != nil && *p.Name != existing.Name
	if renaming {
		if _, err := g.store.GetByName(r.Context(), *p.Name); err == nil {
			httpapi.WriteError(w, http.StatusConflict, scheduleExists(*p.Name))
			return
		}
	}
	s, err := g.store.Update(r.Context(), existing.ID, p, time.Now())
	switch {
	case errors.Is(err, schedule.ErrNotFound):
		httpapi.WriteError(w, http.StatusNotFound, scheduleNotFound)
	case errors.Is(err, schedule.ErrNameTaken):
		httpapi.WriteError(w, http.StatusConflict, scheduleExists(*p.Name))
	case err != nil:
		httpapi.Fail(w, err)
	default:
		httpapi.WriteJSON(w, http.StatusOK, scheduleResponse(s))
	}
}

func ptr[T any](v T) *T { return &v }

func (g *Group) handleDeleteSchedule(w http.ResponseWriter, r *http.Request) {
	if _, ok := g.loadSchedule(w, r); !ok {
		return
	}
	deleted, err := g.store.Delete(r.Context(), r.PathValue("schedule_id"))
	switch {
	case err != nil:
		httpapi.Fail(w, err)
	case !deleted:
		httpapi.WriteError(w, http.StatusNotFound, scheduleNotFound)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

func (g *Group) handleEnableSchedule(enable bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		existing, ok := g.loadSchedule(w, r)
		if !ok {
			return
		}
		// Re-arming puts the endpoint back on the poller: the same
		// permission as creating it. Either way the schedule acts for
		// this caller from now on.
		if enable && !g.maySchedule(w, r, existing.Endpoint, existing.Method, existing.Payload) {
			return
		}
		s, err := g.store.SetEnabled(r.Context(), existing.ID, enable, httpapi.PrincipalOf(r.Context()).Encode(), time.Now())
		if errors.Is(err, schedule.ErrNotFound) {
			httpapi.WriteError(w, http.StatusNotFound, scheduleNotFound)
			return
		}
		if err != nil {
			httpapi.Fail(w, err)
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, ScheduleStateResponse{ID: s.ID, Name: s.Name, Enabled: s.Enabled, NextRunAt: s.NextRunAt, UpdatedAt: s.UpdatedAt})
	}
}

func (g *Group) handleTriggerSchedule(w http.ResponseWriter, r *http.Request) {
	s, ok := g.loadSchedule(w, r)
	if !ok {
		return
	}
	if !s.Enabled {
		httpapi.WriteError(w, http.StatusConflict, "Schedule is disabled")
		return
	}
	if !g.maySchedule(w, r, s.Endpoint, s.Method, s.Payload) {
		return
	}
	p := g.poller
	if p == nil {
		httpapi.WriteError(w, http.StatusServiceUnavailable, "Scheduler is not running")
		return
	}
	// The firing outlives a client that leaves: its attempts are stored.
	last, err := p.Trigger(context.WithoutCancel(r.Context()), s)
	if errors.Is(err, schedule.ErrStopped) {
		httpapi.WriteError(w, http.StatusServiceUnavailable, "Scheduler is not running")
		return
	}
	if err != nil && last == nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, scheduleRunResponse(last))
}

func (g *Group) handleListScheduleRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, errs := httpapi.IntQuery(q, "limit", 100, 1, 1000)
	page, e := httpapi.IntQuery(q, "page", 1, 1, 0)
	if errs = append(errs, e...); len(errs) > 0 {
		httpapi.WriteValidation(w, errs...)
		return
	}
	s, ok := g.loadSchedule(w, r)
	if !ok {
		return
	}
	list, total, err := g.store.ListRuns(r.Context(), s.ID, limit, page)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	out := SchedulePage[ScheduleRunResponse]{Data: make([]ScheduleRunResponse, 0, len(list)), Meta: pagination(page, limit, total)}
	for _, run := range list {
		out.Data = append(out.Data, scheduleRunResponse(run))
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
}

func (g *Group) handleGetScheduleRun(w http.ResponseWriter, r *http.Request) {
	if _, ok := g.loadSchedule(w, r); !ok {
		return
	}
	run, err := g.store.GetRun(r.Context(), r.PathValue("run_id"))
	if errors.Is(err, schedule.ErrNotFound) || (err == nil && run.ScheduleID != r.PathValue("schedule_id")) {
		httpapi.WriteError(w, http.StatusNotFound, "Schedule run not found")
		return
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, scheduleRunResponse(run))
}

// ---- docs ----

// Routes are agno's /schedules routes (tag Schedules).
func (g *Group) Routes() []httpapi.Route {
	const tag = "Schedules"
	fields := func(required bool) []httpapi.Param {
		return []httpapi.Param{
			{Name: "name", Type: "string", Required: required, Desc: "Unique name: starts with a letter or digit, then letters, digits, spaces, '.', '_', '-' (at most 255)"},
			{Name: "cron_expr", Type: "string", Required: required, Desc: "Five-field cron expression (minute hour day month weekday) or @hourly, @daily, @weekly, @monthly, @yearly"},
			{Name: "endpoint", Type: "string", Required: required, Desc: "Path of this AgentOS to call, such as /agents/{agent_id}/runs"},
			{Name: "method", Type: "string", Enum: []string{"GET", "POST", "PUT", "PATCH", "DELETE"}, Default: fieldDefault(required, "POST")},
			{Name: "description", Type: "string"},
			{Name: "payload", Type: "object", Desc: "Body: the form fields of a run (message, session_id, user_id, …), JSON for other endpoints"},
			{Name: "timezone", Type: "string", Desc: "IANA timezone the cron expression is read in", Default: fieldDefault(required, "UTC")},
			{Name: "timeout_seconds", Type: "integer", Min: 1, Max: 86400, Default: fieldDefault(required, 3600)},
			{Name: "max_retries", Type: "integer", Max: 10, Default: fieldDefault(required, 0)},
			{Name: "retry_delay_seconds", Type: "integer", Min: 1, Max: 3600, Default: fieldDefault(required, 60)},
		}
	}
	page := []httpapi.Param{{Name: "limit", Type: "integer", Desc: "Items per page", Default: 100, Min: 1, Max: 1000}, httpapi.PageQuery}
	return []httpapi.Route{
		{Pattern: "GET /schedules", Handler: g.handleListSchedules, Access: httpapi.Needs("schedules:read"), Tag: tag, Summary: "List schedules",
			Query:  append([]httpapi.Param{{Name: "enabled", Type: "boolean", Desc: "Only enabled (true) or disabled (false) schedules"}}, page...),
			Schema: "PaginatedResponse", Result: "PaginatedResponse[ScheduleResponse]"},
		{Pattern: "POST /schedules", Handler: g.handleCreateSchedule, Access: httpapi.Needs("schedules:write"), Tag: tag, Summary: "Create a schedule", JSON: fields(true), Status: http.StatusCreated,
			Result: "ScheduleResponse; 409 for a taken name, 422 for a bad cron expression or timezone"},
		{Pattern: "GET /schedules/{schedule_id}", Handler: g.handleGetSchedule, Access: httpapi.Needs("schedules:read"), Tag: tag, Summary: "Get a schedule", Result: "ScheduleResponse"},
		{Pattern: "PATCH /schedules/{schedule_id}", Handler: g.handleUpdateSchedule, Access: httpapi.Needs("schedules:write"), Tag: tag, Summary: "Update a schedule", JSON: fields(false),
			Desc: "Fields left out keep their value; a new cron expression or timezone moves next_run_at.", Result: "ScheduleResponse"},
		{Pattern: "DELETE /schedules/{schedule_id}", Handler: g.handleDeleteSchedule, Access: httpapi.Needs("schedules:delete"), Tag: tag, Summary: "Delete a schedule and its runs", Status: http.StatusNoContent, Result: "No content"},
		{Pattern: "POST /schedules/{schedule_id}/enable", Handler: g.handleEnableSchedule(true), Access: httpapi.Needs("schedules:write"), Tag: tag, Summary: "Enable a schedule", Result: "{id, name, enabled, next_run_at, updated_at}"},
		{Pattern: "POST /schedules/{schedule_id}/disable", Handler: g.handleEnableSchedule(false), Access: httpapi.Needs("schedules:write"), Tag: tag, Summary: "Disable a schedule", Result: "{id, name, enabled, next_run_at, updated_at}"},
		{Pattern: "POST /schedules/{schedule_id}/trigger", Handler: g.handleTriggerSchedule, Access: httpapi.Needs("schedules:write"), Tag: tag, Summary: "Fire a schedule now",
			Desc:   "Runs the schedule at once (with its retries) and answers its last attempt; needs [scheduler] enabled.",
			Result: "ScheduleRunResponse; 409 when disabled, 503 when the scheduler is not running"},
		{Pattern: "GET /schedules/{schedule_id}/runs", Handler: g.handleListScheduleRuns, Access: httpapi.Needs("schedules:read"), Tag: tag, Summary: "List a schedule's runs", Query: page,
			Schema: "PaginatedResponse", Result: "PaginatedResponse[ScheduleRunResponse]"},
		{Pattern: "GET /schedules/{schedule_id}/runs/{run_id}", Handler: g.handleGetScheduleRun, Access: httpapi.Needs("schedules:read"), Tag: tag, Summary: "Get a schedule run", Result: "ScheduleRunResponse"},
	}
}

func fieldDefault(ok bool, v any) any {
	if ok {
		return v
	}
	return nil
}
