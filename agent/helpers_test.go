package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

func newAgent(t testing.TB, cfg agent.Config) *agent.Agent {
	t.Helper()
	a, err := agent.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func calls(tc ...model.ToolCall) modeltest.Response { return modeltest.Response{ToolCalls: tc} }

func text(s string) modeltest.Response { return modeltest.Response{Content: s} }

type echoArgs struct {
	Text string `json:"text"`
}

func echoTool(t testing.TB, opts ...tool.Option) *tool.Function {
	t.Helper()
	return tool.Must(tool.New("echo", "Echo text", func(_ context.Context, a echoArgs) (string, error) {
		return "echo:" + a.Text, nil
	}, opts...))
}

// toolMessages returns the tool-role messages of a request, in order.
func toolMessages(req *model.Request) []model.Message {
	var out []model.Message
	for _, m := range req.Messages {
		if m.Role == model.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

func collect(t testing.TB, seq func(func(run.Event, error) bool)) []run.Event {
	t.Helper()
	var evs []run.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func kinds(evs []run.Event) string {
	var ks []string
	for _, e := range evs {
		ks = append(ks, e.Kind())
	}
	return strings.Join(ks, " ")
}
