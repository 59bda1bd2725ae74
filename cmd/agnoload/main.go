// Command agnoload is an HTTP load generator for AgentOS: it runs an agent
// through POST /agents/{id}/runs from many keep-alive clients at once and
// reports throughput, latency percentiles, time to first event (stream)
// and, given the server's PID, its CPU time per run and peak RSS.
//
//	agnoload -url http://127.0.0.1:7777 -agent assistant -c 32 -n 2000 -stream -server-pid 4242
//	agnoload -url http://127.0.0.1:7777 -agent assistant -c 8 -d 30s -json
//	agnoload -target openai -url http://127.0.0.1:8089/v1 -c 32 -n 2000 -stream
//
// The last form measures an OpenAI-compatible model server (such as
// fakellm) with the same client code: AgentOS's added latency is the
// difference. Ctrl-C stops early and prints the report so far.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var caught atomic.Value // the signal that stopped the test
	go func() {
		if sig, ok := <-sigs; ok {
			caught.Store(sig)
			signal.Reset() // a second Ctrl-C kills at once
			cancel()
		}
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	close(sigs)
	cancel()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case errors.Is(err, errInterrupted):
		// Die of the signal, now that the report is out, so a calling
		// shell script stops too (bash carries on after a child that
		// exits normally on Ctrl-C).
		if sig, ok := caught.Load().(os.Signal); ok {
			reraise(sig)
		}
		os.Exit(130)
	case err != nil:
		fmt.Fprintln(os.Stderr, "agnoload:", err)
		os.Exit(1)
	}
}

var (
	errUsage       = errors.New("usage")
	errInterrupted = errors.New("interrupted")
)

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agnoload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg Config
	fs.StringVar(&cfg.URL, "url", "", "AgentOS base URL, such as http://127.0.0.1:7777 (-target openai: the API base ending in /v1)")
	fs.StringVar(&cfg.Target, "target", TargetAgentOS, `"agentos" runs an agent; "openai" sends Chat Completions requests to an OpenAI-compatible server (the model-only baseline)`)
	fs.StringVar(&cfg.Agent, "agent", "", "id of the agent to run")
	fs.StringVar(&cfg.Model, "model", "fake-model", "model id (-target openai)")
	fs.IntVar(&cfg.Concurrency, "c", 1, "concurrent clients")
	fs.IntVar(&cfg.Requests, "n", 0, "total requests (or -d)")
	fs.DurationVar(&cfg.Duration, "d", 0, "send requests for this long, such as 30s (or -n)")
	fs.DurationVar(&cfg.Timeout, "timeout", time.Minute, "per-request timeout")
	fs.BoolVar(&cfg.Stream, "stream", false, "stream events (SSE); a run is done when the stream ends")
	fs.StringVar(&cfg.Message, "message", "Hello", "the message each run is sent")
	fs.IntVar(&cfg.Sessions, "sessions", 0, "distinct session ids the requests cycle through (0: a new session per request)")
	fs.StringVar(&cfg.UserID, "user", "", "user_id sent with each run")
	fs.StringVar(&cfg.Key, "key", os.Getenv("OS_SECURITY_KEY"), "bearer key (default $OS_SECURITY_KEY)")
	fs.IntVar(&cfg.ServerPID, "server-pid", 0, "PID of the server process: report its CPU time per run, peak RSS and RSS per open answer (Linux /proc)")
	fs.DurationVar(&cfg.Sample, "sample", 50*time.Millisecond, "how often -server-pid's RSS is sampled during the test")
	fs.BoolVar(&cfg.Preconnect, "preconnect", false, "open every client's connection before the test, then start all clients together")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "agnoload: unexpected argument %q (flags go before it?)\n", fs.Arg(0))
		return errUsage
	}
	// One socket per client, plus a margin for the runtime and stdio.
	if err := raiseNoFile(uint64(cfg.Concurrency) + 64); err != nil {
		return fmt.Errorf("-c %d: %w", cfg.Concurrency, err)
	}
	rep, err := Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeText(stdout, rep)
	}
	if rep.Interrupted {
		return errInterrupted
	}
	return nil
}

func writeText(w io.Writer, r *Report) {
	target := r.URL
	if r.Agent != "" {
		target += " agent=" + r.Agent
	}
	sessions := " sessions=one-per-request"
	switch {
	case r.Target == TargetOpenAI:
		sessions = ""
	case r.Sessions > 0:
		sessions = fmt.Sprintf(" sessions=%d", r.Sessions)
	}
	fmt.Fprintf(w, "target     %s %s stream=%v c=%d%s\n", r.Target, target, r.Stream, r.Concurrency, sessions)
	if r.Interrupted {
		fmt.Fprintln(w, "status     interrupted: partial report")
	}
	fmt.Fprintf(w, "requests   %d (ok %d, errors %d)\n", r.Requests, r.OK, r.Errors)
	for _, k := range slices.Sorted(maps.Keys(r.ErrorKinds)) {
		fmt.Fprintf(w, "  %-20s %d  first: %s\n", k, r.ErrorKinds[k], oneLine(r.ErrorSamples[k]))
	}
	fmt.Fprintf(w, "elapsed    %.2fs\n", r.ElapsedSeconds)
	fmt.Fprintf(w, "runs/s     %.1f\n", r.RunsPerSecond)
	l := r.Latency
	fmt.Fprintf(w, "latency    p50 %.2fms  p90 %.2fms  p99 %.2fms  max %.2fms  mean %.2fms\n", l.P50, l.P90, l.P99, l.Max, l.Mean)
	if r.TTFE != nil {
		fmt.Fprintf(w, "ttfe       p50 %.2fms  p99 %.2fms\n", r.TTFE.P50, r.TTFE.P99)
	}
	if r.TTFT != nil {
		fmt.Fprintf(w, "ttft       p50 %.2fms  p99 %.2fms  (first content)\n", r.TTFT.P50, r.TTFT.P99)
	}
	fmt.Fprintf(w, "open       at most %d answers at once\n", r.PeakOpen)
	if s := r.Server; s != nil {
		if s.Error != "" {
			fmt.Fprintf(w, "server     pid %d: %s\n", s.PID, s.Error)
		} else {
			fmt.Fprintf(w, "server     pid %d  cpu %.2f ms/run  peak rss %.1f MB (%.1f MB before)\n", s.PID, s.CPUMsPerRun, s.PeakRSSMB, s.PeakRSSBeforeMB)
			if s.OpenStreams > 0 {
				fmt.Fprintf(w, "           rss %.1f MB idle, %.1f MB with %d open: %.1f KB per open answer\n", s.IdleRSSMB, s.OpenRSSMB, s.OpenStreams, s.KBPerOpen)
			}
		}
	}
	fmt.Fprintf(w, "client     cpu %.2f ms/run\n", r.ClientCPUMsPerRun)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
