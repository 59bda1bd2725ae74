package contextprovider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/contextprovider"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// wire returns a real OpenAI client against a fake OpenAI-wire server.
func wire(t *testing.T, fn modeltest.Responder) (model.Model, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "fake-model", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

func last(req *model.Request) model.Message { return req.Messages[len(req.Messages)-1] }

func toolCallResp(id, name, args string) modeltest.Response {
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall(id, name, args)}}
}

// agentQuery hands every query to a real sub-agent; its Query fallback
// must not be reached.
type agentQuery struct{ sub run.Executor }

func (agentQuery) Query(context.Context, string, *run.Context) (contextprovider.Answer, error) {
	return contextprovider.Answer{}, errors.New("fallback used instead of the sub-agent")
}

func (a agentQuery) QueryAgent(context.Context, *run.Context) (run.Executor, error) {
	return a.sub, nil
}

// providerRun streams a parent agent that calls query_mything once; the
// provider's sub-agent calls its own lookup tool, then answers.
func providerRun(t *testing.T, toParent *bool) (evs []run.Event, subAsked, parentGot string) {
	t.Helper()
	lookup := tool.Must(tool.New("lookup", "Look up", func(context.Context, struct{}) (string, error) { return "42", nil }))
	sm, ssrv := wire(t, func(req *model.Request) modeltest.Response {
		if last(req).Role == model.RoleTool {
			return modeltest.Response{Content: "the answer is 42"}
		}
		return toolCallResp("l", "lookup", `{}`)
	})
	sub, err := agent.New(agent.Config{Name: "Helper", Model: sm, Tools: []tool.Provider{lookup}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := contextprovider.New(contextprovider.Config{ID: "MyThing", StreamToParent: toParent, Source: agentQuery{sub}})
	if err != nil {
		t.Fatal(err)
	}
	pm, psrv := wire(t, func(req *model.Request) modeltest.Response {
		if m := last(req); m.Role == model.RoleTool {
			return modeltest.Response{Content: "done"}
		}
		return toolCallResp("q", "query_mything", `{"question":"what is the answer?"}`)
	})
	parent, err := agent.New(agent.Config{Name: "Boss", Model: pm, Tools: []tool.Provider{p}})
	if err != nil {
		t.Fatal(err)
	}
	for ev, err := range parent.RunStream(context.Background(), "go", run.WithStreamEvents(true), run.WithRunID("parent-run")) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if r := ssrv.Requests(); len(r) > 0 {
		subAsked = r[0].Request.Messages[len(r[0].Request.Messages)-1].Content
	}
	if r := psrv.Requests(); len(r) == 2 {
		parentGot = last(r[1].Request).Content
	}
	return evs, subAsked, parentGot
}

// parentToolWindow finds the parent's ToolCallStarted/Completed for name.
func parentToolWindow(t *testing.T, evs []run.Event, name string) (int, int) {
	t.Helper()
	start, end := -1, -1
	for i, e := range evs {
		if e.Base().AgentID != "boss" {
			continue
		}
		if x, ok := e.(*run.ToolCallStarted); ok && x.Tool.ToolName == name {
			start = i
		}
		if x, ok := e.(*run.ToolCallCompleted); ok && x.Tool.ToolName == name {
			end = i
		}
	}
	if start < 0 || end < start {
		t.Fatalf("parent %s events missing", name)
	}
	return start, end
}

// The tool result is the sub-agent's streamed content followed by the
// JSON answer: agno v2.6.13 appends RunContent events and the tool's
// final string alike to the function output.
const wantResult = `the answer is 42{"text": "the answer is 42"}`

func TestE2EProviderSubAgentStreamsToParent(t *testing.T) {
	evs, asked, got := providerRun(t, nil)
	start, end := parentToolWindow(t, evs, "query_mything")
	var inner []string
	var subLookup *run.ToolCallCompleted
	for _, e := range evs[start+1 : end] {
		b := e.Base()
		if b.AgentID != "helper" || b.ParentRunID != "parent-run" || b.RunID == "" || b.RunID == "parent-run" {
			t.Fatalf("event %s inside the tool call: %+v", e.Kind(), b)
		}
		if x, ok := e.(*run.ToolCallCompleted); ok {
			subLookup = x
		}
		inner = append(inner, e.Kind())
	}
	for i, e := range evs {
		if (i < start || i > end) && e.Base().AgentID == "helper" {
			t.Fatalf("sub-agent event %s outside the parent's tool call", e.Kind())
		}
	}
	joined := strings.Join(inner, " ")
	for _, want := range []string{"RunStarted", "ToolCallStarted", "ToolCallCompleted", "RunContent", "RunCompleted"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("sub-agent events inside query_mything: %s (missing %s)", joined, want)
		}
	}
	if subLookup == nil || subLookup.Tool.ToolName != "lookup" || subLookup.Tool.ResultText() != "42" {
		t.Fatalf("sub-agent tool call %+v", subLookup)
	}
	if asked != "what is the answer?" || got != wantResult {
		t.Fatalf("sub-agent asked %q; parent tool result %q", asked, got)
	}
}

func TestE2EProviderStreamToParentOff(t *testing.T) {
	off := false
	evs, asked, got := providerRun(t, &off)
	start, end := parentToolWindow(t, evs, "query_mything")
	if end != start+1 {
		t.Fatalf("events inside the tool call with StreamToParent off: %d", end-start-1)
	}
	for _, e := range evs {
		if e.Base().AgentID != "boss" {
			t.Fatalf("sub-agent event %s forwarded with StreamToParent off", e.Kind())
		}
	}
	// The sub-agent still ran and answered.
	if asked != "what is the answer?" || got != wantResult {
		t.Fatalf("sub-agent asked %q; parent tool result %q", asked, got)
	}
}
