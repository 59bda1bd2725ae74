package runs_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/agno-go/agno/internal/testlog"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage/memory"
)

// Every run that ends writes one line an operator can read: its id,
// component, session, status and duration, at ERROR with the reason when
// it failed.
func TestRunEndIsLogged(t *testing.T) {
	var sink testlog.Buffer
	e := started(t, engine(t, memory.New(), "logs", func(c *runs.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}))
	ctx := context.Background()
	for id, end := range map[string]struct {
		status run.Status
		doc    string
	}{
		"r-ok":  {run.StatusCompleted, `{"run_id":"r-ok","status":"COMPLETED","content":"fine"}`},
		"r-bad": {run.StatusError, `{"run_id":"r-bad","status":"ERROR","content":"the model refused: quota"}`},
	} {
		h, err := e.Begin(ctx, runs.Begin{Row: row(id), Session: session(id)})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Finish(ctx, runs.Finish{Status: end.status, Doc: json.RawMessage(end.doc)}); err != nil {
			t.Fatal(err)
		}
		h.Close()
	}
	ended := map[string]map[string]any{}
	for _, l := range sink.Records() {
		if l["msg"] == "run ended" {
			ended[l["run_id"].(string)] = l
		}
	}
	ok, bad := ended["r-ok"], ended["r-bad"]
	if ok == nil || ok["level"] != "INFO" || ok["status"] != "COMPLETED" || ok["component"] != component || ok["session_id"] != "s-r-ok" || ok["duration_ms"] == nil || ok["reason"] != nil {
		t.Errorf("a completed run's line: %v", ok)
	}
	if bad == nil || bad["level"] != "ERROR" || bad["status"] != "ERROR" || bad["reason"] != "the model refused: quota" {
		t.Errorf("a failed run's line: %v", bad)
	}
}

// A run whose end could not be stored ends ERROR for its caller: its line
// says ERROR too, with the status that was not kept and why.
func TestRunEndNotStoredIsLoggedAsError(t *testing.T) {
	var sink testlog.Buffer
	st := newFaulty(memory.New())
	e := started(t, engine(t, st, "logs", func(c *runs.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}))
	ctx := context.Background()
	h, err := e.Begin(ctx, runs.Begin{Row: row("r-lost"), Session: session("r-lost")})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st.fail("SaveRow", true)
	if err := h.Finish(ctx, runs.Finish{Status: run.StatusCompleted, Doc: json.RawMessage(`{"run_id":"r-lost","status":"COMPLETED"}`)}); err == nil {
		t.Fatal("Finish stored on a failing store")
	}
	for _, l := range sink.Records() {
		if l["msg"] == "run ended" && l["run_id"] == "r-lost" {
			if l["level"] != "ERROR" || l["status"] != "ERROR" || l["unsaved_status"] != "COMPLETED" || l["error"] == nil {
				t.Errorf("line: %v", l)
			}
			return
		}
	}
	t.Error("no run ended line")
}
