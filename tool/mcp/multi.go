package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/agno-go/agno/tool"
)

// MultiConfig describes several MCP servers offered as one toolkit
// (agno's MultiMCPTools).
type MultiConfig struct {
	// Name is the toolkit's name; default "MultiMCPTools".
	Name string
	// Servers are connected in order. Each keeps its own filters, prefix,
	// human-in-the-loop lists and session rules.
	Servers []Config
	// AllowPartialFailure keeps the servers that connected when others do
	// not; Connect fails only when all of them fail.
	AllowPartialFailure bool
	// Logger is the default logger of servers without their own.
	Logger *slog.Logger
}

// MultiTools is several MCP servers' tools as one toolkit. Every tool is
// bound to its own server. It implements tool.Connector.
type MultiTools struct {
	name    string
	partial bool
	log     *slog.Logger
	servers []*Tools

	// connectMu serialises Connect and Close.
	connectMu sync.Mutex
	mu        sync.Mutex
	connected []*Tools
	failures  []error
}

var _ tool.Connector = (*MultiTools)(nil)

// NewMulti validates every server's Config. It does not connect.
func NewMulti(cfg MultiConfig) (*MultiTools, error) {
	if len(cfg.Servers) == 0 {
		return nil, cfgErr("MultiConfig.Servers is empty: give at least one server")
	}
	m := &MultiTools{name: cfg.Name, partial: cfg.AllowPartialFailure, log: cfg.Logger}
	if m.name == "" {
		m.name = "MultiMCPTools"
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	for i, sc := range cfg.Servers {
		if sc.Logger == nil {
			sc.Logger = m.log
		}
		t, err := New(sc)
		if err != nil {
			return nil, fmt.Errorf("MultiConfig.Servers[%d]: %w", i, err)
		}
		m.servers = append(m.servers, t)
	}
	return m, nil
}

// Name is the toolkit's name.
func (m *MultiTools) Name() string { return m.name }

// Servers returns one toolkit per configured server, in order.
func (m *MultiTools) Servers() []*Tools { return slices.Clone(m.servers) }

// Connect connects the servers in order. Without AllowPartialFailure, the
// first server that fails makes Connect close every server it opened and
// return an error naming that server (agno logs instead and leaves the
// caller to find out from an empty toolkit; an error return is how a Go
// caller learns it, and the clean-up is the same). With
// AllowPartialFailure, failed servers are skipped (see Failures) and
// Connect fails only when none connected. Either way a failed Connect
// leaves nothing open and may simply be retried.
func (m *MultiTools) Connect(ctx context.Context) error {
	m.connectMu.Lock()
	defer m.connectMu.Unlock()
	m.mu.Lock()
	done := len(m.connected) > 0
	m.mu.Unlock()
	if done {
		return nil
	}
	var ok []*Tools
	var failures []error
	for i, t := range m.servers {
		err := t.Connect(ctx)
		if err == nil {
			ok = append(ok, t)
			continue
		}
		err = fmt.Errorf("server %d: %w", i, err)
		if ctx.Err() != nil || !m.partial {
			closeAll(ok)
			return fmt.Errorf("MCP connection failed: %w", err)
		}
		m.log.Warn("mcp: server failed to connect; continuing without it", "toolkit", m.name, "error", err)
		failures = append(failures, err)
	}
	if len(ok) == 0 {
		//lint:ignore ST1005 agno's message, word for word
		return fmt.Errorf("All MCP connections failed: %w", errors.Join(failures...))
	}
	m.mu.Lock()
	m.connected, m.failures = ok, failures
	m.mu.Unlock()
	return nil
}

// Failures are the servers skipped by the last Connect under
// AllowPartialFailure.
func (m *MultiTools) Failures() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.failures)
}

// Close closes every server. It is idempotent; Connect may follow.
func (m *MultiTools) Close() error {
	m.connectMu.Lock()
	defer m.connectMu.Unlock()
	m.mu.Lock()
	m.connected, m.failures = nil, nil
	m.mu.Unlock()
	closeAll(m.servers)
	return nil
}

func closeAll(ts []*Tools) {
	var wg sync.WaitGroup
	for _, t := range ts {
		wg.Go(func() { _ = t.Close() })
	}
	wg.Wait()
}

// Functions returns the tools of every connected server; a later server's
// tool replaces an earlier one of the same name, as in agno. A server
// whose tools cannot be had (a failed refresh) is left out with a
// warning, as agno skips it; only when every server fails is it an error.
func (m *MultiTools) Functions(ctx context.Context) ([]*tool.Function, error) {
	m.mu.Lock()
	servers := slices.Clone(m.connected)
	m.mu.Unlock()
	if len(servers) == 0 {
		return nil, ErrNotConnected
	}
	var out []*tool.Function
	var errs []error
	at := map[string]int{}
	for _, t := range servers {
		fns, err := t.Functions(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			m.log.Warn("mcp: leaving out a server's tools", "toolkit", m.name, "server", t.String(), "error", err)
			errs = append(errs, err)
			continue
		}
		for _, f := range fns {
			if i, dup := at[f.Name]; dup {
				m.log.Warn("mcp: tool name served twice; the later server wins", "toolkit", m.name, "tool", f.Name, "server", t.String())
				out[i] = f
				continue
			}
			at[f.Name] = len(out)
			out = append(out, f)
		}
	}
	if len(errs) == len(servers) {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Call calls a tool by its function name on the server that has it,
// connecting first when needed.
func (m *MultiTools) Call(ctx context.Context, name string, args map[string]any) (tool.Result, error) {
	m.mu.Lock()
	connected := len(m.connected) > 0
	m.mu.Unlock()
	if !connected {
		if err := m.Connect(ctx); err != nil {
			return tool.Result{}, err
		}
	}
	fns, err := m.Functions(ctx)
	if err != nil {
		return tool.Result{}, err
	}
	names := make([]string, len(fns))
	for i, f := range fns {
		if f.Name == name {
			return f.Handler(ctx, args)
		}
		names[i] = f.Name
	}
	return tool.Result{}, fmt.Errorf("%w %q in %s (it has: %s)", ErrUnknownTool, name, m.name, strings.Join(names, ", "))
}

// ReleaseRun closes the sessions every server cached for the run.
func (m *MultiTools) ReleaseRun(runID string) {
	for _, t := range m.servers {
		t.ReleaseRun(runID)
	}
}

// OpenSessions is the number of open sessions over all servers.
func (m *MultiTools) OpenSessions() int {
	n := 0
	for _, t := range m.servers {
		n += t.OpenSessions()
	}
	return n
}
