package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/run"
)

// Transport names a way to reach an MCP server (agno's transport values).
type Transport string

const (
	TransportStdio          Transport = "stdio"
	TransportSSE            Transport = "sse"
	TransportStreamableHTTP Transport = "streamable-http"
	// transportCustom is a Config.NewTransport factory.
	transportCustom Transport = "custom"
)

// Defaults from agno v2.6.13.
const (
	DefaultTimeout       = 10 * time.Second  // MCPTools timeout_seconds
	DefaultSSETimeout    = 5 * time.Second   // SSEClientParams.timeout
	DefaultHTTPTimeout   = 30 * time.Second  // StreamableHTTPClientParams.timeout
	DefaultRunSessionTTL = 300 * time.Second // per-run session lifetime
	// DefaultTerminateGrace is how long a stdio server gets to exit after its
	// stdin closes before it is sent SIGTERM, then SIGKILL (the Python SDK's
	// 2 s).
	DefaultTerminateGrace = 2 * time.Second
)

var (
	// ErrConfig marks an invalid Config.
	ErrConfig = errors.New("mcp: invalid config")
	// ErrNotConnected is returned by a toolkit that has not been connected
	// (or has been closed).
	ErrNotConnected = errors.New("mcp: toolkit is not connected (call Connect first)")
	// ErrSessionLost wraps a call that failed because the server or the
	// connection to it went away, or because another request timed out on
	// its session. The session is dropped and the next call opens a new one.
	ErrSessionLost = errors.New("mcp: session lost")
	// ErrUnknownTool is a Call naming a tool the toolkit does not have.
	ErrUnknownTool = errors.New("mcp: unknown tool")
)

// HeaderProvider returns HTTP headers for a session. It is called with a
// nil run context when Connect opens the default session, and with the
// run's context for the per-run sessions of calls made inside a run.
type HeaderProvider func(ctx context.Context, rc *run.Context) map[string]string

// Config describes one MCP server and how its tools are offered (agno's
// MCPTools arguments).
type Config struct {
	// Name is the toolkit's name; default "MCPTools".
	Name string

	// Transport is stdio, sse or streamable-http. Empty: streamable-http
	// when URL is set, else stdio.
	Transport Transport

	// Command starts a stdio server. Without Args it is a command line,
	// checked and split like agno's prepare_command; with Args it is the
	// executable alone.
	Command string
	Args    []string
	// Env is merged over the default environment the server inherits (HOME,
	// LOGNAME, PATH, SHELL, TERM, USER on Unix).
	Env map[string]string
	// Stderr receives the server's standard error. By default each line
	// is logged at INFO ("MCP server stderr") with the server's Name, so
	// that the lines of several servers can be told apart.
	Stderr io.Writer
	// TerminateGrace: see DefaultTerminateGrace.
	TerminateGrace time.Duration

	// URL is the SSE or streamable HTTP endpoint.
	URL string
	// Headers are sent with every HTTP request.
	Headers map[string]string
	// HeaderProvider adds headers per run (SSE and streamable HTTP only).
	HeaderProvider HeaderProvider
	// HTTPClient is the base client for HTTP transports (TLS, proxy). Nil:
	// each session gets its own connection pool, closed with the session.
	HTTPClient *http.Client
	// HTTPTimeout is agno's server_params timeout: default 5 s for SSE and
	// 30 s for streamable HTTP. It caps the read timeout.
	HTTPTimeout time.Duration

	// NewTransport, when set, supplies the go-sdk transport of each session
	// (an in-memory pair, a custom dialer) instead of Command or URL.
	NewTransport func(ctx context.Context) (sdk.Transport, error)

	// Timeout is agno's timeout_seconds: the read timeout of each request
	// (for SSE and streamable HTTP the smaller of it and HTTPTimeout).
	// Default 10 s. A request that times out closes its session (a stdio
	// server is killed); the next call opens a new one.
	Timeout time.Duration
	// ConnectTimeout bounds opening a session (start or dial, then the
	// initialize handshake). Default Timeout.
	ConnectTimeout time.Duration

	// IncludeTools keeps only these server tools; ExcludeTools drops these.
	// Names the server does not list are an error at Connect.
	IncludeTools []string
	ExcludeTools []string
	// ToolNamePrefix is put before each tool name with "_" between.
	ToolNamePrefix string

	// Instructions are the toolkit's instructions (agno's Toolkit
	// instructions), put in the agent's system message when
	// AddInstructions is set.
	Instructions    string
	AddInstructions bool

	// Human-in-the-loop flags, by the server's (unprefixed) tool names.
	RequiresConfirmationTools      []string
	ExternalExecutionRequiredTools []string
	StopAfterToolCallTools         []string
	ShowResultTools                []string

	// RefreshConnection pings the default session before each use and
	// reconnects when it is dead, and re-lists the tools on every Functions
	// call. With a HeaderProvider on HTTP, each call in a run gets its own
	// session, closed before the call returns.
	RefreshConnection bool
	// RunSessionTTL: see DefaultRunSessionTTL.
	RunSessionTTL time.Duration

	// Logger receives debug lines on session open/close and warnings;
	// default slog.Default().
	Logger *slog.Logger
}

// settings is a validated Config with its defaults applied.
type settings struct {
	Config
	kind        Transport
	argv        []string
	env         []string
	readTimeout time.Duration
}

func cfgErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, a...)...)
}

// resolve validates cfg and applies defaults (agno's MCPTools constructor).
func resolve(cfg Config) (*settings, error) {
	s := &settings{Config: cfg}
	if s.Name == "" {
		s.Name = "MCPTools"
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.Timeout < 0 || s.ConnectTimeout < 0 || s.HTTPTimeout < 0 || s.RunSessionTTL < 0 || s.TerminateGrace < 0 {
		return nil, cfgErr("Timeout, ConnectTimeout, HTTPTimeout, RunSessionTTL and TerminateGrace must not be negative")
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
	if s.ConnectTimeout == 0 {
		s.ConnectTimeout = s.Timeout
	}
	if s.RunSessionTTL == 0 {
		s.RunSessionTTL = DefaultRunSessionTTL
	}
	if s.TerminateGrace == 0 {
		s.TerminateGrace = DefaultTerminateGrace
	}

	kind := s.Transport
	switch kind {
	case "", TransportStdio, TransportSSE, TransportStreamableHTTP:
	default:
		return nil, cfgErr("Transport %q is not one of %q, %q, %q", kind, TransportStdio, TransportSSE, TransportStreamableHTTP)
	}
	if s.NewTransport != nil {
		if s.Command != "" || s.URL != "" || kind != "" {
			return nil, cfgErr("set either NewTransport or Command/URL/Transport, not both")
		}
		if s.HeaderProvider != nil {
			return nil, cfgErr("HeaderProvider needs an sse or streamable-http URL, not NewTransport")
		}
		s.kind = transportCustom
		s.readTimeout = s.Timeout
		return s, nil
	}
	if s.URL != "" {
		switch kind {
		case "":
			kind = TransportStreamableHTTP
		case TransportStdio:
			s.Logger.Warn("mcp: a URL was given with the stdio transport; using streamable-http", "url", s.URL)
			kind = TransportStreamableHTTP
		}
	} else if kind == "" {
		kind = TransportStdio
	}
	s.kind = kind

	switch kind {
	case TransportSSE, TransportStreamableHTTP:
		if s.URL == "" {
			what := "SSE"
			if kind == TransportStreamableHTTP {
				what = "Streamable HTTP"
			}
			return nil, cfgErr("One of 'url' or 'server_params' parameters must be provided when using %s transport (set Config.URL)", what)
		}
		def := DefaultHTTPTimeout
		if kind == TransportSSE {
			def = DefaultSSETimeout
			s.Logger.Info("SSE as a standalone transport is deprecated. Please use Streamable HTTP instead.")
		}
		if s.HTTPTimeout == 0 {
			s.HTTPTimeout = def
		}
		s.readTimeout = min(s.Timeout, s.HTTPTimeout)
		if s.Command != "" || len(s.Args) > 0 {
			return nil, cfgErr("Command/Args are for the stdio transport, not %s", kind)
		}
	case TransportStdio:
		if s.HeaderProvider != nil {
			return nil, cfgErr("header_provider is not supported with '%s' transport. Use 'sse' or 'streamable-http' transport instead.", kind)
		}
		if s.Command == "" {
			return nil, cfgErr("One of 'command' or 'server_params' parameters must be provided when using stdio transport (set Config.Command)")
		}
		var err error
		if s.Args == nil {
			s.argv, err = prepareCommand(s.Command)
		} else {
			s.argv, err = prepareExecutable(s.Command, s.Args)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: Command: %w", ErrConfig, err)
		}
		s.env = mergeEnv(defaultEnvironment(), s.Env)
		s.readTimeout = s.Timeout
	}
	if len(s.Headers) > 0 && kind == TransportStdio {
		return nil, cfgErr("Headers are for sse and streamable-http transports, not stdio")
	}
	return s, nil
}

// checkToolLists is agno's _check_tools_filters plus a warning for
// human-in-the-loop names the server does not list.
func (s *settings) checkToolLists(available []string) error {
	missing := func(list []string) []string {
		var out []string
		for _, n := range list {
			if !slices.Contains(available, n) {
				out = append(out, n)
			}
		}
		return out
	}
	if m := missing(s.IncludeTools); len(m) > 0 {
		//lint:ignore ST1005 agno's message, word for word
		return fmt.Errorf("Included tool(s) not present in the toolkit: %s", strings.Join(m, ", "))
	}
	if m := missing(s.ExcludeTools); len(m) > 0 {
		//lint:ignore ST1005 agno's message, word for word
		return fmt.Errorf("Excluded tool(s) not present in the toolkit: %s", strings.Join(m, ", "))
	}
	for name, list := range map[string][]string{
		"RequiresConfirmationTools":      s.RequiresConfirmationTools,
		"ExternalExecutionRequiredTools": s.ExternalExecutionRequiredTools,
		"StopAfterToolCallTools":         s.StopAfterToolCallTools,
		"ShowResultTools":                s.ShowResultTools,
	} {
		if m := missing(list); len(m) > 0 {
			s.Logger.Warn("mcp: tools named in "+name+" are not listed by the server", "toolkit", s.Name, "tools", m)
		}
	}
	return nil
}

// keeps reports whether a server tool passes the include/exclude filters.
func (s *settings) keeps(name string) bool {
	if slices.Contains(s.ExcludeTools, name) {
		return false
	}
	return s.IncludeTools == nil || slices.Contains(s.IncludeTools, name)
}

// describe names the server in errors and logs, never with secrets.
func (s *settings) describe() string {
	switch s.kind {
	case TransportStdio:
		return fmt.Sprintf("%s(stdio: %s)", s.Name, strings.Join(s.argv, " "))
	case transportCustom:
		return s.Name + "(custom transport)"
	default:
		return fmt.Sprintf("%s(%s: %s)", s.Name, s.kind, redactURL(s.URL))
	}
}

// redactURL hides a URL's password and query, where tokens tend to live.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	if u.RawQuery != "" {
		u.RawQuery = "..."
	}
	return u.Redacted()
}

// defaultEnvironment is what the Python MCP SDK's get_default_environment
// passes to a stdio server: a few variables, never exported shell
// functions.
func defaultEnvironment() map[string]string {
	keys := []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	if runtime.GOOS == "windows" {
		keys = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
			"PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"}
	}
	env := map[string]string{}
	for _, k := range keys {
		v, ok := os.LookupEnv(k)
		if !ok || strings.HasPrefix(v, "()") {
			continue
		}
		env[k] = v
	}
	return env
}

func mergeEnv(base, over map[string]string) []string {
	m := maps.Clone(base)
	maps.Copy(m, over)
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
