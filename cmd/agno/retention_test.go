package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

// [storage.retention] reaches the server agno agentos start runs: a
// session idle for longer than max_age_days goes at start, one with a
// run in flight stays; and /ready answers through the served stack.
func TestStartRetentionAndReady(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "agno.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, sqlite.Config{Path: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-10 * 24 * time.Hour).Unix()
	for id, status := range map[string]run.Status{"old": run.StatusCompleted, "busy": run.StatusPaused} {
		if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s-" + id, SessionType: storage.SessionAgent, CreatedAt: old, UpdatedAt: old}); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateRun(ctx, &storage.Run{RunID: "r-" + id, SessionID: "s-" + id, SessionType: storage.SessionAgent, Status: status, CreatedAt: old, UpdatedAt: old}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := "[agentos]\nname = \"retention\"\n[storage]\npath = \"agno.db\"\n[storage.retention]\nmax_age_days = 7\ninterval_minutes = 60\n[workflows.hitl]\ntransport = \"websocket\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := startForTest(t, startFlags{config: filepath.Join(dir, "config.toml"), host: "127.0.0.1", port: freePort(t), logLevel: "error"})

	resp, err := http.Get("http://" + addr + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"storage":{"status":"ok"}`) {
		t.Fatalf("GET /ready = %d %s", resp.StatusCode, body)
	}

	view, err := sqlite.Open(ctx, sqlite.Config{Path: db, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer view.Close()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := view.GetSession(ctx, "s-old")
		if errors.Is(err, storage.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle session was not pruned: %v", err)
		}
	}
	if _, err := view.GetRun(ctx, "r-busy"); err != nil {
		t.Errorf("the paused run: %v", err)
	}
	if _, err := view.GetSession(ctx, "s-busy"); err != nil {
		t.Errorf("the paused run's session: %v", err)
	}
}
