package hitl_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
)

func benchServer(b *testing.B) (*hitl.Server, *hitl.Client, *workflow.Workflow) {
	b.Helper()
	dir, err := os.MkdirTemp("/tmp", "hitlb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	w, err := workflow.New(workflow.Config{Name: "bench", Steps: []workflow.Node{
		&workflow.Step{Name: "gate", Func: step("x", nil), HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "ok?"}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "b.sock")
	srv, err := hitl.NewServer(hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	c, err := hitl.Dial(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return srv, c, w
}

// BenchmarkPing is one request/reply round trip over the socket.
func BenchmarkPing(b *testing.B) {
	_, c, _ := benchServer(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if err := c.Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnnounce is a pause notification reaching a connected client.
func BenchmarkAnnounce(b *testing.B) {
	srv, c, w := benchServer(b)
	out, err := w.Run(context.Background(), "go", run.WithRunID("r"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		srv.Paused(w, out)
		if _, err := c.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
