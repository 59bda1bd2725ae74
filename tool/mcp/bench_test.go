package mcp

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCall measures one tool call through this package ("ours")
// against the same call on a bare go-sdk ClientSession ("sdk"), against
// the test server in memory, over stdio and over streamable HTTP. The
// difference is our overhead per call. Every server is the Go test server
// (internal/mcptest): in process, the testdata/server binary as a stdio
// child, and the same binary with -http. Besides the mean (ns/op) each
// reports the median call (p50-µs), the figure the target is set in.
//
//	go test -run '^$' -bench BenchmarkCall -benchmem ./tool/mcp/
func BenchmarkCall(b *testing.B) {
	bin := serverBinary(b)
	args := map[string]any{"query": "agno v2.6.13"}
	ctx := context.Background()

	ours := func(b *testing.B, cfg Config) {
		tools, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer tools.Close()
		if err := tools.Connect(ctx); err != nil {
			b.Fatal(err)
		}
		loop(b, func() error {
			_, err := tools.Call(ctx, "search", args)
			return err
		})
	}
	direct := func(b *testing.B, tr sdk.Transport) {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		loop(b, func() error {
			_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: args})
			return err
		})
	}

	// In memory the server costs least, so our share shows most.
	b.Run("memory/sdk", func(b *testing.B) {
		tr, err := inMemory(b).NewTransport(ctx)
		if err != nil {
			b.Fatal(err)
		}
		direct(b, tr)
	})
	b.Run("memory/ours", func(b *testing.B) {
		ours(b, inMemory(b))
	})
	b.Run("stdio/sdk", func(b *testing.B) {
		direct(b, &sdk.CommandTransport{Command: exec.Command(bin)})
	})
	b.Run("stdio/ours", func(b *testing.B) {
		ours(b, Config{Command: bin, Stderr: io.Discard})
	})
	// Refresh pings the session before each call (ping + tools/call); it
	// re-lists tools only in Functions, once per agent run.
	b.Run("stdio/ours-refresh", func(b *testing.B) {
		ours(b, Config{Command: bin, Stderr: io.Discard, RefreshConnection: true})
	})

	addr := "127.0.0.1:" + strconv.Itoa(freePort(b))
	startProcess(b, "listening on", nil, bin, []string{"-http", addr})
	url := "http://" + addr
	b.Run("http/sdk", func(b *testing.B) {
		direct(b, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true})
	})
	b.Run("http/ours", func(b *testing.B) {
		ours(b, Config{URL: url})
	})
}

// loop times each call as well as the whole loop, and reports the median:
// a few slow calls (GC, scheduling) move the mean but not the p50.
func loop(b *testing.B, call func() error) {
	b.ReportAllocs()
	// Allocated before the timer starts, so B/op stays the call's own.
	d := make([]time.Duration, 0, 1<<16)
	for b.Loop() {
		start := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2])/float64(time.Microsecond), "p50-µs")
}
