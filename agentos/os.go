// Package agentos is AgentOS: an HTTP + SSE + WebSocket server that runs
// agents, teams and workflows with agno v2.6.13's API — the same routes,
// form fields, JSON field names, SSE event names and WebSocket messages —
// so agno's own clients talk to it unchanged.
//
// Code-defined and file-defined resources mix: build the declarative
// files with config.Build, passing the Go-defined agents, teams and
// workflows in config.Existing so files can name them (as team members,
// workflow steps), then give AgentOS both sets:
//
//	res, err := cfg.Build(ctx, config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
//	srv, err := agentos.New(agentos.Config{
//		Agents: append(res.Agents, helper), Teams: res.Teams, Workflows: res.Workflows,
//		Store: res.Store, Closers: []func() error{res.Close},
//	})
//
// Build does not return the existing resources it was given; a file
// whose id is that of an existing resource is refused.
package agentos

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/agentos/approvalsapi"
	"github.com/agno-go/agno/agentos/componentsapi"
	"github.com/agno-go/agno/agentos/evalsapi"
	"github.com/agno-go/agno/agentos/knowledgeapi"
	"github.com/agno-go/agno/agentos/memoriesapi"
	"github.com/agno-go/agno/agentos/metricsapi"
	"github.com/agno-go/agno/agentos/registryapi"
	"github.com/agno-go/agno/agentos/runsapi"
	"github.com/agno-go/agno/agentos/schedulesapi"
	"github.com/agno-go/agno/agentos/sessionsapi"
	"github.com/agno-go/agno/agentos/tracesapi"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// Version is the agno API version AgentOS reports.
const Version = "2.6.13"

// Config configures AgentOS.
type Config struct {
	ID          string
	Name        string
	Description string
	Version     string

	Agents    []*agent.Agent
	Teams     []*team.Team
	Workflows []*workflow.Workflow
	// Tools and Functions are extra entries for the registry listing
	// (toolkits and workflow step functions registered by name).
	Tools     []tool.Provider
	Functions map[string]any
	// Knowledge are knowledge bases served on the /knowledge routes
	// besides those of the agents and teams (agno's AgentOS(knowledge=)).
	Knowledge []*knowledge.Knowledge

	// Store is the OS database: sessions, runs, events, memories.
	Store storage.Store
	// Runs is the run engine: leases, cross-instance cancel and resume
	// (agno agentos start makes and starts one). Default the store's
	// library engine, whose in-flight runs of no owner New recovers.
	Runs *runs.Engine
	DBID string
	// DB holds the control plane's tables: approvals, schedules, traces,
	// metrics, evals and components (agno's AgentOS(db=...)). Without it
	// those routes answer 503, as agno's do without a db.
	DB *sqldb.DB
	// Scheduler runs the cron poller (agno's scheduler=True).
	Scheduler SchedulerConfig
	// Tracing records spans of runs into DB (agno's tracing=True).
	Tracing TracingConfig
	// Metrics sets how often the daily metrics are recomputed.
	Metrics MetricsConfig
	// Components builds the components stored in DB into live entries.
	Components ComponentsConfig

	// SecurityKey enables bearer auth (OS_SECURITY_KEY). Without it,
	// ProtectedMode (default true) answers loopback clients only.
	SecurityKey   string
	ProtectedMode *bool
	// Authorization enables JWT mode (agno's authorization=True): agno's
	// scopes on every route, and with UserIsolation a token's sub owns
	// its sessions, runs and memories. It takes the place of SecurityKey.
	Authorization *auth.Config
	// CORSOrigins replaces agno's default allowed origins.
	CORSOrigins []string
	// AllowedHosts are Host values protected mode accepts besides
	// loopback names and addresses.
	AllowedHosts []string

	// Interfaces are agno's interfaces (interfaces=[...]): the built-in
	// ones' constructors, or a program's own Interface, each
	// serving its routes and listed in /config.
	Interfaces []Interface

	// MaxUploadBytes bounds one run request's body, uploads included
	// (default 32 MiB); MaxFileBytes one uploaded file (default
	// MaxUploadBytes). Larger requests get 413.
	MaxUploadBytes int64
	MaxFileBytes   int64
	// SpoolDir holds uploads, as private files, until their run stores
	// them (default a new private directory under os.TempDir(), removed
	// at Close).
	SpoolDir string

	// IdleTimeout closes a keep-alive connection that has waited that
	// long for its next request (default DefaultIdleTimeout; [agentos]
	// idle_timeout_seconds).
	IdleTimeout time.Duration
	// AccessLog writes one INFO line per request (method, path, status,
	// bytes, duration, run id); [agentos] access_log, on by default at
	// --log-level debug.
	AccessLog bool
	// BodyReadTimeout closes the connection of a request whose body
	// sends nothing for that long (default DefaultBodyReadTimeout). It
	// bounds each wait for the next bytes, not the whole body: a large
	// upload on a slow link goes on as long as bytes arrive. Responses
	// have no write timeout: SSE streams last as long as their run.
	BodyReadTimeout time.Duration
	// WSAuthTimeout closes a /workflows/ws socket that has not
	// authenticated (with a key or JWT), or sent its first message (no
	// auth), that long after it opened (default DefaultWSAuthTimeout).
	WSAuthTimeout time.Duration

	// SubAgentToParent mirrors settings.json
	// runtime.event_streaming.sub_agent_to_parent (informational here:
	// agents built from config already carry it).
	ShutdownTimeout time.Duration // default 30s
	// Closers are released at shutdown (MCP toolkits, storage).
	Closers []func() error
	// OnReload re-reads declarative sources (OS.Reload, which agno start
	// calls on SIGHUP; agno's resync() is a Python method, not a route)
	// given the catalog being served, whose resources it may keep (a file
	// that no longer loads keeps its previous version); nil disables
	// reloads.
	OnReload func(ctx context.Context, current Catalog) (Catalog, error)

	Logger *slog.Logger
}

// Catalog is the set of resources AgentOS serves.
type Catalog struct {
	Agents    []*agent.Agent
	Teams     []*team.Team
	Workflows []*workflow.Workflow
}

type catalog struct {
	Catalog
	agents    map[string]*agent.Agent
	teams     map[string]*team.Team
	workflows map[string]*workflow.Workflow

	// registry is built on first use; a reload swaps in a new catalog.
	registryOnce sync.Once
	registry     *Registry
}

func newCatalog(c Catalog) (*catalog, error) {
	cat := &catalog{Catalog: c, agents: map[string]*agent.Agent{}, teams: map[string]*team.Team{}, workflows: map[string]*workflow.Workflow{}}
	for _, a := range c.Agents {
		if _, dup := cat.agents[a.ID()]; dup {
			return nil, fmt.Errorf("agentos: two agents have the id %q", a.ID())
		}
		cat.agents[a.ID()] = a
	}
	for _, t := range c.Teams {
		if _, dup := cat.teams[t.ID()]; dup {
			return nil, fmt.Errorf("agentos: two teams have the id %q", t.ID())
		}
		cat.teams[t.ID()] = t
	}
	for _, w := range c.Workflows {
		if _, dup := cat.workflows[w.ID()]; dup {
			return nil, fmt.Errorf("agentos: two workflows have the id %q", w.ID())
		}
		cat.workflows[w.ID()] = w
	}
	return cat, nil
}

// OS is a running AgentOS.
type OS struct {
	cfg          Config
	cat          atomic.Pointer[catalog]
	log          *slog.Logger
	instantiated time.Time
	eng          *runs.Engine
	// verifier checks JWTs; nil outside JWT mode.
	verifier *auth.Verifier

	reloadMu sync.Mutex
	closed   atomic.Bool
	// draining: shutdown began; no run starts.
	draining atomic.Bool
	// ready holds /ready's check in flight and the cause last logged.
	ready readiness

	limits limits
	// ownSpool is the spool directory New made (removed at Close).
	ownSpool string
	// knowledge serves the knowledge bases and runs their uploads in the
	// background.
	knowledge *knowledgeapi.Group
	// approvalHooks answer approvals of runs the interfaces started
	// (Host.OnApproval).
	approvalHooks []ApprovalHook
	// interfaceMigrations are the interfaces' own tables in Config.DB
	// (Host.RegisterMigrations).
	interfaceMigrations []func(*sqldb.DB) []sqldb.Migration
	// registryAPI serves GET /registry (agentos/registryapi).
	registryAPI *registryapi.Group

	// memories is the Memory route group.
	memories *memoriesapi.Group
	// sessions is the Sessions route group.
	sessions *sessionsapi.Group
	// runsAPI is the agents', teams' and workflows' route group.
	runsAPI *runsapi.Group

	// The control plane (control.go), each nil without a DB (approvals,
	// schedules, metrics, traces, evals and components: made by New,
	// started with a DB).
	approvals  *approvalsapi.Group
	schedules  *schedulesapi.Group
	traces     *tracesapi.Group
	metrics    *metricsapi.Group
	evals      *evalsapi.Group
	components *componentsapi.Group

	// served are the stored components the catalog serves (guarded by
	// reloadMu but for objs).
	served servedComponents

	// internal serves the requests objects made through the API send for
	// their principals (actas.go).
	internalOnce sync.Once
	internal     http.Handler
}

// New validates cfg and returns the OS. It marks runs left RUNNING by a
// crashed process as ERROR.
func New(cfg Config) (*OS, error) {
	if cfg.Name == "" {
		cfg.Name = "Agno AgentOS"
	}
	if cfg.ID == "" {
		cfg.ID = agent.DefaultID(cfg.Name)
	}
	if cfg.Version == "" {
		cfg.Version = Version
	}
	if cfg.DBID == "" && cfg.Store != nil {
		cfg.DBID = "agno-db"
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if err := cfg.setTimeouts(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.Agents)+len(cfg.Teams)+len(cfg.Workflows) == 0 && cfg.Store == nil {
		return nil, errors.New("agentos: nothing to serve; give at least one agent, team or workflow, or a Store")
	}
	cat, err := newCatalog(Catalog{Agents: cfg.Agents, Teams: cfg.Teams, Workflows: cfg.Workflows})
	if err != nil {
		return nil, err
	}
	if err := checkInterfaces(cfg.Interfaces, cat); err != nil {
		return nil, err
	}
	o := &OS{cfg: cfg, log: cfg.Logger, instantiated: time.Now().UTC(), eng: cfg.Runs}
	o.metrics = metricsapi.New(groupHost{&Host{o: o}}, cfg.Metrics)
	o.traces = tracesapi.New(tracesHost{&Host{o: o}}, cfg.Tracing)
	o.memories = memoriesapi.New(memoriesHost{groupHost{&Host{o: o}}})
	o.evals = evalsapi.New(evalsHost{groupHost{&Host{o: o}}})
	o.registryAPI = registryapi.New(registryHost{o})
	o.sessions = sessionsapi.New(groupHost{&Host{o: o}})
	o.runsAPI = runsapi.New(runsHost{groupHost{&Host{o: o}}})
	o.schedules = schedulesapi.New(schedulesHost{&Host{o: o}}, cfg.Scheduler)
	o.components = componentsapi.New(componentsHost{&Host{o: o}}, componentsapi.Config{Serve: cfg.Components.Build != nil, Poll: cfg.Components.Poll})
	o.approvals = approvalsapi.New(approvalsHost{&Host{o: o}})
	if o.eng == nil {
		o.eng = runs.For(cfg.Store)
		// A library engine has no lease: runs it left in flight are those
		// of a stopped process.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := o.eng.Recover(ctx)
		cancel()
		if err != nil {
			o.log.Warn("could not check for runs left running by a previous process", "error", err)
		}
	}
	if err := o.setLimits(); err != nil {
		return nil, err
	}
	if cfg.Authorization != nil {
		v, err := auth.NewVerifier(*cfg.Authorization)
		if err != nil {
			o.removeSpool()
			return nil, fmt.Errorf("agentos: authorization: %w", err)
		}
		o.verifier = v
	}
	o.cat.Store(cat)
	o.knowledge = knowledgeapi.New(knowledgeHost{&Host{o: o}}, knowledgeapi.Config{DBID: cfg.DBID, Uploads: o.limits})
	if err := o.knowledge.Start(); err != nil {
		o.removeSpool()
		return nil, err
	}
	if err := o.startInterfaces(); err != nil {
		o.knowledge.Stop()
		o.removeSpool()
		return nil, err
	}
	if err := o.startControl(); err != nil {
		o.knowledge.Stop()
		o.stopInterfaces(len(cfg.Interfaces))
		o.removeSpool()
		return nil, err
	}
	return o, nil
}

func (o *OS) catalog() *catalog { return o.cat.Load() }

// Catalog returns the agents, teams and workflows served now.
func (o *OS) Catalog() Catalog { return o.catalog().Catalog }

// Replace swaps in a new catalog (a reload). Runs in flight keep the
// resources they started with.
func (o *OS) Replace(c Catalog) error {
	cat, err := newCatalog(c)
	if err != nil {
		return err
	}
	o.cat.Store(cat)
	o.log.Info("agentos resources reloaded", "agents", len(c.Agents), "teams", len(c.Teams), "workflows", len(c.Workflows))
	return nil
}

// Reload re-reads declarative sources through Config.OnReload.
func (o *OS) Reload(ctx context.Context) error {
	if o.cfg.OnReload == nil {
		return errors.New("agentos: no reload source configured")
	}
	o.reloadMu.Lock()
	defer o.reloadMu.Unlock()
	c, err := o.cfg.OnReload(ctx, o.catalog().Catalog)
	if err != nil {
		return err
	}
	c = o.keepComponents(c) // sources do not hold the stored components
	if err := o.Replace(c); err != nil {
		return err
	}
	o.LogRegistry()
	return nil
}

// ListenAndServe serves on addr until ctx ends, then shuts down
// gracefully.
func (o *OS) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return o.Serve(ctx, ln)
}

// Serve serves on ln until ctx ends: then it stops accepting, lets runs
// finish up to ShutdownTimeout, cancels the rest (stored CANCELLED, never
// left RUNNING) and releases resources.
func (o *OS) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler: o.refuseWhileDraining(bodyDeadline(o.Handler(), o.cfg.BodyReadTimeout)),
		// Slowloris: headers must arrive within 10 s, and a body that
		// stalls BodyReadTimeout is cut (bodyDeadline). No ReadTimeout
		// (it would bound a whole upload, however steadily it arrives)
		// and no WriteTimeout (it would cut SSE streams and long runs).
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       o.cfg.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	// Logged before the first request can be answered: a client that saw
	// /health answer finds the line (the listener is bound already).
	o.log.Info("AgentOS listening", "addr", ln.Addr().String(), "name", o.cfg.Name)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		o.Close()
		return err
	case <-ctx.Done():
	}
	o.log.Info("AgentOS shutting down", "timeout", o.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), o.cfg.ShutdownTimeout)
	defer cancel()
	o.draining.Store(true)
	// No schedule fires into a server that is draining.
	o.schedules.Stop()
	// The listener stays open while the runs in flight end: a new request
	// gets a 503 (and its connection closed), so a load balancer sees the
	// drain and sends it elsewhere, instead of connections refused.
	srv.SetKeepAlivesEnabled(false)
	if ids := o.eng.Drain(sctx, errShutdown); len(ids) > 0 {
		sort.Strings(ids)
		o.log.Warn("cancelled runs still running at shutdown", "runs", ids)
	}
	// The rest of the timeout (at least a moment) for the answers still
	// being written, then every connection goes.
	fctx, fcancel := context.WithTimeout(context.Background(), max(time.Until(deadlineOf(sctx)), time.Second))
	defer fcancel()
	if err := srv.Shutdown(fctx); err != nil {
		_ = srv.Close()
	}
	<-errc
	return o.Close()
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}

// refuseWhileDraining answers every request that arrives during a drain
// with agno's 503 shape, on a connection it then closes.
func (o *OS) refuseWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.draining.Load() && !isReadyPath(r.URL.Path) { // /ready answers its own shape (ready.go)
			w.Header().Set("Connection", "close")
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, shuttingDown)
			return
		}
		next.ServeHTTP(w, r)
	})
}

var errShutdown = errors.New("server shutting down")

// Close releases resources (MCP sessions, storage); idempotent.
func (o *OS) Close() error {
	if o.closed.Swap(true) {
		return nil
	}
	o.knowledge.Stop() // before the stores close
	o.stopControl()
	o.stopInterfaces(len(o.cfg.Interfaces))
	var errs []error
	for _, a := range o.catalog().Agents {
		errs = append(errs, a.Close())
	}
	for _, t := range o.catalog().Teams {
		errs = append(errs, t.Close())
	}
	for _, c := range o.cfg.Closers {
		errs = append(errs, c())
	}
	if o.ownSpool != "" {
		errs = append(errs, os.RemoveAll(o.ownSpool))
	}
	return errors.Join(errs...)
}

// removeSpool removes the spool directory New made, when New fails
// after making it.
func (o *OS) removeSpool() {
	if o.ownSpool != "" {
		_ = os.RemoveAll(o.ownSpool)
	}
}

// DefaultMaxUploadBytes is the default bound of a run request's body.
const DefaultMaxUploadBytes = 32 << 20

// setLimits checks the upload limits and makes the spool directory.
func (o *OS) setLimits() error {
	c := &o.cfg
	if c.MaxUploadBytes < 0 || c.MaxFileBytes < 0 {
		return errors.New("agentos: MaxUploadBytes and MaxFileBytes (max_upload_bytes, max_file_bytes) must be positive")
	}
	if c.MaxUploadBytes == 0 {
		c.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if c.MaxFileBytes == 0 {
		c.MaxFileBytes = c.MaxUploadBytes
	}
	if c.MaxFileBytes > c.MaxUploadBytes {
		return fmt.Errorf("agentos: MaxFileBytes (max_file_bytes = %d) is larger than MaxUploadBytes (max_upload_bytes = %d), which bounds the whole request: lower it or raise max_upload_bytes", c.MaxFileBytes, c.MaxUploadBytes)
	}
	dir := c.SpoolDir
	if dir == "" {
		d, err := os.MkdirTemp("", "agno-uploads-") // 0700
		if err != nil {
			return fmt.Errorf("agentos: create the upload spool directory: %w", err)
		}
		dir, o.ownSpool = d, d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("agentos: SpoolDir %s: %w", dir, err)
	}
	o.limits = limits{Request: c.MaxUploadBytes, File: c.MaxFileBytes, SpoolDir: dir}
	return nil
}
