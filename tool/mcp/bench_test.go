package mcp

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCall measures one tool call through this package ("ours")
// against the same call on a bare go-sdk ClientSession ("sdk"), against
// the test server in memory, over stdio and over streamable HTTP. The
// difference is our overhead per call.
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
		b.ReportAllocs()
		for b.Loop() {
			if _, err := tools.Call(ctx, "search", args); err != nil {
				b.Fatal(err)
			}
		}
	}
	direct := func(b *testing.B, tr sdk.Transport) {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tr, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
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
