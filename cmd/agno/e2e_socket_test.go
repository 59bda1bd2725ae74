package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
)

// The users' socket check against the real binary: `agno agentos start`
// with [workflows.hitl] transport = "socket" serves the HITL socket; a
// workflow run over HTTP pauses, a client on the socket lists it and
// approves it, and the run completes.
func TestE2EAgentOSServesHITLSocket(t *testing.T) {
	bin := agnoBinary(t)
	dir := t.TempDir()
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel, APIKey: "sk-e2e"})
	defer fake.Close()
	cfg, socket := usersConfig(t, fake.URL)
	files := map[string]string{
		"config.toml":                cfg,
		"settings.json":              mustRead(t, "../../examples/agentos/settings.json"),
		"agents/researcher.toml":     "name = \"Researcher\"\nmodel = \"default\"\n",
		"agents/writer.toml":         "name = \"Writer\"\nmodel = \"default\"\n",
		"workflows/review-flow.toml": "name = \"review-flow\"\n[[steps]]\nname = \"draft\"\nagent = \"researcher\"\n[[steps]]\nname = \"publish\"\nagent = \"writer\"\nrequires_confirmation = true\nconfirmation_message = \"Publish the report?\"\n",
	}
	writeTree(t, dir, files)
	base := startAgno(t, bin, []string{"agentos", "start", "--config", filepath.Join(dir, "config.toml")}, []string{"TAOTOKEN_API_KEY=sk-e2e"}).base

	if fi, err := os.Stat(socket); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %s: %v %v", socket, err, fi)
	}
	var paused map[string]any
	postJSON(t, base+"/workflows/review-flow/runs", url.Values{"message": {"the plan"}, "session_id": {"s-sock"}, "stream": {"false"}}, &paused)
	runID, _ := paused["run_id"].(string)
	if paused["status"] != "PAUSED" || runID == "" {
		t.Fatalf("workflow run %v", paused)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := hitl.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pending, err := c.Pending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var p *hitl.Pause
	for _, q := range pending {
		if q.RunID == runID {
			p = q
		}
	}
	if p == nil || p.WorkflowID != "review-flow" || p.SessionID != "s-sock" || p.PausedStepName != "publish" || p.PauseKind != "step" {
		t.Fatalf("pending %+v", pending)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctx, p, answers); err != nil {
		t.Fatal(err)
	}
	f, err := c.Wait(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != run.StatusCompleted || !strings.Contains(run.ContentText(f.Content), "Answer:") {
		t.Fatalf("finished %+v", f)
	}
	// The run is stored completed: answering again is refused.
	if err := c.Answer(ctx, p, answers); err == nil || !strings.Contains(err.Error(), "not paused") {
		t.Fatalf("second answer: %v", err)
	}
}
