package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
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
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "agno")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel, APIKey: "sk-e2e"})
	defer fake.Close()

	socket := shortSocket(t)
	cfg := strings.Replace(mustRead(t, "../../examples/agentos/config.toml"), `base_url = "https://taotoken.net/api"`, `base_url = "`+fake.URL+`"`, 1)
	cfg = strings.Replace(cfg, `socket_path = "/tmp/agno-hitl.sock"`, `socket_path = "`+socket+`"`, 1)
	if !strings.Contains(cfg, socket) {
		t.Fatal("the example config no longer sets [workflows.hitl] socket_path")
	}
	files := map[string]string{
		"config.toml":                cfg,
		"settings.json":              mustRead(t, "../../examples/agentos/settings.json"),
		"agents/researcher.toml":     "name = \"Researcher\"\nmodel = \"default\"\n",
		"agents/writer.toml":         "name = \"Writer\"\nmodel = \"default\"\n",
		"workflows/review-flow.toml": "name = \"review-flow\"\n[[steps]]\nname = \"draft\"\nagent = \"researcher\"\n[[steps]]\nname = \"publish\"\nagent = \"writer\"\nrequires_confirmation = true\nconfirmation_message = \"Publish the report?\"\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	cmd := exec.Command(bin, "agentos", "start", "--config", filepath.Join(dir, "config.toml"), "--port", fmt.Sprint(port))
	cmd.Env = append(os.Environ(), "TAOTOKEN_API_KEY=sk-e2e")
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-exited
		if t.Failed() {
			t.Logf("agentos log:\n%s", logs.String())
		}
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitHealthy(t, base, exited)

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
