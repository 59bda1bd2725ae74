// Package tracesapi is the Traces route group of AgentOS: agno's /traces
// and /trace_session_stats routes over package tracestore (the spans kept
// in the OS's DB) and, with tracing on, the OpenTelemetry provider that
// records the runs' spans there. It builds on the core
// (agentos/internal/httpapi) and on Host, what it needs of the OS;
// agentos serves its rows.
package tracesapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/tracing"
)

// Config configures tracing (agno's AgentOS(tracing=True)).
type Config struct {
	// Enabled records spans of runs, model calls, tool calls, team
	// delegations and workflow steps into DB, read back on /traces.
	Enabled bool
	// OTLPEndpoint, when set, also exports the spans over OTLP/HTTP: a
	// base URL ("http://collector:4318", /v1/traces is appended) or the
	// full traces URL.
	OTLPEndpoint string
}

// Host is what the group needs of the OS.
type Host interface {
	// DB holds the trace tables.
	DB() *sqldb.DB
	// DBID is the id a route's db_id must name (agno's get_db).
	DBID() string
	// Service is the OS's name and id, the spans' OpenTelemetry resource.
	Service() (name, id string)
	Logger() *slog.Logger
}

// Group is the traces part of the control plane: New, then Routes, Start
// and Stop.
type Group struct {
	host Host
	cfg  Config
	// store is nil until Start: the routes answer 503.
	store *tracestore.Store
	// tp is the provider the runs' spans go to, with tracing on; restore
	// gives the library its previous one back.
	tp      *sdktrace.TracerProvider
	restore func()
}

// New is the group serving h's traces.
func New(h Host, cfg Config) *Group { return &Group{host: h, cfg: cfg} }

// Start opens the trace tables; with tracing on it builds the
// OpenTelemetry SDK provider (a batch processor into the DB, and one to
// the OTLP endpoint) and hands it to the library's spans.
//
// The provider reaches the library through tracing.SetProvider rather
// than otel's global: the process-wide otel provider belongs to the
// application embedding AgentOS, and only agno's spans are this OS's to
// record. One provider serves the process, so a second OS with tracing
// on takes over until the first stops.
func (g *Group) Start() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store, err := tracestore.Open(ctx, g.host.DB())
	if err != nil {
		return err
	}
	if !g.cfg.Enabled {
		g.store = store
		return nil
	}
	name, id := g.host.Service()
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithBatcher(store.Exporter()),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name), semconv.ServiceInstanceID(id))),
	}
	if ep := g.cfg.OTLPEndpoint; ep != "" {
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(otlpTracesURL(ep)))
		if err != nil {
			return fmt.Errorf("agentos: tracing OTLP endpoint %q: %w", ep, err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	g.store, g.tp = store, sdktrace.NewTracerProvider(opts...)
	g.restore = tracing.SetProvider(g.tp)
	return nil
}

// otlpTracesURL is the traces URL of an OTLP/HTTP endpoint: a base URL
// gets /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT does.
func otlpTracesURL(ep string) string {
	u, err := url.Parse(ep)
	if err != nil || u.Scheme == "" {
		return ep
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return u.String()
}

// Stop gives the library its previous provider back, then flushes the
// spans still queued and shuts the exporters down. The routes still read
// the store.
func (g *Group) Stop() {
	if g.restore != nil {
		g.restore()
	}
	if g.tp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := g.tp.ForceFlush(ctx); err != nil {
			g.host.Logger().Warn("tracing: flushing spans failed", "error", err)
		}
		if err := g.tp.Shutdown(ctx); err != nil {
			g.host.Logger().Warn("tracing: shutting the exporters down failed", "error", err)
		}
	}
}

// Flush writes the spans still queued (tests, and callers that read
// /traces right after a run).
func (g *Group) Flush(ctx context.Context) error {
	if g.tp == nil {
		return nil
	}
	return g.tp.ForceFlush(ctx)
}

// Routes are agno's /traces and /trace_session_stats routes (tag Traces).
func (g *Group) Routes() []httpapi.Route {
	ids := []httpapi.Param{{Name: "run_id", Type: "string"}, {Name: "session_id", Type: "string"}, {Name: "user_id", Type: "string"},
		{Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"}, {Name: "workflow_id", Type: "string"}}
	times := []httpapi.Param{
		{Name: "start_time", Type: "string", Desc: "ISO 8601 with a timezone, e.g. 2025-11-19T10:00:00Z"},
		{Name: "end_time", Type: "string", Desc: "ISO 8601 with a timezone, e.g. 2025-11-19T11:00:00Z"}}
	list := append(append(append([]httpapi.Param{}, ids...), httpapi.Param{Name: "status", Type: "string", Desc: "OK or ERROR"}), times...)
	list = append(list, httpapi.Param{Name: "page", Type: "integer", Default: 1}, httpapi.Param{Name: "limit", Type: "integer", Default: 20, Min: 1}, httpapi.DBQuery)
	stats := append(append([]httpapi.Param{}, ids[2:]...), times...)
	stats = append(stats, httpapi.Param{Name: "page", Type: "integer", Default: 1, Min: 1}, httpapi.Param{Name: "limit", Type: "integer", Default: 20, Min: 1}, httpapi.DBQuery)
	return []httpapi.Route{
		{Pattern: "GET /traces", Handler: g.handleTraces, Access: httpapi.Needs("traces:read"), Tag: "Traces", Summary: "List Traces",
			Desc:  "Execution traces (runs, model calls, tool calls) filtered by run, session, user, agent, team, workflow, status and time.",
			Query: list, Schema: "PaginatedResponse", Result: "PaginatedResponse[TraceSummary]"},
		{Pattern: "GET /traces/filter-schema", Handler: g.handleTraceFilterSchema, Access: httpapi.Needs("traces:read"), Tag: "Traces", Summary: "Get Trace Filter Schema",
			Desc: "The fields, operators and enum values POST /traces/search accepts.", Result: "FilterSchemaResponse"},
		{Pattern: "GET /traces/{trace_id}", Handler: g.handleTrace, Access: httpapi.Needs("traces:read"), Tag: "Traces", Summary: "Get Trace or Span Detail",
			Desc:  "A trace with its span tree, or with span_id one span of it.",
			Query: []httpapi.Param{{Name: "span_id", Type: "string"}, {Name: "run_id", Type: "string"}, httpapi.DBQuery}, Result: "TraceDetail or TraceNode"},
		{Pattern: "GET /trace_session_stats", Handler: g.handleTraceSessionStats, Access: httpapi.Needs("traces:read"), Tag: "Traces", Summary: "Get Trace Statistics by Session",
			Desc: "Trace counts and first/last trace times per session.", Query: stats,
			Schema: "PaginatedResponse", Result: "PaginatedResponse[TraceSessionStats]"},
		{Pattern: "POST /traces/search", Handler: g.handleTraceSearch, Access: httpapi.Needs("traces:read"), Tag: "Traces", Summary: "Search Traces with Advanced Filters",
			Desc:  "Traces matching a FilterExpr (EQ, NEQ, GT, GTE, LT, LTE, IN, CONTAINS, STARTSWITH, AND, OR, NOT); group_by session gives session stats.",
			Query: []httpapi.Param{httpapi.DBQuery},
			JSON: []httpapi.Param{{Name: "filter", Type: "object", Desc: "FilterExpr, e.g. {\"op\": \"EQ\", \"key\": \"status\", \"value\": \"OK\"}"},
				{Name: "group_by", Type: "string", Default: "run", Enum: []string{"run", "session"}},
				{Name: "page", Type: "integer", Default: 1, Min: 1}, {Name: "limit", Type: "integer", Default: 20, Min: 1, Max: 100}},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[TraceDetail] or PaginatedResponse[TraceSessionStats]"},
	}
}

// ---- response models (agno's os/routers/traces/schemas.py) ----

// TraceSummary is one trace of GET /traces (None fields omitted, as the
// route's response_model_exclude_none).
type TraceSummary struct {
	TraceID    string  `json:"trace_id"`
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	Duration   string  `json:"duration"`
	StartTime  string  `json:"start_time"`
	EndTime    string  `json:"end_time"`
	TotalSpans int     `json:"total_spans"`
	ErrorCount int     `json:"error_count"`
	Input      *string `json:"input,omitempty"`
	RunID      *string `json:"run_id,omitempty"`
	SessionID  *string `json:"session_id,omitempty"`
	UserID     *string `json:"user_id,omitempty"`
	AgentID    *string `json:"agent_id,omitempty"`
	TeamID     *string `json:"team_id,omitempty"`
	WorkflowID *string `json:"workflow_id,omitempty"`
	CreatedAt  string  `json:"created_at"`
}

// TraceDetail is a trace with its span tree.
type TraceDetail struct {
	TraceID    string      `json:"trace_id"`
	Name       string      `json:"name"`
	Status     string      `json:"status"`
	Duration   string      `json:"duration"`
	StartTime  string      `json:"start_time"`
	EndTime    string      `json:"end_time"`
	TotalSpans int         `json:"total_spans"`
	ErrorCount int         `json:"error_count"`
	Input      *string     `json:"input,omitempty"`
	Output     *string     `json:"output,omitempty"`
	Error      *string     `json:"error,omitempty"`
	RunID      *string     `json:"run_id,omitempty"`
	SessionID  *string     `json:"session_id,omitempty"`
	UserID     *string     `json:"user_id,omitempty"`
	AgentID    *string     `json:"agent_id,omitempty"`
	TeamID     *string     `json:"team_id,omitempty"`
	WorkflowID *string     `json:"workflow_id,omitempty"`
	CreatedAt  string      `json:"created_at"`
	Tree       []TraceNode `json:"tree"`
}

// TraceNode is one span of a trace tree.
type TraceNode struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Type      string         `json:"type"`
	Duration  string         `json:"duration"`
	StartTime string         `json:"start_time"`
	EndTime   string         `json:"end_time"`
	Status    string         `json:"status"`
	Input     *string        `json:"input,omitempty"`
	Output    *string        `json:"output,omitempty"`
	Error     *string        `json:"error,omitempty"`
	Spans     []TraceNode    `json:"spans,omitempty"`
	StepType  *string        `json:"step_type,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	ExtraData map[string]any `json:"extra_data,omitempty"`
}

// TraceSessionStats is the trace statistics of one session.
type TraceSessionStats struct {
	SessionID    string  `json:"session_id"`
	UserID       *string `json:"user_id,omitempty"`
	AgentID      *string `json:"agent_id,omitempty"`
	TeamID       *string `json:"team_id,omitempty"`
	WorkflowID   *string `json:"workflow_id,omitempty"`
	TotalTraces  int     `json:"total_traces"`
	FirstTraceAt string  `json:"first_trace_at"`
	LastTraceAt  string  `json:"last_trace_at"`
}

// FilterFieldSchema is one filterable field (values null unless an enum:
// the filter-schema route does not drop None fields).
type FilterFieldSchema struct {
	Key       string   `json:"key"`
	Label     string   `json:"label"`
	Type      string   `json:"type"`
	Operators []string `json:"operators"`
	Values    []string `json:"values"`
}

// FilterSchemaResponse is GET /traces/filter-schema.
type FilterSchemaResponse struct {
	Fields           []FilterFieldSchema `json:"fields"`
	LogicalOperators []string            `json:"logical_operators"`
}

// traceFilterSchema is agno's TRACE_FILTER_SCHEMA.
var traceFilterSchema = func() FilterSchemaResponse {
	str := []string{"EQ", "NEQ", "CONTAINS", "STARTSWITH", "IN"}
	cmpOps := []string{"GT", "GTE", "LT", "LTE"}
	return FilterSchemaResponse{
		Fields: []FilterFieldSchema{
			{Key: "status", Label: "Status", Type: "enum", Operators: []string{"EQ", "NEQ", "IN"}, Values: []string{"OK", "ERROR"}},
			{Key: "user_id", Label: "User ID", Type: "string", Operators: str},
			{Key: "agent_id", Label: "Agent ID", Type: "string", Operators: str},
			{Key: "team_id", Label: "Team ID", Type: "string", Operators: str},
			{Key: "workflow_id", Label: "Workflow ID", Type: "string", Operators: str},
			{Key: "session_id", Label: "Session ID", Type: "string", Operators: str},
			{Key: "run_id", Label: "Run ID", Type: "string", Operators: str},
			{Key: "name", Label: "Trace Name", Type: "string", Operators: []string{"EQ", "NEQ", "CONTAINS", "STARTSWITH"}},
			{Key: "trace_id", Label: "Trace ID", Type: "string", Operators: str},
			{Key: "duration_ms", Label: "Duration (ms)", Type: "number", Operators: []string{"EQ", "NEQ", "GT", "GTE", "LT", "LTE"}},
			{Key: "start_time", Label: "Start Time", Type: "datetime", Operators: cmpOps},
			{Key: "end_time", Label: "End Time", Type: "datetime", Operators: cmpOps},
			{Key: "created_at", Label: "Created At", Type: "datetime", Operators: cmpOps},
		},
		LogicalOperators: []string{"AND", "OR"},
	}
}()

// ---- formatting as agno's models serialise ----

// formatDuration is agno's format_duration_ms: "123ms", or "1.50s".
func formatDuration(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 2, 64) + "s"
}

// pyTime renders a UTC datetime as pydantic does: microseconds when
// there are any, and Z.
func pyTime(t time.Time) string {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05.000000Z")
}

// attrString is a string attribute, or nil.
func attrString(attrs map[string]any, key string) *string {
	if v, ok := attrs[key].(string); ok {
		return &v
	}
	return nil
}

// truthy is Python's truth of an attribute value (agno keeps metadata
// entries only for truthy values).
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case string:
		return t != ""
	case bool:
		return t
	case json.Number:
		f, _ := t.Float64()
		return f != 0
	case float64:
		return t != 0
	case int64:
		return t != 0
	case []any:
		return len(t) > 0
	}
	return true
}

func attrInt(v any) int64 {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return int64(f)
	case float64:
		return int64(t)
	case int64:
		return t
	}
	return 0
}

// spanKind is the span's openinference.span.kind.
func spanKind(sp *tracestore.Span) string {
	if k, ok := sp.Attributes[tracing.KeySpanKind].(string); ok {
		return k
	}
	return "UNKNOWN"
}

// spanType is agno's _derive_span_type: workflows (CHAIN) are WORKFLOW,
// agents carrying a team id are TEAM.
func spanType(sp *tracestore.Span) string {
	switch k := spanKind(sp); k {
	case tracing.KindChain:
		return "WORKFLOW"
	case tracing.KindAgent:
		if truthy(sp.Attributes[tracing.KeyTeamID]) || truthy(sp.Attributes["team.id"]) {
			return "TEAM"
		}
		return k
	default:
		return k
	}
}

func setIfTruthy(m map[string]any, key string, v any) {
	if truthy(v) {
		m[key] = v
	}
}

func workflowMetadata(m map[string]any, attrs map[string]any) {
	setIfTruthy(m, "description", attrs[tracing.KeyWorkflowDesc])
	setIfTruthy(m, "steps_count", attrs[tracing.KeyWorkflowStepsN])
	setIfTruthy(m, "steps", attrs[tracing.KeyWorkflowSteps])
	setIfTruthy(m, "step_types", attrs[tracing.KeyWorkflowStepType])
}

// spanNode is agno's TraceNode.from_span.
func spanNode(sp *tracestore.Span, children []TraceNode) TraceNode {
	a := sp.Attributes
	n := TraceNode{ID: sp.SpanID, Name: sp.Name, Type: spanType(sp), Duration: formatDuration(sp.DurationMS),
		StartTime: pyTime(sp.StartTime), EndTime: pyTime(sp.EndTime), Status: sp.StatusCode,
		Input: attrString(a, tracing.KeyInputValue), Output: attrString(a, tracing.KeyOutputValue), Spans: children}
	if sp.StatusCode == "ERROR" {
		n.Error = httpapi.NullString(sp.StatusMessage)
		if n.Error == nil {
			n.Error = attrString(a, tracing.KeyExceptionMessage)
		}
		n.Output = nil
	}
	md := map[string]any{}
	switch spanKind(sp) {
	case tracing.KindAgent:
		setIfTruthy(md, "run_id", a[tracing.KeyRunID])
	case tracing.KindLLM:
		setIfTruthy(md, "model", a[tracing.KeyModelName])
		setIfTruthy(md, "input_tokens", a[tracing.KeyTokensPrompt])
		setIfTruthy(md, "output_tokens", a[tracing.KeyTokensCompletion])
	case tracing.KindTool:
		setIfTruthy(md, "tool_name", a[tracing.KeyToolName])
		setIfTruthy(md, "parameters", a[tracing.KeyToolParameters])
	case tracing.KindChain:
		workflowMetadata(md, a)
	}
	setIfTruthy(md, "session_id", a[tracing.KeySessionID])
	setIfTruthy(md, "user_id", a[tracing.KeyUserID])
	if len(md) > 0 {
		n.Metadata = md
	}
	return n
}

// traceDetail is agno's TraceDetail.from_trace_and_spans.
func traceDetail(t *tracestore.Trace, spans []*tracestore.Span) TraceDetail {
	d := TraceDetail{TraceID: t.TraceID, Name: t.Name, Status: t.Status, Duration: formatDuration(t.DurationMS),
		StartTime: pyTime(t.StartTime), EndTime: pyTime(t.EndTime), TotalSpans: t.TotalSpans, ErrorCount: t.ErrorCount,
		RunID: httpapi.NullString(t.RunID), SessionID: httpapi.NullString(t.SessionID), UserID: httpapi.NullString(t.UserID), AgentID: httpapi.NullString(t.AgentID),
		TeamID: httpapi.NullString(t.TeamID), WorkflowID: httpapi.NullString(t.WorkflowID), CreatedAt: pyTime(t.CreatedAt), Tree: []TraceNode{}}
	children := map[string][]*tracestore.Span{}
	var roots []*tracestore.Span
	for _, sp := range spans {
		if sp.ParentSpanID == "" {
			roots = append(roots, sp)
		} else {
			children[sp.ParentSpanID] = append(children[sp.ParentSpanID], sp)
		}
	}
	byStart := func(l []*tracestore.Span) {
		sort.SliceStable(l, func(i, j int) bool { return l[i].StartTime.Before(l[j].StartTime) })
	}
	byStart(roots)
	if len(roots) > 0 {
		root := roots[0]
		d.Input = attrString(root.Attributes, tracing.KeyInputValue)
		if t.Status == "ERROR" || root.StatusCode == "ERROR" {
			d.Error = httpapi.NullString(root.StatusMessage)
			if d.Error == nil {
				d.Error = attrString(root.Attributes, tracing.KeyExceptionMessage)
			}
		} else {
			d.Output = attrString(root.Attributes, tracing.KeyOutputValue)
			empty := d.Output == nil || strings.TrimSpace(*d.Output) == "" || strings.TrimSpace(*d.Output) == "None"
			if spanKind(root) == tracing.KindChain && empty {
				// A workflow without output shows its last step's.
				steps := append([]*tracestore.Span(nil), children[root.SpanID]...)
				sort.SliceStable(steps, func(i, j int) bool { return steps[i].EndTime.After(steps[j].EndTime) })
				if len(steps) > 0 {
					d.Output = attrString(steps[0].Attributes, tracing.KeyOutputValue)
				}
			}
		}
	}
	var inTokens, outTokens int64
	for _, sp := range spans {
		if spanKind(sp) == tracing.KindLLM {
			inTokens += attrInt(sp.Attributes[tracing.KeyTokensPrompt])
			outTokens += attrInt(sp.Attributes[tracing.KeyTokensCompletion])
		}
	}
	var stepTypes []any
	for _, r := range roots {
		if spanKind(r) == tracing.KindChain {
			if l, ok := r.Attributes[tracing.KeyWorkflowStepType].([]any); ok && len(l) > 0 {
				stepTypes = l
				break
			}
		}
	}
	var build func(sp *tracestore.Span, root bool, step int) TraceNode
	build = func(sp *tracestore.Span, root bool, step int) TraceNode {
		kids := children[sp.SpanID]
		byStart(kids)
		var nodes []TraceNode
		for i, k := range kids {
			idx := -1
			if root && stepTypes != nil {
				idx = i
			}
			nodes = append(nodes, build(k, false, idx))
		}
		if !root {
			n := spanNode(sp, nodes)
			if step >= 0 && step < len(stepTypes) {
				if s, ok := stepTypes[step].(string); ok {
					n.StepType = &s
				}
			}
			return n
		}
		md := map[string]any{}
		if inTokens > 0 {
			md["total_input_tokens"] = inTokens
		}
		if outTokens > 0 {
			md["total_output_tokens"] = outTokens
		}
		if spanKind(sp) == tracing.KindChain {
			workflowMetadata(md, sp.Attributes)
		}
		n := TraceNode{ID: sp.SpanID, Name: sp.Name, Type: spanType(sp), Duration: formatDuration(t.DurationMS),
			StartTime: pyTime(t.StartTime), EndTime: pyTime(t.EndTime), Status: sp.StatusCode, Spans: nodes}
		if len(md) > 0 {
			n.Metadata = md
		}
		return n
	}
	for _, r := range roots {
		d.Tree = append(d.Tree, build(r, true, -1))
	}
	return d
}

func statsOut(st *tracestore.SessionStats) TraceSessionStats {
	return TraceSessionStats{SessionID: st.SessionID, UserID: httpapi.NullString(st.UserID), AgentID: httpapi.NullString(st.AgentID),
		TeamID: httpapi.NullString(st.TeamID), WorkflowID: httpapi.NullString(st.WorkflowID), TotalTraces: st.TotalTraces,
		FirstTraceAt: pyTime(st.FirstTraceAt), LastTraceAt: pyTime(st.LastTraceAt)}
}

// ---- handlers ----

// traceStore checks db_id (agno's get_db) and returns the store.
func (g *Group) traceStore(r *http.Request) (*tracestore.Store, error) {
	if id := r.URL.Query().Get("db_id"); id != "" && id != g.host.DBID() {
		return nil, httpapi.ErrStatus(http.StatusNotFound, "No database found with id '%s'", id)
	}
	if g.store == nil {
		return nil, httpapi.ErrStatus(http.StatusServiceUnavailable, "Traces not available: pass a `db` to AgentOS to enable this feature.")
	}
	return g.store, nil
}

// traceTime parses a start_time/end_time query value (agno's
// timestamp_to_datetime: 400 on a bad value).
func traceTime(q url.Values, name string) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, strings.Replace(v, " ", "T", 1))
	if err != nil {
		return time.Time{}, httpapi.ErrStatus(http.StatusBadRequest,
			"Invalid %s format. Use ISO 8601 format (e.g., '2025-11-19T10:00:00Z' or '2025-11-19T10:00:00+05:30'): Invalid isoformat string: '%s'", name, v)
	}
	return t, nil
}

// traceListing reads what GET /traces and /trace_session_stats share:
// the store, the page (from minPage) and the filters; ok false once it
// answered an error.
func (g *Group) traceListing(w http.ResponseWriter, r *http.Request, minPage int, withRun bool) (*tracestore.Store, tracestore.Query, bool) {
	store, err := g.traceStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, tracestore.Query{}, false
	}
	page, limit, ok := tracePage(w, r, minPage)
	if !ok {
		return nil, tracestore.Query{}, false
	}
	q, err := traceQuery(r, withRun)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, tracestore.Query{}, false
	}
	q.Page, q.Limit = page, limit
	return store, q, true
}

// traceQuery reads the filters shared by GET /traces and GET
// /trace_session_stats; an isolated caller sees its own traces only.
func traceQuery(r *http.Request, withRun bool) (tracestore.Query, error) {
	q := r.URL.Query()
	tq := tracestore.Query{UserID: q.Get("user_id"), AgentID: q.Get("agent_id"), TeamID: q.Get("team_id"), WorkflowID: q.Get("workflow_id")}
	if withRun {
		tq.RunID, tq.SessionID, tq.Status = q.Get("run_id"), q.Get("session_id"), q.Get("status")
	}
	if u := httpapi.ScopedUser(r.Context()); u != "" {
		tq.UserID = u
	}
	var err error
	if tq.Start, err = traceTime(q, "start_time"); err != nil {
		return tq, err
	}
	tq.End, err = traceTime(q, "end_time")
	return tq, err
}

func tracePage(w http.ResponseWriter, r *http.Request, minPage int) (page, limit int, ok bool) {
	q := r.URL.Query()
	page, e1 := httpapi.IntQuery(q, "page", 1, minPage, 0)
	limit, e2 := httpapi.IntQuery(q, "limit", 20, 1, 0)
	if errs := append(e1, e2...); len(errs) > 0 {
		httpapi.WriteValidation(w, errs...)
		return 0, 0, false
	}
	return page, limit, true
}

// traceSummaries shapes traces with their root span's input.
func traceSummaries(ctx context.Context, store *tracestore.Store, traces []*tracestore.Trace) ([]TraceSummary, error) {
	out := make([]TraceSummary, 0, len(traces))
	for _, t := range traces {
		spans, err := store.Spans(ctx, t.TraceID)
		if err != nil {
			return nil, err
		}
		s := TraceSummary{TraceID: t.TraceID, Name: t.Name, Status: t.Status, Duration: formatDuration(t.DurationMS),
			StartTime: pyTime(t.StartTime), EndTime: pyTime(t.EndTime), TotalSpans: t.TotalSpans, ErrorCount: t.ErrorCount,
			RunID: httpapi.NullString(t.RunID), SessionID: httpapi.NullString(t.SessionID), UserID: httpapi.NullString(t.UserID), AgentID: httpapi.NullString(t.AgentID),
			TeamID: httpapi.NullString(t.TeamID), WorkflowID: httpapi.NullString(t.WorkflowID), CreatedAt: pyTime(t.CreatedAt)}
		for _, sp := range spans {
			if sp.ParentSpanID == "" {
				s.Input = attrString(sp.Attributes, tracing.KeyInputValue)
				break
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// handleTraces is GET /traces.
func (g *Group) handleTraces(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	store, q, ok := g.traceListing(w, r, 0, true)
	if !ok {
		return
	}
	traces, total, err := store.Traces(r.Context(), q)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving traces: "+err.Error())
		return
	}
	data, err := traceSummaries(r.Context(), store, traces)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving traces: "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, time.Since(start)))
}

// handleTraceFilterSchema is GET /traces/filter-schema.
func (g *Group) handleTraceFilterSchema(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteJSON(w, http.StatusOK, traceFilterSchema)
}

// handleTrace is GET /traces/{trace_id}: the trace's tree, or with
// span_id one of its spans.
func (g *Group) handleTrace(w http.ResponseWriter, r *http.Request) {
	store, err := g.traceStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	ctx, traceID, q := r.Context(), r.PathValue("trace_id"), r.URL.Query()
	t, err := store.Trace(ctx, traceID, "")
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving trace: "+err.Error())
		return
	}
	if u := httpapi.ScopedUser(ctx); u != "" && t != nil && t.UserID != u {
		t = nil // another user's trace does not exist for an isolated caller
	}
	if spanID := q.Get("span_id"); spanID != "" {
		sp, err := store.Span(ctx, spanID)
		if err != nil {
			httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving trace: "+err.Error())
			return
		}
		if sp == nil || (httpapi.ScopedUser(ctx) != "" && t == nil) {
			httpapi.WriteError(w, http.StatusNotFound, "Span not found")
			return
		}
		if sp.TraceID != traceID {
			httpapi.WriteError(w, http.StatusNotFound, fmt.Sprintf("Span %s does not belong to trace %s", spanID, traceID))
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, spanNode(sp, nil))
		return
	}
	if t == nil {
		httpapi.WriteError(w, http.StatusNotFound, "Trace not found")
		return
	}
	spans, err := store.Spans(ctx, traceID)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving trace: "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, traceDetail(t, spans))
}

// handleTraceSessionStats is GET /trace_session_stats.
func (g *Group) handleTraceSessionStats(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	store, q, ok := g.traceListing(w, r, 1, false)
	if !ok {
		return
	}
	stats, total, err := store.SessionStats(r.Context(), q)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error retrieving statistics: "+err.Error())
		return
	}
	data := make([]TraceSessionStats, 0, len(stats))
	for _, st := range stats {
		data = append(data, statsOut(st))
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, time.Since(start)))
}

// bodyInt reads an integer field of a JSON body as pydantic's lax mode
// does, within [lo, hi] (hi 0: no bound); def when absent.
func bodyInt(b *httpapi.JSONBody, name string, def, lo, hi int) int {
	raw, ok := b.Obj[name]
	if !ok || b.Bad {
		return def
	}
	loc := []string{name}
	var n int
	switch v := raw.(type) {
	case float64:
		// An integer is read from its text: a float64 cannot hold every
		// int64 (9223372036854775807 is not one).
		if i, err := strconv.Atoi(strings.TrimSpace(string(b.Fields[name]))); err == nil {
			n = i
			break
		}
		if v != math.Trunc(v) {
			b.Reject(loc, "Input should be a valid integer, got a number with a fractional part", "int_from_float")
			return def
		}
		switch { // beyond int64 (1e30): the nearest int, not a wrapped one
		case v >= math.MaxInt64:
			n = math.MaxInt
		case v <= math.MinInt64:
			n = math.MinInt
		default:
			n = int(v)
		}
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			b.Reject(loc, "Input should be a valid integer, unable to parse string as an integer", "int_parsing")
			return def
		}
		n = i
	default:
		b.Reject(loc, "Input should be a valid integer", "int_type")
		return def
	}
	switch {
	case n < lo:
		b.RejectCtx(loc, fmt.Sprintf("Input should be greater than or equal to %d", lo), "greater_than_equal", map[string]any{"ge": lo})
	case hi > 0 && n > hi:
		b.RejectCtx(loc, fmt.Sprintf("Input should be less than or equal to %d", hi), "less_than_equal", map[string]any{"le": hi})
	}
	return n
}

// handleTraceSearch is POST /traces/search: traces matching a FilterExpr,
// as trace details or (group_by session) session stats.
func (g *Group) handleTraceSearch(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	store, err := g.traceStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	groupBy := "run"
	if v, ok := b.Obj["group_by"]; ok {
		s, isStr := v.(string)
		if !isStr || (s != "run" && s != "session") {
			b.RejectCtx([]string{"group_by"}, "Input should be 'run' or 'session'", "enum", map[string]any{"expected": "'run' or 'session'"})
		}
		groupBy = s
	}
	page := bodyInt(b, "page", 1, 1, 0)
	limit := bodyInt(b, "limit", 20, 1, 100)
	var raw any
	if v, ok := b.Obj["filter"]; ok && v != nil {
		if _, isMap := v.(map[string]any); !isMap {
			b.Reject([]string{"filter"}, "Input should be a valid dictionary", "dict_type")
		}
		raw = v
	}
	if b.Bad {
		return
	}
	q := tracestore.Query{Page: page, Limit: limit, UserID: httpapi.ScopedUser(r.Context())}
	if raw != nil {
		f, err := tracestore.ParseFilter(raw)
		if err == nil {
			err = f.Validate()
		}
		if err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "Invalid filter expression: "+err.Error())
			return
		}
		q.Filter = f
	}
	ctx := r.Context()
	if groupBy == "session" {
		stats, total, err := store.SessionStats(ctx, q)
		if err != nil {
			searchFailed(w, err)
			return
		}
		data := make([]TraceSessionStats, 0, len(stats))
		for _, st := range stats {
			data = append(data, statsOut(st))
		}
		httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, time.Since(start)))
		return
	}
	traces, total, err := store.Traces(ctx, q)
	if err != nil {
		searchFailed(w, err)
		return
	}
	data := make([]TraceDetail, 0, len(traces))
	for _, t := range traces {
		spans, err := store.Spans(ctx, t.TraceID)
		if err != nil {
			searchFailed(w, err)
			return
		}
		data = append(data, traceDetail(t, spans))
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, time.Since(start)))
}

func searchFailed(w http.ResponseWriter, err error) {
	var fe *tracestore.FilterError
	if errors.As(err, &fe) {
		httpapi.WriteError(w, http.StatusBadRequest, "Invalid filter expression: "+fe.Msg)
		return
	}
	httpapi.WriteError(w, http.StatusInternalServerError, "Error searching traces: "+err.Error())
}
