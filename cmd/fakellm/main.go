// Command fakellm serves a fake OpenAI-compatible Chat Completions API for
// benchmarks and manual tests: scripted answers in the real wire format
// (JSON and SSE), with configurable latency and length, and optionally a
// tool call.
//
//	fakellm -addr 127.0.0.1:8089 -ttft 200ms -token-delay 20ms -tokens 100 -tool get_weather
//
// It prints its base URL (ending in /v1) on stdout once it accepts
// connections, and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// shutdownGrace is how long running responses may take to finish after a
// signal before their connections are closed.
const shutdownGrace = 2 * time.Second

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0 picks a free port)")
	ttft := fs.Duration("ttft", 0, "time to first token: wait before answering")
	tokenDelay := fs.Duration("token-delay", 0, "delay between streamed chunks")
	tokens := fs.Int("tokens", 20, "number of content tokens in each answer")
	tool := fs.String("tool", "", "when a request offers this tool and has no tool result since the last user message, answer with a call to it")
	toolArgs := fs.String("tool-args", "{}", "JSON arguments of that tool call")
	apiKey := fs.String("api-key", "", "require this bearer key")
	models := fs.String("models", "fake-model", "comma-separated model ids listed by GET /v1/models")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fakellm: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *tokens < 0 {
		fmt.Fprintln(stderr, "fakellm: -tokens must be 0 or more")
		return errUsage
	}
	if !json.Valid([]byte(*toolArgs)) {
		fmt.Fprintf(stderr, "fakellm: -tool-args %q is not JSON; give an object such as '{\"city\":\"Paris\"}'\n", *toolArgs)
		return errUsage
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	h := modeltest.NewHandler(modeltest.ServerConfig{
		Responder:        responder(*tool, *toolArgs, modeltest.FillerTokens(*tokens)),
		APIKey:           *apiKey,
		Models:           strings.Split(*models, ","),
		TimeToFirstToken: *ttft,
		TokenDelay:       *tokenDelay,
		NoRecord:         true, // nothing reads them; memory stays flat under load
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr())
	log.Info("fakellm listening", "addr", ln.Addr().String(), "ttft", *ttft, "token_delay", *tokenDelay, "tokens", *tokens, "tool", *tool)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		_ = srv.Close() // streams still running past the grace period
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("fakellm stopped", "requests", h.Calls())
	return nil
}

// responder answers with a call to tool when the request offers it and the
// current turn has no tool result yet, and with the filler text otherwise.
func responder(tool, args string, tokens []string) modeltest.Responder {
	var n atomic.Int64
	return func(req *model.Request) modeltest.Response {
		if tool != "" && offers(req, tool) && !hasToolResult(req) {
			id := fmt.Sprintf("call_fakellm%06d", n.Add(1))
			return modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall(id, tool, args)}}
		}
		return modeltest.Response{Tokens: tokens}
	}
}

func offers(req *model.Request, tool string) bool {
	for _, t := range req.Tools {
		if t.Name == tool {
			return true
		}
	}
	return false
}

// hasToolResult reports a tool message after the last user message.
func hasToolResult(req *model.Request) bool {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		switch req.Messages[i].Role {
		case model.RoleTool:
			return true
		case model.RoleUser:
			return false
		}
	}
	return false
}
