package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
)

// 7. A pause on one replica is announced on every replica's HITL socket
// and followed on every replica's WebSocket; whichever channel answers
// first continues it, once, and the other sockets hear it was answered.
func replicaPauseEverywhere(t *testing.T, c *cluster) {
	a, b := c.start("a"), c.start("b")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ha, err := hitl.Dial(ctx, c.socket("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer ha.Close()
	hb, err := hitl.Dial(ctx, c.socket("b"))
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Close()

	// A workflow paused on A: B's socket announces it, B's WebSocket
	// follows it and continues it there.
	runID, reqs := c.pauseReview(a, "s-ws", "Q3")
	if p := nextPauseOf(t, ctx, hb, runID); p.WorkflowID != "review" || p.PausedStepName != "publish" {
		t.Fatalf("B's socket announced %+v", p)
	}
	nextPauseOf(t, ctx, ha, runID)
	ws := dialWS(t, ctx, b.base)
	ws.send(t, ctx, map[string]any{"action": "reconnect", "run_id": runID, "workflow_id": "review", "session_id": "s-ws", "last_event_index": -1})
	ws.until(t, ctx, "WorkflowPaused")
	var answered []map[string]any
	if err := json.Unmarshal([]byte(reqs), &answered); err != nil {
		t.Fatal(err)
	}
	ws.send(t, ctx, map[string]any{"action": "continue-workflow", "workflow_id": "review", "run_id": runID, "session_id": "s-ws", "step_requirements": answered})
	ws.until(t, ctx, "WorkflowCompleted")
	for _, h := range []*hitl.Client{ha, hb} {
		waitResumedOf(t, ctx, h, runID)
	}
	if code, st := c.runStatus(a, "workflows/review", runID, "s-ws"); code != 200 || st != "COMPLETED" {
		t.Fatalf("on A after B's WebSocket continued it: %d %s", code, st)
	}
	// The socket cannot answer it again.
	if err := hb.Continue(ctx, hitl.ContinueRequest{WorkflowID: "review", RunID: runID, SessionID: "s-ws"}); err == nil || !strings.HasPrefix(err.Error(), "Run is not paused") {
		t.Fatalf("a second answer over the socket: %v", err)
	}

	// An agent paused on A is answered on B's socket.
	opRun, _ := c.pauseOperator(a, "s-op")
	p := nextPauseOf(t, ctx, hb, opRun)
	if p.AgentID != "operator" || len(p.Requirements) != 1 {
		t.Fatalf("B's socket announced %+v", p)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := hb.Answer(ctx, p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := hb.Wait(ctx, opRun)
	if err != nil || f.Status != run.StatusCompleted || !strings.Contains(run.ContentText(f.Content), "confirmed") {
		t.Fatalf("the operator run answered on B: %+v %v", f, err)
	}
	waitResumedOf(t, ctx, ha, opRun)
	if code, st := c.runStatus(a, "agents/operator", opRun, "s-op"); code != 200 || st != "COMPLETED" {
		t.Fatalf("on A: %d %s", code, st)
	}
}

func nextPauseOf(t *testing.T, ctx context.Context, h *hitl.Client, runID string) *hitl.Pause {
	t.Helper()
	for {
		a, err := h.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for the pause of %s: %v", runID, err)
		}
		if a.Pause != nil && a.Pause.RunID == runID {
			return a.Pause
		}
	}
}

func waitResumedOf(t *testing.T, ctx context.Context, h *hitl.Client, runID string) {
	t.Helper()
	for {
		a, err := h.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for %s to be answered: %v", runID, err)
		}
		if (a.Resumed != nil && a.Resumed.RunID == runID) || (a.Finished != nil && a.Finished.RunID == runID) {
			return
		}
	}
}

type wsClient struct{ c *websocket.Conn }

func dialWS(t *testing.T, ctx context.Context, base string) *wsClient {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/workflows/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(16 << 20)
	t.Cleanup(func() { c.CloseNow() })
	return &wsClient{c: c}
}

func (w *wsClient) send(t *testing.T, ctx context.Context, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := w.c.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
}

// until reads frames until an event named name; frames are JSON (control
// messages, replays) or SSE text (live events).
func (w *wsClient) until(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var seen []string
	for {
		_, b, err := w.c.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for %s on the WebSocket (saw %v): %v", name, seen, err)
		}
		ev := wsEventName(b)
		seen = append(seen, ev)
		if ev == "error" {
			t.Fatalf("WebSocket error: %s", b)
		}
		if ev == name {
			return
		}
	}
}

func wsEventName(b []byte) string {
	s := string(b)
	if rest, ok := strings.CutPrefix(s, "event: "); ok {
		name, _, _ := strings.Cut(rest, "\n")
		return name
	}
	var m struct {
		Event string `json:"event"`
	}
	_ = json.Unmarshal(b, &m)
	return m.Event
}
