// Command streamprof is `agno agentos start` (agents and teams, no HITL
// socket, no Postgres signals) with profiles, for finding what a load
// costs: a CPU profile of the whole run, and on SIGUSR1 a heap and a
// goroutine profile of that moment (while streams are open).
//
//	go build -o streamprof ./bench/streamprof
//	streamprof -config config.toml -cpuprofile cpu.pb.gz -profdir /tmp/prof &
//	... load ...; kill -USR1 %1   # heap-1.pb.gz, goroutines-1.txt
//	go tool pprof -top -sample_index=inuse_space streamprof /tmp/prof/heap-1.pb.gz
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/runs"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "streamprof:", err)
		os.Exit(1)
	}
}

func run() error {
	cfgPath := flag.String("config", "config.toml", "config.toml of agno agentos start")
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the whole run here")
	dir := flag.String("profdir", ".", "where SIGUSR1 writes heap-N.pb.gz and goroutines-N.txt")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	slog.SetDefault(logger)
	cfg, err := config.Load(*cfgPath)
	if err != nil {
		return err
	}
	cfg.Logger = logger
	res, err := cfg.Build(ctx, config.Functions{}, config.Existing{})
	if err != nil {
		return err
	}
	eng, err := runs.New(runs.Config{Store: res.Store, Instance: "streamprof:" + strconv.Itoa(cfg.AgentOS.Port), Logger: logger})
	if err != nil {
		return err
	}
	if err := runs.Attach(eng); err != nil {
		return err
	}
	if err := eng.Start(ctx); err != nil {
		return err
	}
	protected := cfg.AgentOS.ProtectedMode
	o, err := agentos.New(agentos.Config{Name: cfg.AgentOS.Name, Agents: res.Agents, Teams: res.Teams, Store: res.Store, Runs: eng,
		ProtectedMode: &protected, Logger: logger,
		Closers: []func() error{func() error { runs.Detach(eng); return eng.Close() }, res.Close}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.AgentOS.Host, strconv.Itoa(cfg.AgentOS.Port)))
	if err != nil {
		return err
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for n := 1; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-usr1:
			}
			if err := snapshot(*dir, n); err != nil {
				logger.Error("profile", "error", err)
			}
		}
	}()
	return o.Serve(ctx, ln)
}

// snapshot writes the heap (after a GC: what is live) and the goroutines.
func snapshot(dir string, n int) error {
	runtime.GC()
	for _, p := range []struct {
		name  string
		debug int
	}{{fmt.Sprintf("heap-%d.pb.gz", n), 0}, {fmt.Sprintf("goroutines-%d.txt", n), 1}} {
		f, err := os.Create(filepath.Join(dir, p.name))
		if err != nil {
			return err
		}
		prof := "heap"
		if p.debug == 1 {
			prof = "goroutine"
		}
		err = pprof.Lookup(prof).WriteTo(f, p.debug)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("memstats-%d.txt", n)),
		fmt.Appendf(nil, "HeapInuse %d\nHeapAlloc %d\nStackInuse %d\nSys %d\nNumGoroutine %d\n", ms.HeapInuse, ms.HeapAlloc, ms.StackInuse, ms.Sys, runtime.NumGoroutine()), 0o644)
}
