package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/agno-go/agno/tool"
)

// The HTTP server process dies in the middle of a call: the call returns
// an error, and once the server is back the next call reconnects.
func TestStreamableHTTPServerKilledMidCall(t *testing.T) {
	bin := serverBinary(t)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	proc := startProcess(t, "listening on", nil, bin, []string{"-http", addr})
	tools := connected(t, Config{URL: "http://" + addr})
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "in-call")

	var callErr error
	var callRes tool.Result
	var wg sync.WaitGroup
	wg.Go(func() {
		callRes, callErr = tools.Call(ctx, "slow", map[string]any{"ms": 60000, "marker": marker})
	})
	eventually(t, "the server to be inside the call", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	_ = proc.Process.Kill()
	_ = proc.Wait()
	wg.Wait()
	if !errors.Is(callErr, ErrSessionLost) {
		t.Fatalf("call on a killed server: %+v %v, want ErrSessionLost", callRes, callErr)
	}
	t.Logf("call error: %v", callErr)
	startProcess(t, "listening on", nil, bin, []string{"-http", addr})
	r, err := tools.Call(ctx, "search", map[string]any{"query": "back"})
	if err != nil || r.Content != "results for back" {
		t.Fatalf("after restart: %+v %v", r, err)
	}
	if tools.OpenSessions() != 1 {
		t.Fatalf("OpenSessions %d", tools.OpenSessions())
	}
}
