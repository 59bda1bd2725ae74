package agentos_test

import (
	"context"
	"net"
	"net/http"
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
	_ = store.PutRun(ctx, &storage.Run{RunID: "stuck", SessionID: "s", SessionType: storage.SessionAgent, ComponentID: "x",
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
