package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/internal/testlog"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "hitlex") // Unix socket paths are limited to ~107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

var quiet = slog.New(slog.DiscardHandler)

func TestAutoApprove(t *testing.T) {
	socket := filepath.Join(shortDir(t), "hitl.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := runExample(ctx, []string{"-socket", socket, "-yes"}, &out, quiet); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"HITL socket: " + socket,
		`is PAUSED (waiting_for_human) at step "process_sensitive_data": Process sensitive data now?`,
		"COMPLETED: Saved workflow results: processed 3 users matched Q3 users",
		"Stored status: COMPLETED",
	} {
		if !strings.Contains(got, want) {
			t.Fatalf("output lacks %q:\n%s", want, got)
		}
	}
	if _, err := os.Lstat(socket); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}

// The two-terminal flow: the example waits; another client approves the
// run id it printed.
func TestHumanApprovesFromAnotherClient(t *testing.T) {
	dir := shortDir(t)
	socket := filepath.Join(dir, "hitl.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out testlog.Buffer
	done := make(chan error, 1)
	go func() {
		done <- runExample(ctx, []string{"-socket", socket, "-db", filepath.Join(dir, "agno.db")}, &out, quiet)
	}()

	approveLine := regexp.MustCompile(`agno hitl approve (\S+) --socket`)
	var runID string
	for runID == "" {
		select {
		case err := <-done:
			t.Fatalf("example ended early: %v\n%s", err, out.String())
		case <-time.After(5 * time.Millisecond):
		}
		if m := approveLine.FindStringSubmatch(out.String()); m != nil {
			runID = m[1]
		}
	}
	c, err := hitl.Dial(ctx, socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := c.Find(ctx, runID)
	if err != nil || p == nil {
		t.Fatalf("pause of %s: %v", runID, err)
	}
	answers, err := p.Approve("")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctx, p, answers); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Run "+runID+" COMPLETED") || !strings.Contains(out.String(), "Stored status: COMPLETED") {
		t.Fatalf("output:\n%s", out.String())
	}
}
