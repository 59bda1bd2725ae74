package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// Host is what the interface needs of the OS: *agentos.Host, given to
// Start.
type Host interface {
	Logger() *slog.Logger
	// Store holds the paused runs a frontend tool's result continues;
	// nil without one.
	Store() storage.Store
	Catalog() agentos.Catalog
	// Allowed reports whether r's caller may "run" kind id.
	Allowed(r *http.Request, kind, id, action string) bool
	// Caller is the user r's caller runs as under user isolation; ok
	// false when that user may not run in sessionID.
	Caller(r *http.Request, sessionID string) (user string, ok bool)
	// Draining reports a shutting-down OS, having answered w 503.
	Draining(w http.ResponseWriter) bool
}

var _ Host = (*agentos.Host)(nil)

// bodyLimit bounds a RunAgentInput (the client resends the whole
// conversation each turn).
const bodyLimit = 32 << 20

// New is agno's AG-UI interface: one agent or team for AG-UI front
// ends, at POST {prefix}/agui. Give it in agentos.Config.Interfaces.
func New(c *Config) *Interface {
	cfg := *c
	return &Interface{cfg: &cfg}
}

// Interface serves the AG-UI protocol for one agent or team (an
// agentos.Interface).
type Interface struct {
	cfg  *Config
	host Host
}

// Config is the interface's configuration.
func (i *Interface) Config() Config { return *i.cfg }

func (i *Interface) Check(served agentos.Catalog) error { return check(i.cfg, served) }
func (i *Interface) Start(h *agentos.Host) error        { i.host = h; return nil }
func (i *Interface) Stop()                              {}

func (i *Interface) Listing() []any {
	return []any{map[string]any{"type": Type, "version": Version, "route": i.cfg.Prefix}}
}

var inputParams = []httpapi.Param{
	{Name: "threadId", Type: "string", Desc: "the conversation: the session id", Required: true},
	{Name: "runId", Type: "string", Desc: "the run id", Required: true},
	{Name: "state", Type: "object", Desc: "the client's state, the run's session_state (sent back in STATE_SNAPSHOT)", Required: true},
	{Name: "messages", Type: "array", Desc: "the conversation; the last user message is the input, trailing tool messages continue a run paused on frontend tools", Required: true},
	{Name: "tools", Type: "array", Desc: "frontend tools {name, description, parameters}: offered to the model, run by the client", Required: true},
	{Name: "context", Type: "array", Desc: "context items {description, value}", Required: true},
	{Name: "forwardedProps", Type: "object", Desc: "open runtime context; user_id names the user", Required: true},
}

// Routes are the AG-UI interface's routes, under its prefix.
func (i *Interface) Routes() []agentos.Route {
	c := i.cfg
	if err := check(c, i.host.Catalog()); err != nil {
		// Runs then answer RUN_ERROR naming what is not served.
		i.host.Logger().Error("AG-UI interface misconfigured", "err", err)
	}
	return []httpapi.Route{
		{Pattern: "POST " + c.Prefix + "/agui", Handler: i.handle, Access: httpapi.CheckedBy("agui.Interface.handle: Host.Allowed, the run scope of the served agent or team"), Tag: "AGUI", TagDesc: "The AG-UI protocol interface: runs an agent for AG-UI front ends.", Summary: "Run Agent", JSON: inputParams,
			Desc:   "AG-UI protocol endpoint: RunAgentInput in, a text/event-stream of AG-UI events out (RUN_STARTED, TEXT_MESSAGE_*, TOOL_CALL_*, STATE_SNAPSHOT, RUN_FINISHED or RUN_ERROR). threadId is the session; a call of a frontend tool ends the stream with the call, and the next request carrying its tool message continues the run.",
			Result: "text/event-stream of AG-UI events"},
		{Pattern: "GET " + c.Prefix + "/status", Access: httpapi.CheckedBy("none: a constant answer"), Tag: "AGUI", Summary: "Get Status", Result: "{\"status\":\"available\"}",
			Handler: func(w http.ResponseWriter, _ *http.Request) {
				httpapi.WriteJSON(w, http.StatusOK, map[string]string{"status": "available"})
			}},
	}
}

// check validates the AG-UI interface against the catalog.
func check(c *Config, served agentos.Catalog) error {
	if err := c.Check(); err != nil {
		return fmt.Errorf("agentos: AGUI: %w", err)
	}
	kind, id := c.Entity()
	if (kind == "agent" || kind == "team") && !served.Has(kind, id) {
		return fmt.Errorf("agentos: AGUI %s %q is not served: give the id of one of the OS's %ss", kind, id, kind)
	}
	return nil
}

// stream writes AG-UI events as ag_ui's EventEncoder does.
type stream struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	ok bool
}

func (s *stream) send(evs ...Event) bool {
	for _, e := range evs {
		if !s.ok {
			return false
		}
		b, err := Encode(e)
		if err != nil {
			continue
		}
		if _, err := s.w.Write(b); err != nil {
			s.ok = false
			return false
		}
		s.ok = s.rc.Flush() == nil
	}
	return s.ok
}

// handle is POST {prefix}/agui (agno's run_agent_agui).
func (i *Interface) handle(w http.ResponseWriter, r *http.Request) {
	c := i.cfg
	// As A2A and the run routes: the entity's run scope.
	if kind, id := c.Entity(); !i.host.Allowed(r, kind, id, "run") {
		httpapi.WriteError(w, http.StatusForbidden, "Access denied to run this "+kind)
		return
	}
	if !httpapi.JSONContent(r) {
		httpapi.FieldErrorInput(w, []string{"body"}, "Input should be a valid dictionary or object to extract fields from", "model_attributes_type", nil, nil)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, bodyLimit))
	if err != nil {
		httpapi.WriteError(w, http.StatusRequestEntityTooLarge, "The RunAgentInput is over 32 MiB")
		return
	}
	in, err := Decode(body)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			httpapi.FieldError(w, fe.Loc, fe.Msg, fe.Type)
			return
		}
		httpapi.Fail(w, err)
		return
	}
	userID := in.UserID()
	// Under user isolation the token's user runs, in its own sessions.
	if u, ok := i.host.Caller(r, in.ThreadID); !ok {
		httpapi.WriteError(w, http.StatusNotFound, "Session not found")
		return
	} else if u != "" {
		userID = u
	}
	if i.host.Draining(w) {
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "*")
	w.WriteHeader(http.StatusOK)
	s := &stream{w: w, rc: http.NewResponseController(w), ok: true}
	i.answer(r.Context(), s, in, userID)
}

// answer is agno's run_agent / run_team: RUN_STARTED, the state, the run
// (new, or continued with the client's tool results) mapped to AG-UI
// events, RUN_FINISHED; RUN_ERROR when it fails.
func (i *Interface) answer(ctx context.Context, s *stream, in *RunAgentInput, userID string) {
	runID := in.RunID
	if runID == "" {
		runID = run.NewID()
	}
	s.send(Started(in.ThreadID, runID))
	state := in.SessionState()
	if state != nil {
		s.send(Snapshot(state))
	}
	ex, err := i.executor(in.Tools)
	if err != nil {
		s.send(ErrorEvent(err.Error()))
		return
	}
	m := &Mapper{ThreadID: in.ThreadID, RunID: runID, State: state}
	emit := func(e run.Event) bool {
		return s.send(m.Map(e)...)
	}
	var meta map[string]any
	if fp := in.Forwarded(); len(fp) > 0 {
		meta = map[string]any{"forwarded_props": fp}
	}
	deps := dependencies(in.Context)
	var out *run.Output
	if results := ToolResults(in.Messages); len(results) > 0 {
		var creq *run.ContinueRequest
		if creq, err = i.resume(ctx, in.ThreadID, userID, results); err != nil {
			s.send(ErrorEvent(err.Error()))
			return
		}
		creq.SessionState, creq.Metadata, creq.Dependencies = state, meta, deps
		m.ClientCalls = map[string]bool{}
		for _, res := range results {
			m.ClientCalls[res.ToolCallID] = true
		}
		out, err = ex.ExecuteContinue(ctx, creq, emit)
	} else {
		req := &run.Request{Input: UserInput(in.Messages), RunID: runID, SessionID: in.ThreadID, UserID: userID,
			SessionState: state, Metadata: meta, Dependencies: deps, Stream: true, StreamEvents: true, StoreEvents: true}
		out, err = ex.Execute(ctx, req, emit)
	}
	if err != nil {
		s.send(ErrorEvent(err.Error()))
		return
	}
	if msg, failed := m.Failed(); failed || out != nil && out.Status == run.StatusError {
		if msg == "" {
			msg = run.ContentText(out.Content)
		}
		s.send(ErrorEvent(msg))
		return
	}
	s.send(m.Finish()...)
}

// dependencies is agno's extract_context: the client's context items as
// dependencies keyed by description, JSON values parsed.
func dependencies(items []Context) map[string]any {
	if len(items) == 0 {
		return nil
	}
	deps := map[string]any{}
	for i, c := range items {
		key := c.Description
		if key == "" {
			key = fmt.Sprintf("context_%d", i+1)
		}
		var v any = c.Value
		var parsed any
		if json.Unmarshal([]byte(c.Value), &parsed) == nil {
			v = parsed
		}
		deps[key] = v
	}
	return deps
}

// executor is the served agent or team, with the client's frontend
// tools added for this run as external-execution tools (agno's
// agui_tools_to_external_functions): the model may call them, the run
// then pauses and the client runs them. A tool named like one of the
// agent's is skipped, as agno does.
func (i *Interface) executor(fe []Tool) (run.Executor, error) {
	kind, id := i.cfg.Entity()
	cat := i.host.Catalog()
	log := i.host.Logger()
	switch kind {
	case "team":
		t := cat.Team(id)
		if t == nil {
			return nil, fmt.Errorf("team %q is no longer served", id)
		}
		if len(fe) == 0 {
			return t, nil
		}
		cfg := t.Config()
		cfg.Tools = append(slices.Clone(cfg.Tools), frontendTools(fe, nil, log)...)
		return team.New(cfg)
	default:
		a := cat.Agent(id)
		if a == nil {
			return nil, fmt.Errorf("agent %q is no longer served", id)
		}
		if len(fe) == 0 {
			return a, nil
		}
		cfg := a.Config()
		cfg.Tools = append(slices.Clone(cfg.Tools), frontendTools(fe, a.ToolNames(), log)...)
		return agent.New(cfg)
	}
}

func frontendTools(fe []Tool, taken []string, log *slog.Logger) []tool.Provider {
	var out []tool.Provider
	seen := map[string]bool{}
	for _, n := range taken {
		seen[n] = true
	}
	for _, t := range fe {
		if seen[t.Name] {
			log.Warn("AG-UI: a frontend tool collides with an agent tool and is skipped", "tool", t.Name)
			continue
		}
		seen[t.Name] = true
		params := t.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, &tool.Function{Name: t.Name, Description: t.Description, Parameters: params,
			ExternalExecution: true, ExternalExecutionSilent: true})
	}
	return out
}

// resume is agno's resume_paused_run: the paused run of the thread whose
// requirements the tool results answer, with each external execution
// set to its result. Every paused tool must be answered.
func (i *Interface) resume(ctx context.Context, threadID, userID string, results []ToolResult) (*run.ContinueRequest, error) {
	st := i.host.Store()
	if st == nil {
		//lint:ignore ST1005 agno's message, word for word
		return nil, errors.New("Frontend tool resume requires a database. Configure [storage] for AgentOS.")
	}
	_, id := i.cfg.Entity()
	recs, err := st.ListRuns(ctx, storage.RunQuery{SessionID: threadID, ComponentID: id, Status: []run.Status{run.StatusPaused}, TopLevel: true})
	if err != nil {
		return nil, err
	}
	byID := map[string]ToolResult{}
	for _, res := range results {
		byID[res.ToolCallID] = res
	}
	for _, rec := range recs {
		out := &run.Output{}
		if json.Unmarshal(rec.Data, out) != nil {
			continue
		}
		matched := false
		for _, req := range out.Requirements {
			if req.ToolExecution != nil {
				_, ok := byID[req.ToolExecution.ToolCallID]
				matched = matched || ok
			}
		}
		if !matched {
			continue
		}
		var unanswered []string
		for _, req := range out.Requirements {
			te := req.ToolExecution
			if te == nil {
				continue
			}
			res, ok := byID[te.ToolCallID]
			if !ok || !req.NeedsExternalExecution() {
				if !req.Resolved() {
					unanswered = append(unanswered, te.ToolName)
				}
				continue
			}
			v := res.Content
			if res.Error != "" {
				v, te.ToolCallError = res.Error, true
			}
			if err := req.SetExternalResult(v); err != nil {
				return nil, err
			}
		}
		if len(unanswered) > 0 {
			//lint:ignore ST1005 agno's message, word for word
			return nil, fmt.Errorf("Partial resume: %d of %d paused tool(s) unanswered (%s). The frontend must answer all paused tools before resuming.", len(unanswered), len(out.Requirements), strings.Join(unanswered, ", "))
		}
		return &run.ContinueRequest{RunID: rec.RunID, SessionID: threadID, UserID: userID, Requirements: out.Requirements,
			Stream: true, StreamEvents: true, StoreEvents: true}, nil
	}
	//lint:ignore ST1005 agno's message, word for word
	return nil, fmt.Errorf("No paused run matching the provided tool results found in session %s", threadID)
}
