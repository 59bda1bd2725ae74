package tracestore_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func span(trace, id, parent, name string, startMS, endMS int, status string, attrs map[string]any) tracestore.Span {
	return tracestore.Span{SpanID: id, TraceID: trace, ParentSpanID: parent, Name: name, SpanKind: "INTERNAL",
		StatusCode: status, StartTime: t0.Add(time.Duration(startMS) * time.Millisecond),
		EndTime: t0.Add(time.Duration(endMS) * time.Millisecond), DurationMS: int64(endMS - startMS), Attributes: attrs}
}

func open(t *testing.T, db *sqldb.DB) *tracestore.Store {
	t.Helper()
	s, err := tracestore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	// Opening again is a no-op (migrations are versioned).
	if _, err := tracestore.Open(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return s
}

// seed writes three traces: a team run in two batches (children first,
// one failing), an agent run, and a workflow run without a session.
func seed(t *testing.T, s *tracestore.Store) {
	t.Helper()
	ctx := context.Background()
	batch1 := []tracestore.Span{
		span("t1", "s-llm", "s-team", "OpenAIChat.invoke", 10, 200, "OK", map[string]any{"openinference.span.kind": "LLM", "agno.agent.id": "member"}),
		span("t1", "s-tool", "s-team", "lookup", 210, 260, "ERROR", map[string]any{"openinference.span.kind": "TOOL"}),
	}
	batch2 := []tracestore.Span{
		span("t1", "s-team", "", "Crew.run", 0, 1500, "OK", map[string]any{"openinference.span.kind": "AGENT",
			"agno.team.id": "crew", "agno.run.id": "run-1", "session.id": "sess-a", "user.id": "alice", "input.value": "hi"}),
	}
	agentRun := []tracestore.Span{
		span("t2", "s-a", "", "Helper.run", 2000, 2100, "OK", map[string]any{"openinference.span.kind": "AGENT",
			"agno.agent.id": "helper", "agno.run.id": "run-2", "session.id": "sess-a", "user.id": "alice"}),
	}
	wf := []tracestore.Span{
		span("t3", "s-w", "", "Pipeline.run", 5000, 5050, "OK", map[string]any{"openinference.span.kind": "CHAIN",
			"agno.workflow.id": "pipe", "agno.run.id": "run-3", "user.id": "bob"}),
	}
	for _, b := range [][]tracestore.Span{batch1, batch2, agentRun, wf} {
		if err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// A span exported twice is kept once.
	if err := s.Write(ctx, batch1[:1]); err != nil {
		t.Fatal(err)
	}
}

func ids(ts []*tracestore.Trace) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.TraceID)
	}
	return out
}

func TestStore(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := open(t, db)
		seed(t, s)
		ctx := context.Background()

		tr, err := s.Trace(ctx, "t1", "")
		if err != nil || tr == nil {
			t.Fatal(tr, err)
		}
		// The root's name and context win over the children stored first;
		// the failed child makes the trace ERROR; times cover all spans.
		if tr.Name != "Crew.run" || tr.TeamID != "crew" || tr.AgentID != "" || tr.RunID != "run-1" || tr.SessionID != "sess-a" ||
			tr.UserID != "alice" || tr.Status != "ERROR" || tr.TotalSpans != 3 || tr.ErrorCount != 1 ||
			tr.DurationMS != 1500 || !tr.StartTime.Equal(t0) || !tr.EndTime.Equal(t0.Add(1500*time.Millisecond)) {
			t.Errorf("trace t1 = %+v", tr)
		}
		if byRun, _ := s.Trace(ctx, "", "run-2"); byRun == nil || byRun.TraceID != "t2" {
			t.Errorf("trace by run id = %+v", byRun)
		}
		if none, err := s.Trace(ctx, "nope", ""); none != nil || err != nil {
			t.Errorf("missing trace = %v, %v", none, err)
		}

		spans, err := s.Spans(ctx, "t1")
		if err != nil || len(spans) != 3 || spans[0].SpanID != "s-team" || spans[0].ParentSpanID != "" || spans[1].ParentSpanID != "s-team" {
			t.Fatalf("spans = %v, %v", spans, err)
		}
		if spans[0].Attributes["input.value"] != "hi" {
			t.Errorf("attributes = %v", spans[0].Attributes)
		}
		if sp, _ := s.Span(ctx, "s-tool"); sp == nil || sp.StatusCode != "ERROR" || sp.TraceID != "t1" {
			t.Errorf("span = %+v", sp)
		}

		for _, c := range []struct {
			q    tracestore.Query
			want []string
		}{
			{tracestore.Query{}, []string{"t3", "t2", "t1"}},
			{tracestore.Query{SessionID: "sess-a"}, []string{"t2", "t1"}},
			{tracestore.Query{UserID: "bob"}, []string{"t3"}},
			{tracestore.Query{TeamID: "crew"}, []string{"t1"}},
			{tracestore.Query{Status: "ERROR"}, []string{"t1"}},
			{tracestore.Query{Start: t0.Add(time.Second)}, []string{"t3", "t2"}},
			{tracestore.Query{End: t0.Add(3 * time.Second)}, []string{"t2", "t1"}},
			{tracestore.Query{Limit: 2, Page: 2}, []string{"t1"}},
		} {
			got, total, err := s.Traces(ctx, c.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), c.want) {
				t.Errorf("Traces(%+v) = %v, want %v", c.q, ids(got), c.want)
			}
			if c.q.Limit == 0 && total != len(c.want) || c.q.Limit == 2 && total != 3 {
				t.Errorf("Traces(%+v) total = %d", c.q, total)
			}
		}

		stats, total, err := s.SessionStats(ctx, tracestore.Query{})
		if err != nil || total != 1 || len(stats) != 1 {
			t.Fatalf("session stats = %v %d %v", stats, total, err)
		}
		if st := stats[0]; st.SessionID != "sess-a" || st.TotalTraces != 2 || st.UserID != "alice" || st.TeamID != "crew" ||
			st.AgentID != "helper" || st.FirstTraceAt.After(st.LastTraceAt) {
			t.Errorf("session stats = %+v", st)
		}
		if stats, _, _ := s.SessionStats(ctx, tracestore.Query{AgentID: "nobody"}); len(stats) != 0 {
			t.Errorf("filtered session stats = %v", stats)
		}
	})
}

func filter(t *testing.T, doc string) *tracestore.Filter {
	t.Helper()
	var raw any
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatal(err)
	}
	f, err := tracestore.ParseFilter(raw)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return f
}

func TestFilters(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := open(t, db)
		seed(t, s)
		ctx := context.Background()
		for _, c := range []struct {
			doc  string
			want []string
		}{
			{`{"op":"EQ","key":"status","value":"OK"}`, []string{"t3", "t2"}},
			{`{"op":"NEQ","key":"name","value":"Crew.run"}`, []string{"t3", "t2"}},
			{`{"op":"GT","key":"duration_ms","value":100}`, []string{"t1"}},
			{`{"op":"GTE","key":"duration_ms","value":100}`, []string{"t2", "t1"}},
			{`{"op":"LT","key":"duration_ms","value":"100"}`, []string{"t3"}},
			{`{"op":"LTE","key":"start_time","value":"2026-03-01T10:00:02Z"}`, []string{"t2", "t1"}},
			{`{"op":"GT","key":"start_time","value":"2026-03-01T12:00:02+02:00"}`, []string{"t3"}},
			{`{"op":"IN","key":"run_id","values":["run-1","run-3"]}`, []string{"t3", "t1"}},
			{`{"op":"IN","key":"run_id","values":[]}`, nil},
			{`{"op":"CONTAINS","key":"name","value":"CREW"}`, []string{"t1"}},
			{`{"op":"CONTAINS","key":"name","value":"%"}`, nil},
			{`{"op":"STARTSWITH","key":"name","value":"Help"}`, []string{"t2"}},
			{`{"op":"STARTSWITH","key":"name","value":"help"}`, nil},
			{`{"op":"AND","conditions":[{"op":"EQ","key":"session_id","value":"sess-a"},{"op":"EQ","key":"status","value":"OK"}]}`, []string{"t2"}},
			{`{"op":"OR","conditions":[{"op":"EQ","key":"team_id","value":"crew"},{"op":"EQ","key":"workflow_id","value":"pipe"}]}`, []string{"t3", "t1"}},
			{`{"op":"NOT","condition":{"op":"EQ","key":"user_id","value":"alice"}}`, []string{"t3"}},
		} {
			got, total, err := s.Traces(ctx, tracestore.Query{Filter: filter(t, c.doc)})
			if err != nil {
				t.Fatalf("%s: %v", c.doc, err)
			}
			if !slices.Equal(ids(got), c.want) || total != len(c.want) {
				t.Errorf("%s = %v (%d), want %v", c.doc, ids(got), total, c.want)
			}
		}
		stats, _, err := s.SessionStats(ctx, tracestore.Query{Filter: filter(t, `{"op":"EQ","key":"agent_id","value":"helper"}`)})
		if err != nil || len(stats) != 1 || stats[0].TotalTraces != 1 {
			t.Errorf("session stats with a filter = %v, %v", stats, err)
		}
		// A value of the wrong type is a filter error, not a database error.
		_, _, err = s.Traces(ctx, tracestore.Query{Filter: filter(t, `{"op":"GT","key":"duration_ms","value":"slow"}`)})
		var fe *tracestore.FilterError
		if !errors.As(err, &fe) {
			t.Errorf("bad number: %v", err)
		}
	})
}

func TestParseFilterErrors(t *testing.T) {
	for doc, want := range map[string]string{
		`{"key":"x"}`:                `Invalid filter dictionary: must contain 'op' key. Got: {"key":"x"}`,
		`[1]`:                        `Invalid filter dictionary: must contain 'op' key. Got: [1]`,
		`{"op":"XOR"}`:               `Unknown filter operator: XOR`,
		`{"op":"IN","key":"run_id"}`: `IN filter requires 'key' and 'values' fields. Got: {"key":"run_id","op":"IN"}`,
		`{"op":"IN","key":"run_id","values":"a"}`: `IN filter 'values' must be a list. Got: {"key":"run_id","op":"IN","values":"a"}`,
		`{"op":"NOT"}`:                           `NOT filter requires 'condition' field. Got: {"op":"NOT"}`,
		`{"op":"OR","conditions":[{"op":"EQ"}]}`: `EQ filter requires 'key' and 'value' fields. Got: {"op":"EQ"}`,
		`{"op":"EQ","key":"attributes","value":1}`: "Invalid filter field: 'attributes'. Allowed: ['agent_id', 'created_at', 'duration_ms', 'end_time', " +
			"'name', 'run_id', 'session_id', 'start_time', 'status', 'team_id', 'trace_id', 'user_id', 'workflow_id']",
	} {
		var raw any
		if err := json.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatal(err)
		}
		_, err := tracestore.ParseFilter(raw)
		var fe *tracestore.FilterError
		if !errors.As(err, &fe) || fe.Msg != want {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}

func TestExporterConvertsSpans(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := open(t, db)
		traceID, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
		rootID, _ := trace.SpanIDFromHex("b7ad6b7169203331")
		childID, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
		root := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: rootID})
		stubs := tracetest.SpanStubs{
			{Name: "Agent.run", SpanContext: root, StartTime: t0, EndTime: t0.Add(2500 * time.Millisecond), SpanKind: trace.SpanKindInternal,
				Status:     sdktrace.Status{Code: codes.Error, Description: "model down"},
				Attributes: []attribute.KeyValue{attribute.String("agno.run.id", "r1"), attribute.Int("llm.token_count.prompt", 7), attribute.StringSlice("agno.tools", []string{"a", "b"})}},
			{Name: "lookup", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: childID}), Parent: root,
				StartTime: t0.Add(time.Millisecond), EndTime: t0.Add(3 * time.Millisecond), SpanKind: trace.SpanKindClient, Status: sdktrace.Status{Code: codes.Ok}},
		}
		exp := s.Exporter()
		if err := exp.ExportSpans(context.Background(), stubs.Snapshots()); err != nil {
			t.Fatal(err)
		}
		tr, _ := s.Trace(context.Background(), "0af7651916cd43dd8448eb211c80319c", "")
		if tr == nil || tr.Name != "Agent.run" || tr.RunID != "r1" || tr.Status != "ERROR" || tr.DurationMS != 2500 || tr.TotalSpans != 2 {
			t.Fatalf("trace = %+v", tr)
		}
		spans, _ := s.Spans(context.Background(), tr.TraceID)
		if r := spans[0]; r.SpanID != "b7ad6b7169203331" || r.StatusCode != "ERROR" || r.StatusMessage != "model down" || r.SpanKind != "INTERNAL" ||
			r.Attributes["llm.token_count.prompt"] != json.Number("7") || len(r.Attributes["agno.tools"].([]any)) != 2 {
			t.Errorf("root span = %+v", r)
		}
		if c := spans[1]; c.ParentSpanID != "b7ad6b7169203331" || c.SpanKind != "CLIENT" || c.StatusCode != "OK" || c.DurationMS != 2 {
			t.Errorf("child span = %+v", c)
		}
		if err := exp.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := exp.ExportSpans(context.Background(), tracetest.SpanStubs{{Name: "late", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: [16]byte{1}, SpanID: [8]byte{1}})}}.Snapshots()); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := s.Traces(context.Background(), tracestore.Query{}); len(got) != 1 {
			t.Errorf("a span exported after Shutdown was stored: %v", ids(got))
		}
	})
}
