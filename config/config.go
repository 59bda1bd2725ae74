package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/net/http/httpguts"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/model/openairesponses"
	"github.com/agno-go/agno/storage/driver"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
)

// Config is config.toml, the AgentOS configuration. Load fills in the
// defaults and resolves relative paths against the file's directory, so
// every path here is absolute.
type Config struct {
	AgentOS   AgentOSConfig          `toml:"agentos"`
	Models    map[string]ModelConfig `toml:"models"`
	Storage   StorageConfig          `toml:"storage"`
	MCP       MCPConfig              `toml:"mcp"`
	Toolkits  ToolkitsConfig         `toml:"toolkits"`
	Workflows WorkflowsConfig        `toml:"workflows"`
	// Knowledge are the knowledge bases, by the name agents attach them
	// with (knowledge = "<name>").
	Knowledge map[string]KnowledgeConfig `toml:"knowledge"`
	// Interfaces are agno's interfaces ([interfaces.<name>], each
	// decoded by the registered interface: RegisterInterface).
	Interfaces InterfacesConfig `toml:"interfaces"`
	// Scheduler is [scheduler]: the cron poller (off by default).
	Scheduler SchedulerConfig `toml:"scheduler"`
	// Tracing is [tracing]: OpenTelemetry spans of runs (off by default).
	Tracing TracingConfig `toml:"tracing"`
	// Outbound is [outbound]: the internal hosts that fetches made for
	// callers and models may reach (none by default).
	Outbound OutboundConfig `toml:"outbound"`
	// Components is [components]: what configs made through AgentOS's
	// /components routes may use.
	Components ComponentsConfig `toml:"components"`

	// Path is the file's absolute path; Dir its directory, the base of
	// every relative path in it.
	Path string `toml:"-"`
	Dir  string `toml:"-"`
	// Settings are settings.json's switches: DefaultSettings unless
	// WithSettings gave others.
	Settings Settings `toml:"-"`
	// Logger receives Build's warnings; nil is slog.Default().
	Logger *slog.Logger `toml:"-"`

	// toolkitTables are the toolkits the file has a table for: a toolkit
	// that cannot be built is worth a warning only then.
	toolkitTables map[string]bool
	// toolSelections are the include_tools and exclude_tools keys each
	// [toolkits.<name>] table sets, applied to the built toolkit.
	toolSelections map[string]tool.ToolSelection
}

// AgentOSConfig is [agentos].
type AgentOSConfig struct {
	Name        string `toml:"name"`
	ID          string `toml:"id"`
	Description string `toml:"description"`
	// Host and Port are where the HTTP server listens (default
	// 127.0.0.1:7777).
	Host string `toml:"host"`
	Port int    `toml:"port"`
	// RegistryAutoPopulate registers the agents, teams and workflows of
	// the sources directories, and what they are wired to (default true).
	// False: the sources directories are not scanned.
	RegistryAutoPopulate bool `toml:"registry_auto_populate"`
	// ProtectedMode answers only loopback clients while no authentication
	// is configured (default true).
	ProtectedMode      bool     `toml:"protected_mode"`
	CORSAllowedOrigins []string `toml:"cors_allowed_origins"`
	// AllowedHosts are Host header values protected mode accepts besides
	// loopback names and addresses (a name this machine is reached by).
	AllowedHosts []string `toml:"allowed_hosts"`
	// MaxUploadBytes bounds a run request, uploads included (default 32
	// MiB); MaxFileBytes one uploaded file (default MaxUploadBytes).
	MaxUploadBytes int64 `toml:"max_upload_bytes"`
	MaxFileBytes   int64 `toml:"max_file_bytes"`
	// InstanceID names this process among the replicas sharing the
	// database (default host name and port): a restarted process with the
	// same id recovers its own interrupted runs at once.
	InstanceID string `toml:"instance_id"`
	// LeaseSeconds is how long a replica that stopped renewing its lease
	// keeps its runs before another marks them ERROR (default 15).
	LeaseSeconds int `toml:"lease_seconds"`
	// IdleTimeoutSeconds closes a keep-alive connection that waited that
	// long for its next request (default 120; agno's uvicorn: 5).
	IdleTimeoutSeconds int `toml:"idle_timeout_seconds"`
	// AccessLog writes one line per request (default: on at --log-level
	// debug, else off).
	AccessLog *bool          `toml:"access_log"`
	Registry  RegistryConfig `toml:"registry"`
	// Authorization is [agentos.authorization]: JWT mode when present
	// (nil when absent).
	Authorization *AuthorizationConfig `toml:"authorization"`
}

// RegistryConfig is [agentos.registry].
type RegistryConfig struct {
	// Sources are the directories holding declarative agent, team and
	// workflow files, absolute after Load (default agents, teams,
	// workflows beside the config file).
	Sources []string `toml:"sources"`
	// defaulted: Sources are DefaultSources, not the file's: a missing one
	// is no mistake of the user's.
	defaulted bool
	// RefreshOnStart scans Sources when AgentOS starts (default true).
	RefreshOnStart bool `toml:"refresh_on_start"`
}

// Built-in model providers; model.ProviderNames lists every registered one.
const (
	ProviderOpenAICompatible = openai.ProviderCompatible
	ProviderOpenAI           = openairesponses.ProviderOpenAI
	ProviderOpenAIChat       = openai.ProviderOpenAIChat
	ProviderAnthropic        = anthropic.ProviderAnthropic
)

// ModelConfig is one [models.<key>] table. Agents, teams and fallbacks
// name models by their key.
//
// The API key is read only from the environment variable APIKeyEnv,
// never from the file. A variable that is not set does not stop AgentOS
// from starting: Build logs one warning naming the model and the
// variable, and every run that uses the model fails with an error that
// says which variable to export. Info still reports the provider and id.
type ModelConfig struct {
	// Provider names a registered model provider (model.ProviderNames):
	// "openai-compatible", "openai", "anthropic", or one a program
	// registered.
	Provider string `toml:"provider"`
	// Model is the provider's model id ("gpt-4o-mini").
	Model   string `toml:"model"`
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the variable holding the key. Default:
	// OPENAI_API_KEY for openai, ANTHROPIC_API_KEY for anthropic, none
	// (no key sent) for openai-compatible.
	APIKeyEnv string `toml:"api_key_env"`
	// Headers are sent with every request to the provider (agno's
	// default_headers): a gateway's routing or tenant header, Azure's
	// api-key style auth behind a proxy. Values are literal; keep secrets
	// in api_key_env.
	Headers map[string]string `toml:"headers"`

	// Sampling parameters, used by every request that does not set its own.
	Temperature      *float64 `toml:"temperature"`
	TopP             *float64 `toml:"top_p"`
	MaxTokens        *int     `toml:"max_tokens"`
	Stop             []string `toml:"stop"`
	Seed             *int64   `toml:"seed"`
	FrequencyPenalty *float64 `toml:"frequency_penalty"`
	PresencePenalty  *float64 `toml:"presence_penalty"`
	// ReasoningEffort is agno's reasoning_effort ("low", "medium",
	// "high", ...), passed to reasoning models as the provider takes it.
	ReasoningEffort string `toml:"reasoning_effort"`
	// RequestParams are agno's request_params: merged into every request
	// body (a request's own extra fields win).
	RequestParams map[string]any `toml:"request_params"`

	// MaxRetries of a request failing with a retryable error (default 2;
	// 0 disables retries).
	MaxRetries *int `toml:"max_retries"`
	// Timeout is how long to wait for the provider to start answering
	// (default 10 minutes: a non-streamed reasoning answer takes long).
	Timeout Seconds `toml:"timeout"`
	// IdleTimeout is the longest silence once an answer started (default
	// 300 s); a provider that stalls mid-answer ends the run ERROR.
	IdleTimeout Seconds `toml:"idle_timeout"`
	// MaxResponseBytes bounds an answer's body, SSE framing included
	// (default 32 MiB); a longer one ends the run ERROR.
	MaxResponseBytes int64 `toml:"max_response_bytes"`

	// Options are the provider's own keys of the table, decoded strictly
	// into the provider's options struct (a pointer, as
	// model.RegisteredProvider.NewOptions returns); nil for its defaults.
	Options any `toml:"-"`
}

// Storage drivers: the built-in names of the storage/driver registry,
// which a configuration dispatches [storage] to.
const (
	DriverSQLite   = "sqlite"
	DriverPostgres = "postgres"
	DriverMemory   = "memory"
)

// StorageConfig is [storage]: where sessions, runs and events are kept.
type StorageConfig struct {
	// Driver is a registered storage driver (storage/driver): "sqlite"
	// (default), "postgres" or "memory" (nothing survives the process;
	// for tests and demos; it keeps the newest [storage.retention]
	// max_runs top-level runs, default DefaultMemoryMaxRuns, with their
	// events). Each driver takes some of the keys below.
	Driver string `toml:"driver"`
	// Path is the SQLite file (default agno.db beside the config file).
	Path string `toml:"path"`
	// DSNEnv names the variable holding the Postgres connection string
	// (default AGNO_POSTGRES_DSN).
	DSNEnv string `toml:"dsn_env"`
	// Schema holds the Postgres tables (default "ai").
	Schema string `toml:"schema"`
	// TimeoutSeconds bounds one storage call (default 15): a database
	// that does not answer in time fails the call (storage.ErrUnavailable)
	// instead of holding the request.
	TimeoutSeconds Seconds `toml:"timeout_seconds"`
	// ConnectTimeoutSeconds bounds one Postgres connection attempt
	// (default the DSN's connect_timeout, else 5).
	ConnectTimeoutSeconds Seconds `toml:"connect_timeout_seconds"`
	// MaxConns bounds each Postgres connection pool, the run store's and
	// the control plane's (default the DSN's pool_max_conns, else 16 and
	// 8).
	MaxConns int `toml:"max_conns"`
	// Retention is [storage.retention] (retention.go); off by default.
	Retention RetentionConfig `toml:"retention"`
}

// SchedulerConfig is [scheduler] (agno's AgentOS(scheduler=True)).
type SchedulerConfig struct {
	// Enabled starts the poller that fires due schedules; the schedule
	// routes work either way (a trigger needs the poller).
	Enabled bool `toml:"enabled"`
	// PollIntervalSeconds is how often due schedules are claimed
	// (default 15, as agno's scheduler_poll_interval).
	PollIntervalSeconds int `toml:"poll_interval_seconds"`
}

// TracingConfig is [tracing] (agno's AgentOS(tracing=True)).
type TracingConfig struct {
	// Enabled records spans of runs, model calls, tool calls, team
	// delegations and workflow steps in the database (/traces).
	Enabled bool `toml:"enabled"`
	// OTLPEndpoint, when set, also exports the spans over OTLP/HTTP
	// ("http://collector:4318").
	OTLPEndpoint string `toml:"otlp_endpoint"`
}

// MCPConfig is [mcp].
type MCPConfig struct {
	Tools   MCPToolsConfig             `toml:"tools"`
	Servers map[string]MCPServerConfig `toml:"servers"`
}

// MCPToolsConfig is [mcp.tools]: the v2.6.13 fixes. Both are always on;
// the keys are accepted so the upgrade guide's file loads, and false is
// refused.
type MCPToolsConfig struct {
	SessionCloseOnRefresh      bool `toml:"session_close_on_refresh"`
	PreserveArgumentWhitespace bool `toml:"preserve_argument_whitespace"`
}

// MCPServerConfig is one [mcp.servers.<name>], which agents use as
// tools = ["mcp:<name>"]. It maps to mcp.Config; the server is started or
// connected on first use, not by Build.
type MCPServerConfig struct {
	// Command and Args start a stdio server; a relative command path with
	// a slash is resolved against the config file's directory.
	Command string   `toml:"command"`
	Args    []string `toml:"args"`
	// Env sets variables for a stdio server; PassEnv names variables of
	// AgentOS's own environment to pass through (for tokens, which never
	// go in the file).
	Env     map[string]string `toml:"env"`
	PassEnv []string          `toml:"pass_env"`

	// URL and Transport ("streamable-http", default with a URL, or
	// "sse") reach an HTTP server.
	URL       string            `toml:"url"`
	Transport string            `toml:"transport"`
	Headers   map[string]string `toml:"headers"`
	// HeadersEnv sets headers from environment variables: header name →
	// variable name (Authorization = "GITHUB_TOKEN_HEADER").
	HeadersEnv map[string]string `toml:"headers_env"`

	// TimeoutSeconds is agno's timeout_seconds: the read timeout of each
	// request (default 10).
	TimeoutSeconds Seconds `toml:"timeout_seconds"`
	// HTTPTimeoutSeconds is the timeout of agno's SSEClientParams and
	// StreamableHTTPClientParams (default 5 for sse, 30 for
	// streamable-http); a request's read timeout is the smaller of it and
	// timeout_seconds.
	HTTPTimeoutSeconds Seconds `toml:"http_timeout_seconds"`
	// ConnectTimeoutSeconds bounds starting or dialing the server and the
	// initialize handshake (default timeout_seconds): raise it for a
	// server that `npx -y` downloads on first use.
	ConnectTimeoutSeconds Seconds `toml:"connect_timeout_seconds"`
	RefreshConnection     bool    `toml:"refresh_connection"`
	// Instructions and AddInstructions are agno's Toolkit arguments: with
	// add_instructions = true the instructions join the system message of
	// every agent using the server.
	Instructions    string   `toml:"instructions"`
	AddInstructions bool     `toml:"add_instructions"`
	IncludeTools    []string `toml:"include_tools"`
	ExcludeTools    []string `toml:"exclude_tools"`
	ToolNamePrefix  string   `toml:"tool_name_prefix"`

	RequiresConfirmationTools      []string `toml:"requires_confirmation_tools"`
	ExternalExecutionRequiredTools []string `toml:"external_execution_required_tools"`
	StopAfterToolCallTools         []string `toml:"stop_after_tool_call_tools"`
	ShowResultTools                []string `toml:"show_result_tools"`
}

// ToolkitsConfig is [toolkits]: each registered toolkit's options by its
// name (tool.ToolkitNames), a pointer to the toolkit's own options struct
// (*shell.Options for "shell"), decoded strictly from [toolkits.<name>].
// After Load every registered toolkit has an entry, defaults filled in
// and relative paths resolved.
type ToolkitsConfig map[string]any

// WorkflowsConfig is [workflows].
type WorkflowsConfig struct {
	HITL HITLConfig `toml:"hitl"`
}

// HITL transports.
const (
	HITLSocket    = "socket"
	HITLWebSocket = "websocket"
	HITLBoth      = "both"
)

// HITLConfig is [workflows.hitl]: how humans answer paused workflows.
type HITLConfig struct {
	// Transport is "socket" (a local Unix socket), "websocket" (AgentOS's
	// /workflows/ws) or "both" (default).
	Transport string `toml:"transport"`
	// SocketPath is the Unix socket (default agno-hitl.sock beside the
	// config file, or agno-hitl-<hash>.sock in the temporary directory
	// when that path is too long for a socket).
	SocketPath string `toml:"socket_path"`
}

// Socket reports whether the Unix-socket transport is on.
func (h HITLConfig) Socket() bool { return h.Transport == HITLSocket || h.Transport == HITLBoth }

// WebSocket reports whether the WebSocket transport is on.
func (h HITLConfig) WebSocket() bool { return h.Transport == HITLWebSocket || h.Transport == HITLBoth }

// Defaults.
const (
	DefaultHost = "127.0.0.1"
	DefaultPort = 7777
	// DefaultMaxUploadBytes is agentos.max_upload_bytes' default.
	DefaultMaxUploadBytes = 32 << 20
	// DefaultLeaseSeconds is agentos.lease_seconds' default.
	DefaultLeaseSeconds = 15
	DefaultSQLitePath   = sqlite.DefaultPath
	DefaultDSNEnv       = driver.DefaultDSNEnv
	DefaultSocketPath   = "agno-hitl.sock"
)

// DefaultMemoryMaxRuns bounds driver = "memory": about 10 KB a run.
const DefaultMemoryMaxRuns = driver.DefaultMemoryMaxRuns

// DefaultIdleTimeoutSeconds is agentos.idle_timeout_seconds' default.
const DefaultIdleTimeoutSeconds = 120

// DefaultSources are the registry source directories when none are set.
var DefaultSources = []string{"agents", "teams", "workflows"}

// maxSocketPath is the longest Unix socket path every platform takes
// (sun_path is 104 bytes on macOS and the BSDs, 108 on Linux).
const maxSocketPath = 103

func defaults() Config {
	return Config{
		AgentOS: AgentOSConfig{
			Host:                 DefaultHost,
			Port:                 DefaultPort,
			RegistryAutoPopulate: true,
			ProtectedMode:        true,
			MaxUploadBytes:       DefaultMaxUploadBytes,
			LeaseSeconds:         DefaultLeaseSeconds,
			IdleTimeoutSeconds:   DefaultIdleTimeoutSeconds,
			Registry:             RegistryConfig{Sources: slices.Clone(DefaultSources), RefreshOnStart: true},
		},
		Storage:   StorageConfig{Driver: DriverSQLite},
		MCP:       MCPConfig{Tools: MCPToolsConfig{SessionCloseOnRefresh: true, PreserveArgumentWhitespace: true}},
		Workflows: WorkflowsConfig{HITL: HITLConfig{Transport: HITLBoth}},
		Settings:  DefaultSettings(),
	}
}

// Load reads, parses and validates config.toml. It has no side effects:
// nothing is opened, started or connected (see Build). All problems are
// reported together (errors.Join of *Error), each naming the key, its
// line and the fix.
func Load(path string) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	return Parse(abs, data)
}

// Parse parses and validates the contents of a config file; path names it
// in errors and its directory is the base of relative paths.
func Parse(path string, data []byte) (*Config, error) {
	c := defaults()
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	c.Path, c.Dir = path, filepath.Dir(path)
	src := strings.TrimPrefix(string(data), "\ufeff")
	idx := indexKeys(src)
	md, err := toml.Decode(src, &c)
	if err != nil {
		return nil, syntaxError(path, src, err)
	}
	p := &problems{file: path, idx: idx}
	owned := c.decodeOwnedTables(src, p)
	unknown := unknownKeys(path, md, reflect.TypeOf(&c), idx, owned)
	c.validate(p, &md)
	if err := errors.Join(unknown, p.err()); err != nil {
		return nil, err
	}
	return &c, nil
}

// WithSettings returns a copy of c using the settings.json switches s.
func (c *Config) WithSettings(s Settings) (*Config, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cp := *c
	cp.Settings = s
	return &cp, nil
}

// LoadSettingsFile reads settings.json (a path relative to the config
// file's directory when not absolute) and returns a copy of c using it.
func (c *Config) LoadSettingsFile(path string) (*Config, error) {
	s, err := LoadSettings(c.resolve(path))
	if err != nil {
		return nil, err
	}
	return c.WithSettings(s)
}

// resolve makes a path absolute against the config file's directory.
func (c *Config) resolve(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnvName validates a key naming an environment variable.
func checkEnvName(p *problems, key, name string) {
	if msg := envNameProblem(key, name); msg != "" {
		p.at(key, "%s", msg)
	}
}

// envNameProblem is what is wrong with a key naming an environment
// variable; "" for nothing.
func envNameProblem(key, name string) string {
	switch {
	case envName.MatchString(name):
		return ""
	case looksLikeSecret(name):
		return fmt.Sprintf("%s must name an environment variable, not hold the secret itself: export MY_KEY=<the secret> and set %s = \"MY_KEY\"", key, lastKey(key))
	}
	return fmt.Sprintf("%s = %q is not an environment variable name: use letters, digits and _, not starting with a digit (for example \"OPENAI_API_KEY\")", key, name)
}

func looksLikeSecret(s string) bool {
	return strings.HasPrefix(s, "sk-") || strings.Contains(s, "://") || len(s) >= 32 && !strings.Contains(s, "_")
}

func lastKey(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[i+1:]
	}
	return key
}

func (c *Config) validate(p *problems, md *toml.MetaData) {
	a := &c.AgentOS
	a.Registry.defaulted = !md.IsDefined("agentos", "registry", "sources")
	if md.IsDefined("agentos", "host") && strings.TrimSpace(a.Host) == "" {
		p.at("agentos.host", "agentos.host is empty: use \"0.0.0.0\" to listen on every interface or \"127.0.0.1\" for this machine only")
	}
	if a.Port < 1 || a.Port > 65535 {
		p.at("agentos.port", "agentos.port = %d: use a TCP port from 1 to 65535 (default %d)", a.Port, DefaultPort)
	}
	for i, o := range a.CORSAllowedOrigins {
		key := fmt.Sprintf("agentos.cors_allowed_origins[%d]", i)
		if o == "*" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			p.at(key, "agentos.cors_allowed_origins: %q is not an origin: write scheme://host[:port] such as \"https://app.example.com\", or \"*\" for any", o)
		}
	}
	if a.MaxUploadBytes < 1 {
		p.at("agentos.max_upload_bytes", "agentos.max_upload_bytes = %d: give the largest run request to accept, in bytes (default %d, 32 MiB)", a.MaxUploadBytes, DefaultMaxUploadBytes)
	}
	if a.MaxFileBytes < 0 || a.MaxFileBytes > a.MaxUploadBytes {
		p.at("agentos.max_file_bytes", "agentos.max_file_bytes = %d: give the largest uploaded file to accept, in bytes, at most agentos.max_upload_bytes (%d); leave it out to use that", a.MaxFileBytes, a.MaxUploadBytes)
	}
	if a.LeaseSeconds < 1 || a.LeaseSeconds > 300 {
		p.at("agentos.lease_seconds", "agentos.lease_seconds = %d: give how long (1 to 300 seconds) a silent replica keeps its runs (default %d)", a.LeaseSeconds, DefaultLeaseSeconds)
	}
	if a.IdleTimeoutSeconds < 1 || a.IdleTimeoutSeconds > 3600 {
		p.at("agentos.idle_timeout_seconds", "agentos.idle_timeout_seconds = %d: give how long (1 to 3600 seconds) a keep-alive connection may wait for its next request before it is closed (default %d)", a.IdleTimeoutSeconds, DefaultIdleTimeoutSeconds)
	}
	for i, h := range a.AllowedHosts {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/ ") {
			p.at(fmt.Sprintf("agentos.allowed_hosts[%d]", i), "agentos.allowed_hosts: %q is not a host: write a name or address, optionally with :port, such as \"myhost.local\"", h)
		}
	}
	seen := map[string]bool{}
	for i, s := range a.Registry.Sources {
		key := fmt.Sprintf("agentos.registry.sources[%d]", i)
		if strings.TrimSpace(s) == "" {
			p.at(key, "agentos.registry.sources has an empty entry: give a directory, relative to the config file (\"agents\")")
			continue
		}
		abs := c.resolve(s)
		if seen[filepath.Clean(abs)] {
			p.at(key, "agentos.registry.sources lists %q twice: remove one", s)
			continue
		}
		seen[filepath.Clean(abs)] = true
		a.Registry.Sources[i] = filepath.Clean(abs)
	}

	c.validateAuthorization(p, md)

	for _, name := range sortedKeys(c.Models) {
		m := c.Models[name]
		c.validateModel(p, "models."+quoteKey(name), &m)
		c.Models[name] = m
	}

	c.validateStorage(p, md)
	c.validateRetention(p, md)
	c.validateKnowledge(p, md)
	c.validateOutbound(p)
	c.validateComponents(p)

	if !c.MCP.Tools.SessionCloseOnRefresh {
		p.at("mcp.tools.session_close_on_refresh", "mcp.tools.session_close_on_refresh = false is refused: refreshed MCP sessions are always closed in the call that opened them (agno v2.6.13), because leaving them open leaks a session and a connection per call; the fixed behaviour cannot be turned off, so remove the key or set it to true")
	}
	if !c.MCP.Tools.PreserveArgumentWhitespace {
		p.at("mcp.tools.preserve_argument_whitespace", "mcp.tools.preserve_argument_whitespace = false is refused: tool arguments always reach the tool byte for byte (agno v2.6.13), because trimming them corrupts code and text; the fixed behaviour cannot be turned off, so remove the key or set it to true")
	}
	for _, name := range sortedKeys(c.MCP.Servers) {
		s := c.MCP.Servers[name]
		c.validateMCPServer(p, "mcp.servers."+quoteKey(name), name, &s)
		c.MCP.Servers[name] = s
	}

	h := &c.Workflows.HITL
	switch h.Transport {
	case HITLSocket, HITLWebSocket, HITLBoth:
	default:
		p.at("workflows.hitl.transport", "workflows.hitl.transport = %q: use \"socket\" (a local Unix socket), \"websocket\" (AgentOS /workflows/ws) or \"both\"", h.Transport)
	}
	if md.IsDefined("workflows", "hitl", "socket_path") && strings.TrimSpace(h.SocketPath) == "" {
		p.at("workflows.hitl.socket_path", "workflows.hitl.socket_path is empty: give a file path for the Unix socket, or remove the key for %s beside the config file", DefaultSocketPath)
	}
	explicit := h.SocketPath != ""
	if !explicit {
		h.SocketPath = DefaultSocketPath
	}
	h.SocketPath = c.resolve(h.SocketPath)
	if !explicit && len(h.SocketPath) > maxSocketPath {
		// Too deep for a socket beside the file: a per-config name in the
		// temporary directory instead.
		sum := sha256.Sum256([]byte(c.Path))
		h.SocketPath = filepath.Join(os.TempDir(), fmt.Sprintf("agno-hitl-%x.sock", sum[:4]))
	}
	if h.Socket() && len(h.SocketPath) > maxSocketPath {
		p.at("workflows.hitl.socket_path", "workflows.hitl.socket_path %q is %d bytes; Unix sockets take at most %d: use a shorter path such as \"/tmp/agno-hitl.sock\"", h.SocketPath, len(h.SocketPath), maxSocketPath)
	}
}

func (c *Config) validateModel(p *problems, key string, m *ModelConfig) {
	prov, known := model.LookupProvider(m.Provider)
	names := quoteAll(model.ProviderNames())
	switch {
	case known:
		m.Provider = prov.Name
	case m.Provider == "":
		p.at(key, "%s has no provider: set provider = %s", key, listOr(names, "none registered"))
	default:
		p.at(key+".provider", "%s.provider = %q is not supported: use %s (\"openai-compatible\" is any OpenAI-compatible endpoint: Ollama, vLLM, OpenRouter, gateways)", key, m.Provider, listOr(names, "none registered"))
	}
	if strings.TrimSpace(m.Model) == "" && known && prov.DefaultModel != "" {
		m.Model = prov.DefaultModel // agno's default id of the provider's class
	}
	if strings.TrimSpace(m.Model) == "" {
		p.at(key, "%s has no model: set the provider's model id, for example model = \"gpt-4o-mini\"", key)
	}
	if m.BaseURL != "" {
		u, err := url.Parse(m.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.at(key+".base_url", "%s.base_url = %q is not an http(s) URL: write it like \"https://api.example.com/v1\"", key, m.BaseURL)
		}
	} else if prov.RequiresBaseURL {
		p.at(key, "%s is "+prov.Name+" but has no base_url: set the endpoint, for example base_url = \"http://localhost:11434/v1\"", key)
	}
	if m.APIKeyEnv != "" {
		checkEnvName(p, key+".api_key_env", m.APIKeyEnv)
	}
	for _, name := range slices.Sorted(maps.Keys(m.Headers)) {
		if !httpguts.ValidHeaderFieldName(name) {
			p.at(key+".headers", "%s.headers: %q is not a header name: use letters, digits and - (for example \"X-Tenant\")", key, name)
		} else if !httpguts.ValidHeaderFieldValue(m.Headers[name]) {
			p.at(key+".headers", "%s.headers.%s holds a control character or line break: give the value on one line", key, name)
		}
	}
	rangeCheck := func(name string, v *float64, lo, hi float64) {
		if v != nil && (*v < lo || *v > hi) {
			p.at(key+"."+name, "%s.%s = %v: use a value from %v to %v", key, name, *v, lo, hi)
		}
	}
	rangeCheck("temperature", m.Temperature, 0, 2)
	rangeCheck("top_p", m.TopP, 0, 1)
	rangeCheck("frequency_penalty", m.FrequencyPenalty, -2, 2)
	rangeCheck("presence_penalty", m.PresencePenalty, -2, 2)
	if m.MaxTokens != nil && *m.MaxTokens <= 0 {
		p.at(key+".max_tokens", "%s.max_tokens = %d: use a positive number of tokens, or remove the key for the provider's default", key, *m.MaxTokens)
	}
	if m.MaxRetries != nil && *m.MaxRetries < 0 {
		p.at(key+".max_retries", "%s.max_retries = %d: use 0 (no retries) or more", key, *m.MaxRetries)
	}
	if m.Timeout < 0 || (m.Timeout == 0 && p.idx != nil && p.has(key+".timeout")) {
		p.at(key+".timeout", "%s.timeout = %v: use a positive number of seconds, or remove the key for no limit", key, float64(m.Timeout))
	}
	if m.IdleTimeout < 0 || (m.IdleTimeout == 0 && p.idx != nil && p.has(key+".idle_timeout")) {
		p.at(key+".idle_timeout", "%s.idle_timeout = %v: use a positive number of seconds the provider may stay silent mid-answer (default 300)", key, float64(m.IdleTimeout))
	}
	if m.MaxResponseBytes < 0 || (m.MaxResponseBytes == 0 && p.idx != nil && p.has(key+".max_response_bytes")) {
		p.at(key+".max_response_bytes", "%s.max_response_bytes = %d: use a positive number of bytes an answer may take (default 33554432, 32 MiB)", key, m.MaxResponseBytes)
	}
}

// has reports whether the document has an indexed key.
func (p *problems) has(key string) bool {
	_, ok := p.idx.lookup(key)
	return ok
}

// validateStorage checks [storage] through the driver it names: the
// keys the driver takes, its own checks and defaults.
func (c *Config) validateStorage(p *problems, md *toml.MetaData) {
	s := &c.Storage
	set := s.settings(c)
	driver.Validate(s.Driver, &set, driver.Validation{
		Defined: func(key string) bool { return md.IsDefined("storage", key) },
		Resolve: c.resolve,
		Problem: p.at,
		EnvName: func(key, name string) { checkEnvName(p, key, name) },
	})
	s.apply(set)
}

// settings are [storage] as the storage driver takes them.
func (s *StorageConfig) settings(c *Config) driver.Settings {
	return driver.Settings{Path: s.Path, DSNEnv: s.DSNEnv, Schema: s.Schema, Timeout: s.TimeoutSeconds.Duration(),
		ConnectTimeout: s.ConnectTimeoutSeconds.Duration(), MaxConns: s.MaxConns, MaxRuns: s.Retention.MaxRuns,
		ConfigPath: c.Path, Logger: c.Logger}
}

// StorageWhere says where [storage] keeps its data, for messages.
func (c *Config) StorageWhere() string {
	d, ok := driver.Lookup(c.storageDriverName())
	if !ok {
		return c.Storage.Driver
	}
	return d.Where(c.Storage.settings(c))
}

// StorageEnv is the variable [storage]'s driver reads its connection
// from; "" when it reads none.
func (c *Config) StorageEnv() string {
	d, ok := driver.Lookup(c.storageDriverName())
	if !ok || d.ReadsEnv == nil {
		return ""
	}
	return d.ReadsEnv(c.Storage.settings(c))
}

// apply takes back what a driver completed in d: the names, and the
// bounds that were unset (set ones keep the file's exact value).
func (s *StorageConfig) apply(d driver.Settings) {
	s.Path, s.DSNEnv, s.Schema = d.Path, d.DSNEnv, d.Schema
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = seconds(d.Timeout)
	}
	if s.ConnectTimeoutSeconds == 0 {
		s.ConnectTimeoutSeconds = seconds(d.ConnectTimeout)
	}
	if s.MaxConns == 0 {
		s.MaxConns = d.MaxConns
	}
}

func (c *Config) validateMCPServer(p *problems, key, name string, s *MCPServerConfig) {
	if name == "" || strings.ContainsAny(name, ": ") {
		p.at(key, "MCP server name %q: use letters, digits, - and _ (agents refer to it as \"mcp:<name>\")", name)
	}
	switch {
	case s.Command != "" && s.URL != "":
		p.at(key, "%s has both command and url: a server is either started (command, args) or reached over HTTP (url)", key)
	case s.Command == "" && s.URL == "":
		p.at(key, "%s has neither command nor url: set command = \"npx\" with args = [...] for a stdio server, or url = \"http://host:port/mcp\"", key)
	}
	switch s.Transport {
	case "":
	case "stdio":
		if s.URL != "" {
			p.at(key+".transport", "%s.transport = \"stdio\" needs a command, not a url", key)
		}
	case "sse", "streamable-http":
		if s.URL == "" {
			p.at(key+".transport", "%s.transport = %q needs url = \"http://host:port/...\"", key, s.Transport)
		}
	default:
		p.at(key+".transport", "%s.transport = %q: use \"stdio\", \"streamable-http\" or \"sse\"", key, s.Transport)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.at(key+".url", "%s.url = %q is not an http(s) URL: write it like \"http://127.0.0.1:3001/mcp\"", key, s.URL)
		}
		if len(s.Env) > 0 || len(s.PassEnv) > 0 || len(s.Args) > 0 {
			p.at(key, "%s: args, env and pass_env are for servers started with command, not url", key)
		}
	}
	if s.Command != "" && (len(s.Headers) > 0 || len(s.HeadersEnv) > 0) {
		p.at(key, "%s: headers and headers_env are for HTTP servers (url), not command", key)
	}
	// A relative program path is the config file's; a command line
	// without args is left for the MCP toolkit to split.
	if s.Command != "" && (s.Args != nil || !strings.ContainsAny(s.Command, " \t")) &&
		strings.ContainsRune(s.Command, filepath.Separator) && !filepath.IsAbs(s.Command) {
		s.Command = c.resolve(s.Command)
	}
	for i, v := range s.PassEnv {
		checkEnvName(p, fmt.Sprintf("%s.pass_env[%d]", key, i), v)
	}
	for _, h := range sortedKeys(s.HeadersEnv) {
		checkEnvName(p, key+".headers_env."+quoteKey(h), s.HeadersEnv[h])
	}
	for _, t := range []struct {
		field string
		v     Seconds
		def   string
	}{
		{"timeout_seconds", s.TimeoutSeconds, "default 10"},
		{"http_timeout_seconds", s.HTTPTimeoutSeconds, "default 5 for sse, 30 for streamable-http"},
		{"connect_timeout_seconds", s.ConnectTimeoutSeconds, "default timeout_seconds"},
	} {
		if t.v < 0 || (t.v == 0 && p.has(key+"."+t.field)) {
			p.at(key+"."+t.field, "%s.%s = %v: use a positive number of seconds (%s)", key, t.field, float64(t.v), t.def)
		}
	}
	if s.HTTPTimeoutSeconds != 0 && s.URL == "" {
		p.at(key+".http_timeout_seconds", "%s.http_timeout_seconds is for HTTP servers (url), not command: use timeout_seconds", key)
	}
	for field, list := range map[string][]string{"include_tools": s.IncludeTools, "exclude_tools": s.ExcludeTools} {
		for i, n := range list {
			if strings.TrimSpace(n) == "" {
				p.at(fmt.Sprintf("%s.%s[%d]", key, field, i), "%s.%s has an empty tool name", key, field)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
