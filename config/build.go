package config

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/driver"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/daytona"
	"github.com/agno-go/agno/tool/file"
	"github.com/agno-go/agno/tool/mcp"
	"github.com/agno-go/agno/tool/shell"
	_ "github.com/agno-go/agno/tool/toolkits" // the built-in toolkits register themselves
	"github.com/agno-go/agno/workflow"
)

// Functions are the Go functions declarative files refer to by name.
type Functions struct {
	// Tools are offered to agents and teams as tools = ["<name>"].
	Tools map[string]tool.Provider
	// Steps run as workflow steps: function = "<name>".
	Steps map[string]workflow.StepFunc
	// Conditions, Selectors and EndConditions are named by evaluator,
	// selector and end_condition (anything that is not a plain name is a
	// CEL expression).
	Conditions    map[string]func(ctx context.Context, in *workflow.StepInput) (bool, error)
	Selectors     map[string]func(ctx context.Context, in *workflow.StepInput, choices []string) ([]string, error)
	EndConditions map[string]func(outputs []*workflow.StepOutput) bool
}

// Existing are the agents, teams and workflows defined in code, which
// declarative files may refer to by id.
type Existing struct {
	Agents    []*agent.Agent
	Teams     []*team.Team
	Workflows []*workflow.Workflow
}

// Built-in toolkit names, as agents list them in tools;
// tool.ToolkitNames lists every registered one.
const (
	ToolkitShell   = shell.ToolkitName
	ToolkitFile    = file.ToolkitName
	ToolkitDaytona = daytona.ToolkitName
)

// Resources are the live objects Build made from the configuration.
type Resources struct {
	// Store keeps sessions, runs and events; every file-defined resource
	// uses it (code-defined ones lacking a store are AgentOS's to wire).
	Store storage.Store
	// DB holds the control plane's tables (approvals, schedules, traces,
	// metrics, evals, components): the store's SQLite file or Postgres
	// schema, a private in-memory SQLite database with the memory store.
	DB *sqldb.DB
	// Models by their [models] key.
	Models map[string]model.Model
	// MCP toolkits by [mcp.servers] name; connected on first use.
	MCP map[string]*mcp.Tools
	// Toolkits are the registered toolkits built so far; one instance
	// each, shared by the agents naming them. A toolkit with a
	// [toolkits.<name>] table is built at Build; any other when a
	// resource first names it, so the dozens nobody uses cost nothing
	// (and their constructors' key warnings are not logged).
	Toolkits map[string]tool.Provider
	// Knowledge are the knowledge bases of [knowledge], by name, and
	// KnowledgeTables their contents tables.
	Knowledge       map[string]*knowledge.Knowledge
	KnowledgeTables map[string]string
	// Outbound is the client of [outbound] for every fetch made on a
	// caller's or a model's behalf: internal addresses are refused unless
	// allowed. The knowledge bases fetch URLs with it.
	Outbound *http.Client

	// Agents, Teams and Workflows defined by files in the sources
	// directories.
	Agents    []*agent.Agent
	Teams     []*team.Team
	Workflows []*workflow.Workflow

	// Interfaces are the [interfaces.<name>] tables resolved, those left
	// off omitted, in registration order (agentos.Config.Interfaces).
	Interfaces []agentos.Interface

	// Report says what was scanned, loaded and what failed, for the
	// start-up log.
	Report Report

	cfg        *Config
	fn         Functions
	existing   Existing
	mcpErr     map[string]error
	toolkitErr map[string]error
	// toolkitMu guards Toolkits and toolkitErr once sources load; views
	// made by WithCatalog share it.
	toolkitMu  *sync.Mutex
	transports []*http.Transport
	strings    *modelStrings
	// closers release the knowledge stores, before the storage.
	closers []func() error

	closeOnce sync.Once
	closeErr  error
}

// Build opens the storage, creates the model clients, MCP toolkits and
// built-in toolkits, and, when registry_auto_populate and
// refresh_on_start are on, loads the agents, teams and workflows of the
// sources directories. Nothing else starts: MCP servers are started or
// dialled on first use, models are clients only.
//
// A model whose API key variable is not set is not an error: Build logs
// one warning naming the model and the variable, and every run using that
// model fails with an error saying what to export (see ModelConfig).
//
// A resource file that fails to load is reported in Resources.Report and
// skipped; the others load. Build fails only for what AgentOS cannot start
// without: the storage, or a model or MCP server it cannot configure.
// Close the Resources when done.
func (c *Config) Build(ctx context.Context, fn Functions, existing Existing) (*Resources, error) {
	if err := fn.validate(); err != nil {
		return nil, err
	}
	if err := c.checkComponentTools(fn); err != nil {
		return nil, err
	}
	log := c.logger()
	r := &Resources{
		Models: map[string]model.Model{}, MCP: map[string]*mcp.Tools{}, Toolkits: map[string]tool.Provider{},
		Knowledge: map[string]*knowledge.Knowledge{}, KnowledgeTables: map[string]string{},
		cfg: c, fn: fn, existing: existing, mcpErr: map[string]error{}, toolkitErr: map[string]error{}, toolkitMu: &sync.Mutex{},
		strings: &modelStrings{},
	}
	store, err := c.openStore(ctx)
	if err != nil {
		return nil, err
	}
	r.Store = store
	if r.DB, err = c.openDB(ctx); err != nil {
		r.Close()
		return nil, err
	}

	var missing []MissingKey
	for _, name := range sortedKeys(c.Models) {
		m, tr, mk, err := c.buildModel(name, c.Models[name])
		if tr != nil {
			r.transports = append(r.transports, tr)
		}
		if err != nil {
			r.Close()
			return nil, err
		}
		r.Models[name] = m
		if mk != nil {
			missing = append(missing, *mk)
			log.Warn("model API key is not set; runs using this model will fail until it is exported",
				"model", name, "env", mk.Env, "fix", fmt.Sprintf("export %s=<your key> and restart AgentOS", mk.Env))
		}
	}

	if err := c.buildOutbound(r); err != nil {
		r.Close()
		return nil, err
	}
	if err := c.buildKnowledge(ctx, r); err != nil {
		r.Close()
		return nil, err
	}

	for _, name := range sortedKeys(c.MCP.Servers) {
		t, err := c.buildMCP(name, c.MCP.Servers[name])
		if err != nil {
			if errors.Is(err, errMCPUnusable) {
				r.mcpErr[name] = err
				log.Warn("MCP server unusable; resources using it are skipped", "server", name, "error", err)
				continue
			}
			r.Close()
			return nil, err
		}
		r.MCP[name] = t
	}

	for _, name := range tool.ToolkitNames() {
		if !c.toolkitTables[name] {
			continue // built when a resource names it
		}
		if _, err := r.toolkit(name); err != nil {
			log.Warn("toolkit could not be built; resources using it are skipped", "toolkit", name, "error", err)
		}
	}

	report := Report{ConfigFile: c.Path, AutoPopulate: c.AgentOS.RegistryAutoPopulate, RefreshOnStart: c.AgentOS.Registry.RefreshOnStart, MissingKeys: missing}
	if c.AgentOS.RegistryAutoPopulate && c.AgentOS.Registry.RefreshOnStart {
		src, rep := c.loadSources(ctx, r, nil)
		r.Agents, r.Teams, r.Workflows = src.Agents, src.Teams, src.Workflows
		rep.MissingKeys = missing
		report = rep
	} else {
		report.Sources = slices.Clone(c.AgentOS.Registry.Sources)
	}
	r.Report = report
	if r.Interfaces, err = c.buildInterfaces(r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (c *Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

func (fn Functions) validate() error {
	var errs []error
	for name := range fn.Tools {
		if _, builtin := tool.LookupToolkit(name); builtin {
			errs = append(errs, fmt.Errorf("config: Functions.Tools has %q, the name of a built-in toolkit: register it under another name", name))
		}
		if name == "" || !identifierRE.MatchString(name) {
			errs = append(errs, fmt.Errorf("config: Functions.Tools has the name %q: use letters, digits and _ so files can refer to it", name))
		}
	}
	errs = append(errs, nilEntries("Tools", fn.Tools)...)
	errs = append(errs, nilEntries("Steps", fn.Steps)...)
	errs = append(errs, nilEntries("Conditions", fn.Conditions)...)
	errs = append(errs, nilEntries("Selectors", fn.Selectors)...)
	errs = append(errs, nilEntries("EndConditions", fn.EndConditions)...)
	return errors.Join(errs...)
}

func nilEntries[V any](table string, m map[string]V) []error {
	var errs []error
	for _, name := range sortedKeys(m) {
		v := reflect.ValueOf(m[name])
		nilable := v.IsValid() && slices.Contains([]reflect.Kind{reflect.Pointer, reflect.Func, reflect.Map, reflect.Slice, reflect.Chan, reflect.Interface}, v.Kind())
		if !v.IsValid() || nilable && v.IsNil() {
			errs = append(errs, fmt.Errorf("config: Functions.%s[%q] is nil", table, name))
		}
	}
	return errs
}

// Close releases what Build opened: MCP sessions and the processes behind
// them, model connection pools and the storage. It is safe to call more
// than once.
func (r *Resources) Close() error {
	r.closeOnce.Do(func() {
		var errs []error
		for _, name := range sortedKeys(r.MCP) {
			errs = append(errs, r.MCP[name].Close())
		}
		for _, t := range r.transports {
			t.CloseIdleConnections()
		}
		if r.strings != nil {
			r.strings.close()
		}
		for i := len(r.closers) - 1; i >= 0; i-- {
			errs = append(errs, r.closers[i]())
		}
		if r.DB != nil {
			errs = append(errs, r.DB.Close())
		}
		if r.Store != nil {
			errs = append(errs, r.Store.Close())
		}
		r.closeErr = errors.Join(errs...)
	})
	return r.closeErr
}

// Config returns the configuration the resources were built from.
func (r *Resources) Config() *Config { return r.cfg }

// openStore opens the run store of [storage] through its driver.
func (c *Config) openStore(ctx context.Context) (storage.Store, error) {
	d, s, err := c.storageDriver()
	if err != nil {
		return nil, err
	}
	return opened(d.OpenStore(ctx, s))
}

// openDB opens the control plane's database where the store is.
func (c *Config) openDB(ctx context.Context) (*sqldb.DB, error) {
	d, s, err := c.storageDriver()
	if err != nil {
		return nil, err
	}
	return opened(d.OpenDB(ctx, s))
}

// opened is what a driver opened, its error said to be the config's.
func opened[T any](v T, err error) (T, error) {
	if err != nil {
		return v, fmt.Errorf("config: %w", err)
	}
	return v, nil
}

// storageDriver is [storage]'s driver and settings; 0 bounds leave the
// driver's defaults.
func (c *Config) storageDriver() (driver.Driver, driver.Settings, error) {
	name := cmp.Or(c.Storage.Driver, driver.DefaultName())
	d, ok := driver.Lookup(name)
	if !ok {
		return driver.Driver{}, driver.Settings{}, fmt.Errorf("config: [storage] driver %q: use %s", name, driver.Choices())
	}
	return d, c.Storage.settings(c), nil
}

// errMCPUnusable marks an MCP server that is configured right but cannot
// be used in this environment (a header variable is not set).
var errMCPUnusable = errors.New("MCP server unusable")

func (c *Config) buildMCP(name string, s MCPServerConfig) (*mcp.Tools, error) {
	env := map[string]string{}
	for k, v := range s.Env {
		env[k] = v
	}
	for _, v := range s.PassEnv {
		if val, ok := os.LookupEnv(v); ok {
			env[v] = val
		} else {
			c.logger().Warn("MCP server: a pass_env variable is not set", "server", name, "env", v)
		}
	}
	headers := map[string]string{}
	for k, v := range s.Headers {
		headers[k] = v
	}
	var missing []string
	for _, h := range sortedKeys(s.HeadersEnv) {
		v := os.Getenv(s.HeadersEnv[h])
		if v == "" {
			missing = append(missing, s.HeadersEnv[h])
			continue
		}
		headers[h] = v
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("%w: [mcp.servers.%s] headers_env names variables that are not set: %v; export them and restart AgentOS", errMCPUnusable, name, missing)
	}
	cfg := mcp.Config{
		Name:                           name,
		Transport:                      mcp.Transport(s.Transport),
		Command:                        s.Command,
		Args:                           s.Args,
		URL:                            s.URL,
		Timeout:                        s.TimeoutSeconds.Duration(),
		HTTPTimeout:                    s.HTTPTimeoutSeconds.Duration(),
		ConnectTimeout:                 s.ConnectTimeoutSeconds.Duration(),
		RefreshConnection:              s.RefreshConnection,
		Instructions:                   s.Instructions,
		AddInstructions:                s.AddInstructions,
		IncludeTools:                   s.IncludeTools,
		ExcludeTools:                   s.ExcludeTools,
		ToolNamePrefix:                 s.ToolNamePrefix,
		RequiresConfirmationTools:      s.RequiresConfirmationTools,
		ExternalExecutionRequiredTools: s.ExternalExecutionRequiredTools,
		StopAfterToolCallTools:         s.StopAfterToolCallTools,
		ShowResultTools:                s.ShowResultTools,
		Logger:                         c.Logger,
	}
	if len(env) > 0 {
		cfg.Env = env
	}
	if len(headers) > 0 {
		cfg.Headers = headers
	}
	t, err := mcp.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("config: [mcp.servers.%s] in %s: %w", name, c.Path, err)
	}
	return t, nil
}

// toolkit is the registered toolkit name, built on first use with its
// options, or the error building it gave.
func (r *Resources) toolkit(name string) (tool.Provider, error) {
	r.toolkitMu.Lock()
	defer r.toolkitMu.Unlock()
	if p, ok := r.Toolkits[name]; ok {
		return p, nil
	}
	if err := r.toolkitErr[name]; err != nil {
		return nil, err
	}
	p, err := r.cfg.buildToolkit(name, r)
	if err != nil {
		r.toolkitErr[name] = err
		return nil, err
	}
	r.Toolkits[name] = p
	return p, nil
}

// buildToolkit builds a registered toolkit from its [toolkits.<name>]
// options (its defaults for a Config not made by Load), with r's
// resources to act on.
func (c *Config) buildToolkit(name string, r *Resources) (tool.Provider, error) {
	tk, ok := tool.LookupToolkit(name)
	if !ok {
		return nil, fmt.Errorf("unknown toolkit %q", name)
	}
	env := c.toolkitEnv(r.Outbound)
	env.Resolve = r.resolve
	p, err := tk.New(env, c.Toolkits[name])
	if err != nil {
		return nil, err
	}
	sel := c.toolSelections[name]
	p, err = sel.Apply(p)
	if err != nil {
		return nil, fmt.Errorf("[toolkits.%s] include_tools/exclude_tools in %s: %w", name, c.Path, err)
	}
	return p, nil
}

// resolve is the toolkits' ToolkitEnv.Resolve: a knowledge base by its
// [knowledge.<name>], the store, a workflow by id. Workflows are looked
// up when a tool runs: Build loads them after the toolkits. They are the
// program's (Existing) and those Build loaded; a reload's new versions
// are not seen.
func (r *Resources) resolve(kind, name string) (any, error) {
	switch kind {
	case tool.ResourceKnowledge:
		if kb := r.Knowledge[name]; kb != nil {
			return kb, nil
		}
		return nil, fmt.Errorf("there is no [knowledge.%s] table: name one of the knowledge bases (%s) or add the table", name, listOrNone(sortedKeys(r.Knowledge)))
	case tool.ResourceStore:
		if r.Store == nil {
			return nil, errors.New("no store is open")
		}
		return r.Store, nil
	case tool.ResourceWorkflow:
		var ids []string
		for _, w := range slices.Concat(r.existing.Workflows, r.Workflows) {
			if w.ID() == name {
				return w, nil
			}
			ids = append(ids, w.ID())
		}
		return nil, fmt.Errorf("no workflow has the id %q: give the id of one of the workflows (%s)", name, listOrNone(ids))
	}
	return nil, fmt.Errorf("no resource of kind %q", kind)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "there are none"
	}
	return strings.Join(names, ", ")
}

func (c *Config) toolkitEnv(outbound *http.Client) tool.ToolkitEnv {
	return tool.ToolkitEnv{Dir: c.Dir, Logger: c.Logger, HTTPClient: outbound}
}
