package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

// The console answers a paused agent as it answers a workflow: list,
// show, approve (and reject with a note).
func TestHITLAgentPause(t *testing.T) {
	store := memory.New()
	var paid atomic.Int32
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a payArgs) (string, error) {
		paid.Add(int32(a.Amount))
		return fmt.Sprintf("paid %d", a.Amount), nil
	}, tool.RequiresConfirmation()))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "done: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":5}`)}}
	})
	a, err := agent.New(agent.Config{Name: "Cashier", Model: m, Tools: []tool.Provider{pay}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "hitlcli")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &console{t: t, socket: filepath.Join(dir, "hitl.sock"), store: store}
	srv, err := hitl.NewServer(hitl.Config{SocketPath: c.socket, Agents: []run.Executor{a}, Store: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	for _, id := range []string{"r1", "r2"} {
		if out, err := a.Run(context.Background(), "pay 5", run.WithRunID(id), run.WithSessionID("s-"+id)); err != nil || out.Status != run.StatusPaused {
			t.Fatalf("run %s: %v", id, err)
		}
	}
	out, _, err := c.agno("list")
	if err != nil || !strings.Contains(out, "agent cashier") || !strings.Contains(out, "r1") || !strings.Contains(out, `pay({"amount":5})`) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, _, err = c.agno("show", "r1")
	if err != nil || !strings.Contains(out, "Agent:      cashier (Cashier)") || !strings.Contains(out, `pay({"amount":5}) — waits for confirmation`) || strings.Contains(out, "Step:") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	out, _, err = c.agno("approve", "r1")
	if err != nil || !strings.Contains(out, "Run r1 continued (agent cashier).") || !strings.Contains(out, "Run r1 COMPLETED: done: paid 5") || paid.Load() != 5 {
		t.Fatalf("approve: %v\n%s\npaid %d", err, out, paid.Load())
	}
	out, _, err = c.agno("reject", "r2", "--note", "not today")
	if err != nil || !strings.Contains(out, "Run r2 COMPLETED") || paid.Load() != 5 {
		t.Fatalf("reject: %v\n%s\npaid %d", err, out, paid.Load())
	}
	if _, _, err := c.agno("approve", "r1"); err == nil || !strings.Contains(err.Error(), "not waiting for a human") {
		t.Fatalf("approve again: %v", err)
	}
	out, _, err = c.agno("list")
	if err != nil || !strings.Contains(out, "No run is waiting for a human.") {
		t.Fatalf("list at the end: %v\n%s", err, out)
	}
}
