package agentos_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

// Shutdown lets runs finish up to the timeout, then cancels the rest:
// they are stored CANCELLED, never left RUNNING.
func TestGracefulShutdownCancelsOverdueRuns(t *testing.T) {
	store := memory.New()
	started := make(chan string, 1)
	block := tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		started <- run.FromContext(ctx).RunID
		<-ctx.Done()
		return "", ctx.Err()
	}))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("b", "block", `{}`)}}
	})
	a, _ := agent.New(agent.Config{Name: "Slow", Model: m, Tools: []tool.Provider{block}, Store: store})
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store, ShutdownTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- o.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()
	resp, err := http.PostForm(base+"/agents/slow/runs", url.Values{"message": {"go"}, "stream": {"false"}, "background": {"true"}, "session_id": {"s"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	runID := <-started
	stop()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	rec, err := store.GetRun(context.Background(), runID)
	if err != nil || rec.Status != run.StatusCancelled {
		t.Fatalf("run after shutdown: %+v %v", rec, err)
	}
}

// Runs a crashed process left RUNNING are marked ERROR at start.
func TestStartMarksInterruptedRuns(t *testing.T) {
	store := memory.New()
	ctx := context.Background()
	_ = store.CreateRun(ctx, &storage.Run{RunID: "stuck", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "x",
		Status: run.StatusRunning, Data: []byte(`{"run_id":"stuck","status":"RUNNING","content":"partial"}`)})
	a, _ := agent.New(agent.Config{Name: "X", Model: modeltest.New()})
	if _, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store}); err != nil {
		t.Fatal(err)
	}
	rec, _ := store.GetRun(ctx, "stuck")
	if rec.Status != run.StatusError || !strings.Contains(string(rec.Data), "interrupted") || !strings.Contains(string(rec.Data), `"status":"ERROR"`) {
		t.Fatalf("stuck run %s %s", rec.Status, rec.Data)
	}
}

// A client that leaves a foreground stream cancels the run; a background
// stream's run goes on without it.
func TestDisconnectCancelsForegroundOnly(t *testing.T) {
	store := memory.New()
	started := make(chan string, 4)
	release := make(chan struct{})
	block := tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		started <- run.FromContext(ctx).RunID
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-release:
			return "released", nil
		}
	}))
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return modeltest.Response{Content: "done"}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("b", "block", `{}`)}}
	})
	a, _ := agent.New(agent.Config{Name: "Slow", Model: m, Tools: []tool.Provider{block}, Store: store})
	o, _ := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	for _, background := range []string{"false", "true"} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/agents/slow/runs",
			strings.NewReader(url.Values{"message": {"go"}, "session_id": {"s"}, "background": {background}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		runID := <-started
		cancel() // the client goes away mid-stream
		resp.Body.Close()
		if background == "true" {
			close(release)
		}
		deadline := time.Now().Add(5 * time.Second)
		want := run.StatusCancelled
		if background == "true" {
			want = run.StatusCompleted
		}
		for {
			rec, err := store.GetRun(context.Background(), runID)
			if err == nil && rec.Status == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("background=%s: run status %v, want %s", background, rec, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
