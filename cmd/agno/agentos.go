package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/runs/pgsignal"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

func newAgentOSCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "agentos", Short: "Run AgentOS, the agno-compatible API server"}
	cmd.AddCommand(newAgentOSStartCmd())
	return cmd
}

type startFlags struct {
	config, settings, host string
	port                   int
	insecure               bool
	logLevel               string
}

func newAgentOSStartCmd() *cobra.Command {
	var f startFlags
	cmd := &cobra.Command{
		Use:   "start --config config.toml",
		Short: "Start AgentOS with the agents, teams and workflows of a config file",
		Long: `Start AgentOS: load config.toml (and settings.json), open the storage
(SQLite file agno.db beside the config by default), register every agent,
team and workflow found in the registry sources directories, and serve
agno's AgentOS API. SIGINT/SIGTERM shut down gracefully; SIGHUP reloads
the sources directories.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return startAgentOS(ctx, f, nil)
		},
	}
	cmd.Flags().StringVar(&f.config, "config", "config.toml", "path of config.toml")
	cmd.Flags().StringVar(&f.settings, "settings", "", "path of settings.json (default: settings.json beside the config, when present)")
	cmd.Flags().StringVar(&f.host, "host", "", "listen host (overrides [agentos] host)")
	cmd.Flags().IntVar(&f.port, "port", 0, "listen port (overrides [agentos] port)")
	cmd.Flags().BoolVar(&f.insecure, "insecure", false, "serve remote clients without OS_SECURITY_KEY (turns protected mode off)")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	return cmd
}

// startAgentOS runs AgentOS until ctx ends. ready, when set, receives the
// listen address once the server accepts connections.
func startAgentOS(ctx context.Context, f startFlags, ready chan<- string) error {
	logger, err := newLogger(f.logLevel)
	if err != nil {
		return err
	}
	slog.SetDefault(logger)
	cfg, err := loadConfig(f.config, f.settings, logger)
	if err != nil {
		return err
	}
	res, err := cfg.Build(ctx, config.Functions{}, config.Existing{})
	if err != nil {
		return err
	}
	res.Report.Log(logger)

	protected := cfg.AgentOS.ProtectedMode && !f.insecure
	key := os.Getenv("OS_SECURITY_KEY")
	host, port := cfg.AgentOS.Host, cfg.AgentOS.Port
	if f.host != "" {
		host = f.host
	}
	if f.port != 0 {
		port = f.port
	}
	// The port first, then the HITL socket, then the lease: a second start
	// of a serving config fails before it touches anything of the first.
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		_ = res.Close()
		return err
	}
	defer func() {
		if ln != nil {
			_ = ln.Close()
		}
	}()
	eng, err := newEngine(cfg, res.Store, port, logger)
	if err != nil {
		_ = res.Close()
		return err
	}
	// Stopped last: the engine outlives the server's drain.
	closers := []func() error{func() error {
		runs.Detach(eng)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return eng.Release(ctx) // a clean stop: a restart need not wait for the lease
	}}
	var hitlServer *hitl.Server
	var served atomic.Pointer[agentos.OS] // what the socket looks up after a reload
	if cfg.Workflows.HITL.Socket() {
		hitlServer, err = hitl.NewServer(hitlConfig(cfg, res, eng, &served, logger))
		if err != nil {
			_ = res.Close()
			return err
		}
		if err := hitlServer.Start(ctx); err != nil {
			runs.Detach(eng)
			_ = res.Close()
			return fmt.Errorf("HITL socket %s: %w", cfg.Workflows.HITL.SocketPath, err)
		}
		for _, w := range res.Workflows {
			w.SetNotifier(hitlServer)
		}
		closers = append(closers, hitlServer.Close)
	}
	closers = append(closers, res.Close)
	if err := startEngine(ctx, eng, logger); err != nil {
		for _, c := range closers[1:] { // the lease was never taken: nothing to release
			_ = c()
		}
		runs.Detach(eng)
		return err
	}
	// [storage.retention]: prunes in the background; stopped first at shutdown.
	stopRetention, err := agentos.StartRetention(res.Store, agentos.RetentionConfig{Policy: cfg.Storage.Retention.Policy(), Interval: cfg.Storage.Retention.Interval()}, logger)
	if err != nil {
		for _, c := range closers {
			_ = c()
		}
		return err
	}
	closers = append([]func() error{stopRetention}, closers...)

	osID := agentOSID(cfg)
	authz, err := authorizationConfig(cfg, osID)
	if err != nil {
		for _, c := range closers {
			_ = c()
		}
		return err
	}
	if authz != nil {
		key = "" // JWT mode takes the place of OS_SECURITY_KEY, as in agno
	}
	os_, err := agentos.New(agentos.Config{
		ID: osID, Name: cfg.AgentOS.Name, Description: cfg.AgentOS.Description,
		Agents: res.Agents, Teams: res.Teams, Workflows: res.Workflows, Store: res.Store, Runs: eng, Knowledge: res.KnowledgeBases(),
		DB:          res.DB,
		Scheduler:   agentos.SchedulerConfig{Enabled: cfg.Scheduler.Enabled, PollInterval: time.Duration(cfg.Scheduler.PollIntervalSeconds) * time.Second},
		Tracing:     agentos.TracingConfig{Enabled: cfg.Tracing.Enabled, OTLPEndpoint: cfg.Tracing.OTLPEndpoint},
		SecurityKey: key, Authorization: authz, ProtectedMode: &protected, CORSOrigins: cfg.AgentOS.CORSAllowedOrigins, AllowedHosts: cfg.AgentOS.AllowedHosts,
		MaxUploadBytes: cfg.AgentOS.MaxUploadBytes, MaxFileBytes: cfg.AgentOS.MaxFileBytes, IdleTimeout: time.Duration(cfg.AgentOS.IdleTimeoutSeconds) * time.Second,
		AccessLog:  accessLogOn(cfg.AgentOS.AccessLog, f.logLevel),
		Interfaces: res.Interfaces,
		Closers:    closers, Logger: logger,
		OnReload: func(ctx context.Context, current agentos.Catalog) (agentos.Catalog, error) {
			return reloadSources(ctx, cfg, res, current, hitlServer, logger)
		},
		Components: agentos.ComponentsConfig{Build: func(ctx context.Context, kind, id string, c map[string]any, served agentos.Catalog) (*component.Built, error) {
			return res.BuildComponent(ctx, config.Kind(kind), id, c, config.Existing{Agents: served.Agents, Teams: served.Teams, Workflows: served.Workflows})
		}},
	})
	served.Store(os_)
	if err != nil {
		for _, c := range closers {
			_ = c()
		}
		return err
	}
	os_.LogRegistry()
	if key == "" && authz == nil && protected {
		logger.Info("no OS_SECURITY_KEY set: protected mode answers loopback clients only (set OS_SECURITY_KEY, or --insecure / protected_mode = false)")
	}

	if ready != nil {
		ready <- ln.Addr().String()
	}

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if err := os_.Reload(ctx); err != nil {
					logger.Error("reload failed; the previous resources keep running", "error", err)
				}
			}
		}
	}()
	serving := ln
	ln = nil // Serve closes it
	return os_.Serve(ctx, serving)
}

// hitlConfig is the HITL socket of AgentOS: it answers the paused runs of
// every agent, team and workflow served (after a reload too), and hears
// of pauses on every replica through the run engine.
func hitlConfig(cfg *config.Config, res *config.Resources, eng *runs.Engine, served *atomic.Pointer[agentos.OS], logger *slog.Logger) hitl.Config {
	hc := hitl.Config{SocketPath: cfg.Workflows.HITL.SocketPath, Workflows: res.Workflows, Store: res.Store, Runs: eng, StoreEvents: true, Logger: logger}
	for _, a := range res.Agents {
		hc.Agents = append(hc.Agents, a)
	}
	for _, t := range res.Teams {
		hc.Teams = append(hc.Teams, t)
	}
	hc.Lookup = func(id string) *workflow.Workflow {
		if o := served.Load(); o != nil {
			return findWorkflow(o.Catalog().Workflows, id)
		}
		return nil
	}
	hc.LookupAgent = func(id string) run.Executor {
		if o := served.Load(); o != nil {
			if a := findAgent(o.Catalog().Agents, id); a != nil {
				return a
			}
		}
		return nil
	}
	hc.LookupTeam = func(id string) run.Executor {
		if o := served.Load(); o != nil {
			if t := findTeam(o.Catalog().Teams, id); t != nil {
				return t
			}
		}
		return nil
	}
	return hc
}

// newEngine makes the run engine of the store and attaches it (every
// agent, team and workflow on the store runs through it); startEngine
// then takes its lease.
func newEngine(cfg *config.Config, st storage.Store, port int, logger *slog.Logger) (*runs.Engine, error) {
	id := cfg.AgentOS.InstanceID
	if id == "" {
		hostname, err := os.Hostname()
		if err != nil {
			hostname = "localhost"
		}
		id = hostname + ":" + strconv.Itoa(port)
	}
	rc := runs.Config{Store: st, Instance: id, Lease: time.Duration(cfg.AgentOS.LeaseSeconds) * time.Second, Logger: logger}
	// Signals cross the replicas through the database, where it carries
	// them (Postgres LISTEN/NOTIFY); elsewhere the engine polls.
	if sig, ok, err := pgsignal.ForStore(st); err != nil {
		return nil, err
	} else if ok {
		rc.Signals = sig
	}
	eng, err := runs.New(rc)
	if err != nil {
		return nil, err
	}
	if err := runs.Attach(eng); err != nil {
		return nil, err
	}
	return eng, nil
}

// startEngine takes the instance's lease — refused while another live
// process renews it — and only then recovers the runs it left in flight.
func startEngine(ctx context.Context, eng *runs.Engine, logger *slog.Logger) error {
	if err := eng.Start(ctx); err != nil {
		return err
	}
	logger.Info("run engine started", "instance", eng.Instance())
	return nil
}

// reloadSources re-reads the declarative files on top of the startup
// resources; a file that no longer loads keeps the version being served.
func reloadSources(ctx context.Context, cfg *config.Config, base *config.Resources, current agentos.Catalog, hs *hitl.Server, logger *slog.Logger) (agentos.Catalog, error) {
	src, report := cfg.LoadSources(ctx, base.WithCatalog(current.Agents, current.Teams, current.Workflows), config.Functions{})
	report.Log(logger)
	cat := agentos.Catalog{Agents: src.Agents, Teams: src.Teams, Workflows: src.Workflows}
	for _, fr := range src.Files {
		if fr.Err == nil || fr.ID == "" {
			continue
		}
		switch fr.Kind {
		case config.KindAgent:
			if a := findAgent(current.Agents, fr.ID); a != nil {
				cat.Agents = append(cat.Agents, a)
			}
		case config.KindTeam:
			if t := findTeam(current.Teams, fr.ID); t != nil {
				cat.Teams = append(cat.Teams, t)
			}
		case config.KindWorkflow:
			if w := findWorkflow(current.Workflows, fr.ID); w != nil {
				cat.Workflows = append(cat.Workflows, w)
			}
		}
		logger.Warn("reload: keeping the previous version", "file", fr.File, "id", fr.ID, "error", fr.Err)
	}
	if hs != nil {
		for _, w := range cat.Workflows {
			w.SetNotifier(hs)
		}
	}
	return cat, nil
}

func findAgent(list []*agent.Agent, id string) *agent.Agent {
	for _, a := range list {
		if a.ID() == id {
			return a
		}
	}
	return nil
}

func findTeam(list []*team.Team, id string) *team.Team {
	for _, t := range list {
		if t.ID() == id {
			return t
		}
	}
	return nil
}

func findWorkflow(list []*workflow.Workflow, id string) *workflow.Workflow {
	for _, w := range list {
		if w.ID() == id {
			return w
		}
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func newLogger(level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, errors.New("--log-level must be debug, info, warn or error")
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})), nil
}

// agentOSID is the AgentOS id: [agentos] id, or the one agentos.New
// derives from the name.
func agentOSID(cfg *config.Config) string {
	if cfg.AgentOS.ID != "" {
		return cfg.AgentOS.ID
	}
	name := cfg.AgentOS.Name
	if name == "" {
		name = "Agno AgentOS"
	}
	return agent.DefaultID(name)
}

// authorizationConfig is JWT mode's configuration from
// [agentos.authorization] and the environment; nil without the table.
func authorizationConfig(cfg *config.Config, osID string) (*auth.Config, error) {
	a := cfg.AgentOS.Authorization
	if a == nil {
		return nil, nil
	}
	out := &auth.Config{
		Algorithm: a.Algorithm, VerifyAudience: a.VerifyAudience, Audience: a.Audience,
		AdminScope: a.AdminScope, Leeway: time.Duration(a.LeewaySeconds) * time.Second, UserIsolation: a.UserIsolation, RequireExp: a.RequireExp,
		JWKSFile: a.JWKSFile,
	}
	for _, name := range a.VerificationKeysEnv {
		v := os.Getenv(name)
		if v == "" {
			if a.KeysEnvOptional {
				continue
			}
			return nil, fmt.Errorf("[agentos.authorization] verification_keys_env names %s, which is not set: export %s=<the PEM public key or HMAC secret>, or remove it from the list", name, name)
		}
		out.VerificationKeys = append(out.VerificationKeys, v)
		out.KeyNames = append(out.KeyNames, name)
	}
	if out.JWKSFile == "" {
		if f := os.Getenv("JWT_JWKS_FILE"); f != "" {
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, fmt.Errorf("JWT_JWKS_FILE=%s: %w", f, err)
			}
			out.JWKSFile = abs
		}
	}
	if len(out.VerificationKeys) == 0 && out.JWKSFile == "" {
		return nil, fmt.Errorf("[agentos.authorization] has no verification key: export %s=<the PEM public key or HMAC secret>, list the variables holding keys in verification_keys_env, or set jwks_file (or export JWT_JWKS_FILE)", config.DefaultVerificationKeyEnv)
	}
	if out.VerifyAudience && out.Audience == "" {
		out.Audience = osID // agno expects the AgentOS id
	}
	return out, nil
}

// accessLogOn is [agentos] access_log, or on at --log-level debug.
func accessLogOn(set *bool, logLevel string) bool {
	if set != nil {
		return *set
	}
	return strings.EqualFold(logLevel, "debug")
}
