package agent_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
)

// A paused run survives closing the database: a new store value on the
// same file and a new Agent value continue it.
func TestContinueAfterReopeningSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	script := func() *modeltest.Fake {
		return modeltest.New(calls(modeltest.ToolCall("c1", "send_email", `{"to":"a@b.c"}`)), text("Email sent."))
	}
	ctx := context.Background()

	st1, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	a1 := newAgent(t, agent.Config{Name: "Mailer", Model: script(), Tools: []tool.Provider{send}, Store: st1})
	out, _ := a1.Run(ctx, "send it", run.WithSessionID("s"), run.WithUserID("u"))
	if out.Status != run.StatusPaused {
		t.Fatalf("status %s", out.Status)
	}
	reqs := out.Requirements
	if err := st1.Close(); err != nil {
		t.Fatal(err)
	}

	st2, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	fake := modeltest.New(text("Email sent."))
	a2 := newAgent(t, agent.Config{Name: "Mailer", Model: fake, Tools: []tool.Provider{send}, Store: st2})
	_ = reqs[0].Confirm()
	done, err := a2.Continue(ctx, run.ContinueRequest{RunID: out.RunID, SessionID: "s", Requirements: reqs})
	if err != nil || done.Status != run.StatusCompleted || done.Content != "Email sent." || sent.Load() != 1 {
		t.Fatalf("err %v status %s content %q sent %d", err, done.Status, done.Content, sent.Load())
	}
	// The model saw the original conversation, restored from the file.
	msgs := fake.Requests()[0].Messages
	if msgs[0].Content != "send it" || len(msgs[1].ToolCalls) != 1 || msgs[2].Content != "sent to a@b.c" {
		t.Fatalf("restored conversation %+v", msgs)
	}
	rec, _ := st2.GetRun(ctx, out.RunID)
	if rec.Status != run.StatusCompleted {
		t.Fatalf("stored status %s", rec.Status)
	}
}
