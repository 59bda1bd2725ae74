package contextprovider_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/contextprovider"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// writeAgent is a scripted sub-agent: it emits two tool-call events and
// answers "wrote successfully" (A10 case 1).
type writeAgent struct{}

func (writeAgent) ID() string   { return "writer" }
func (writeAgent) Name() string { return "Writer" }
func (writeAgent) Execute(_ context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	for _, id := range []string{"write_call_1", "write_call_2"} {
		emit(run.Stamp(&run.ToolCallStarted{EventBase: run.EventBase{AgentID: "writer", RunID: "sub-run"}, Tool: &run.ToolExecution{ToolCallID: id, ToolName: "write"}}))
	}
	return &run.Output{RunID: "sub-run", Status: run.StatusCompleted, Content: "wrote successfully"}, nil
}
func (writeAgent) ExecuteContinue(context.Context, *run.ContinueRequest, run.Emitter) (*run.Output, error) {
	return nil, nil
}

type source struct {
	updateAgent run.Executor
	update      func(string) (contextprovider.Answer, error)
}

func (s *source) Query(context.Context, string, *run.Context) (contextprovider.Answer, error) {
	return contextprovider.Answer{Text: "q"}, nil
}

type updatable struct{ *source }

func (u updatable) Update(_ context.Context, instr string, _ *run.Context) (contextprovider.Answer, error) {
	return u.update(instr)
}

type agentSource struct{ *source }

func (a agentSource) UpdateAgent(context.Context, *run.Context) (run.Executor, error) {
	return a.updateAgent, nil
}

type ValueError struct{ msg string }

func (e *ValueError) Error() string { return e.msg }

func toolNamed(t *testing.T, p *contextprovider.Provider, name string) *tool.Function {
	t.Helper()
	fns, err := p.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

func call(t *testing.T, f *tool.Function, ctx context.Context, args map[string]any) string {
	t.Helper()
	res, err := f.Invoke(ctx, &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestUpdateStreamsSubAgentEvents(t *testing.T) { // A10 cases 1 and 2
	p, _ := contextprovider.New(contextprovider.Config{ID: "MyThing", Source: agentSource{&source{updateAgent: writeAgent{}}}})
	rc := run.NewContext(nil)
	rc.RunID = "parent-write-456"
	var got []run.Event
	ctx := run.WithEmitter(run.WithContext(context.Background(), rc), func(e run.Event) bool { got = append(got, e); return true })
	out := call(t, toolNamed(t, p, "update_mything"), ctx, map[string]any{"instruction": "write it"})
	if len(got) != 2 || got[0].(*run.ToolCallStarted).Tool.ToolCallID != "write_call_1" || got[1].(*run.ToolCallStarted).Tool.ToolCallID != "write_call_2" {
		t.Fatalf("forwarded events: %+v", got)
	}
	for _, e := range got {
		if e.Base().ParentRunID != "parent-write-456" {
			t.Fatalf("parent_run_id = %q", e.Base().ParentRunID)
		}
	}
	if !strings.Contains(out, "wrote successfully") || out != `{"text": "wrote successfully"}` {
		t.Fatalf("result %q", out)
	}
}

func TestUpdateFallsBackToSource(t *testing.T) { // A10 case 3
	p, _ := contextprovider.New(contextprovider.Config{ID: "wiki", Source: updatable{&source{update: func(s string) (contextprovider.Answer, error) {
		return contextprovider.Answer{Text: "u:" + s}, nil
	}}}})
	if got := call(t, toolNamed(t, p, "update_wiki"), context.Background(), map[string]any{"instruction": "hello"}); got != `{"text": "u:hello"}` {
		t.Fatalf("got %q", got)
	}
}

func TestReadOnlyAndErrors(t *testing.T) { // A10 case 4
	p, _ := contextprovider.New(contextprovider.Config{ID: "docs", Name: "Docs", Source: &source{}})
	if got := call(t, toolNamed(t, p, "update_docs"), context.Background(), map[string]any{"instruction": "x"}); got != `{"error": "Docs is read-only"}` {
		t.Fatalf("got %q", got)
	}
	p, _ = contextprovider.New(contextprovider.Config{ID: "db", Source: updatable{&source{update: func(string) (contextprovider.Answer, error) {
		return contextprovider.Answer{}, &ValueError{"aupdate boom"}
	}}}})
	got := call(t, toolNamed(t, p, "update_db"), context.Background(), map[string]any{"instruction": "x"})
	if !strings.Contains(got, "ValueError") || !strings.Contains(got, "aupdate boom") || got != `{"error": "ValueError: aupdate boom"}` {
		t.Fatalf("got %q", got)
	}
	if got := call(t, toolNamed(t, p, "query_db"), context.Background(), map[string]any{"question": "?"}); got != `{"text": "q"}` {
		t.Fatalf("query %q", got)
	}
}

func TestToolNames(t *testing.T) { // A10 case 5
	p, _ := contextprovider.New(contextprovider.Config{ID: "MyThing", Source: &source{}})
	toolNamed(t, p, "query_mything")
	toolNamed(t, p, "update_mything")
	p, _ = contextprovider.New(contextprovider.Config{ID: "My-Provider.2", Source: &source{}})
	toolNamed(t, p, "query_my_provider_2")
	p, _ = contextprovider.New(contextprovider.Config{ID: "!!!", Source: &source{}})
	toolNamed(t, p, "query_context")
	no := false
	p, _ = contextprovider.New(contextprovider.Config{ID: "ro", Write: &no, Source: &source{}})
	fns, _ := p.Functions(context.Background())
	if len(fns) != 1 || fns[0].Name != "query_ro" {
		t.Fatalf("read-only provider tools: %v", fns)
	}
}
