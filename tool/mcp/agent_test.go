package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// An agent uses an MCP toolkit transparently: connected on first use; a
// server killed mid-call is a ToolCallError with an error tool message and
// the run goes on; the next run reconnects; closing the agent closes the
// toolkit and its server process.
func TestAgentWithMCPServerThatDies(t *testing.T) {
	tools, err := New(stdioConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "in-call")
	var round atomic.Int32
	var failed model.Message // the tool message the model got for the killed call
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			if last.ToolName == "slow" {
				failed = last
			}
			return modeltest.Response{Content: "after tool: " + last.Content}
		}
		if round.Add(1) == 1 {
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "slow", `{"ms":60000,"marker":`+strconv.Quote(marker)+`}`)}}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c2", "echo", `{"message":"  padded  "}`)}}
	})
	a, err := agent.New(agent.Config{Name: "MCP User", Model: m, Tools: []tool.Provider{tools}})
	if err != nil {
		t.Fatal(err)
	}
	if tools.Connected() {
		t.Fatal("connected before first use")
	}
	go func() {
		eventually(t, "the server to be inside the call", func() bool {
			b, err := os.ReadFile(marker)
			if err != nil {
				return false
			}
			pid, err := strconv.Atoi(string(b))
			if err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return err == nil
		})
	}()
	var toolErr *run.ToolCallError
	var out *run.Output
	for ev, err := range a.RunStream(context.Background(), "call slow", run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		if te, ok := ev.(*run.ToolCallError); ok {
			toolErr = te
		}
		if c, ok := ev.(*run.RunCompleted); ok {
			out = &run.Output{Content: c.Content, Status: run.StatusCompleted}
		}
	}
	if toolErr == nil || toolErr.Tool.ToolName != "slow" {
		t.Fatal("no ToolCallError for the killed server")
	}
	// As in agno, the model gets the error's text as the tool message,
	// flagged tool_call_error; the event carries the same text.
	wantText := `mcp tool "slow" on ` + tools.String() + ": " + ErrSessionLost.Error() + ": "
	if !failed.ToolCallError || failed.ToolCallID != "c1" || !strings.HasPrefix(failed.Content, wantText) ||
		len(failed.Content) == len(wantText) || failed.Content != toolErr.Error {
		t.Fatalf("tool message %+v\nwant content %q + the cause, as in the event (%q)", failed, wantText, toolErr.Error)
	}
	if out == nil || out.ContentString() != "after tool: "+failed.Content {
		t.Fatalf("run did not go on after the tool error: %+v", out)
	}
	// The next run reconnects; the argument reaches the server byte for byte.
	out2, err := a.Run(context.Background(), "echo")
	if err != nil || out2.Status != run.StatusCompleted || out2.Content != `after tool: "  padded  "` {
		t.Fatalf("second run: %v %s %q", err, out2.Status, out2.Content)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if tools.OpenSessions() != 0 {
		t.Fatalf("OpenSessions after agent Close: %d", tools.OpenSessions())
	}
	settle(t, 0)
}

// Instructions and AddInstructions are agno's Toolkit arguments: with
// AddInstructions the agent's system message carries them, beside the
// reference server's tools; without, it does not.
func TestAgentWithMCPInstructions(t *testing.T) {
	for _, add := range []bool{true, false} {
		cfg := everythingStdio(t)
		cfg.Instructions = "Echo every message through the echo tool."
		cfg.AddInstructions = add
		cfg.IncludeTools = []string{"echo"}
		tools, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var system string
		m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == model.RoleTool {
				return modeltest.Response{Content: "done: " + last.Content}
			}
			for _, msg := range req.Messages {
				if msg.Role == model.RoleSystem {
					system = msg.Content
				}
			}
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "echo", `{"message":"hi"}`)}}
		})
		a, err := agent.New(agent.Config{Name: "MCP User", Model: m, Tools: []tool.Provider{tools}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Run(context.Background(), "echo hi")
		if err != nil || out.Content != "done: Echo: hi" {
			t.Fatalf("run: %v %q", err, out.Content)
		}
		if got := strings.Contains(system, cfg.Instructions); got != add {
			t.Errorf("AddInstructions %v: system message %q", add, system)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, 0)
}
