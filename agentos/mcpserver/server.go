// Package mcpserver is AgentOS as an MCP server (agno's
// enable_mcp_server=True, libs/agno/agno/os/mcp.py): agno's built-in
// tools over streamable HTTP, on the official Go SDK. What a tool does is
// the caller's Backend; this package owns the protocol: tool names and
// schemas, argument checks, and results shaped as FastMCP returns them.
// Interface (NewInterface) serves it at /mcp as one of AgentOS's
// interfaces, its backend making each tool call the equivalent request
// of the HTTP API; it builds on the core (agentos/internal/httpapi) and
// on Host, what it needs of the OS.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where agno mounts the server (FastMCP http_app(path="/mcp")).
const Path = "/mcp"

// Config is [interfaces.mcp]: agno's enable_mcp_server has no options.
type Config struct{}

// Call is one tool call: its validated arguments (defaults applied) and
// the HTTP headers of the request that carried it (its credentials).
type Call struct {
	Tool   string
	Args   Args
	Header http.Header
}

// Backend answers a call. A string result is sent as text; anything else
// as its JSON (json.RawMessage as is). An error is the tool's error.
type Backend func(ctx context.Context, c Call) (any, error)

// Args are a call's arguments: strings, json.Number, maps, []any or nil.
type Args map[string]any

// Str is a string argument ("" for null or absent).
func (a Args) Str(name string) string { s, _ := a[name].(string); return s }

// Int is an integer argument.
func (a Args) Int(name string) int {
	n, _ := a[name].(json.Number)
	i, _ := n.Int64()
	return int(i)
}

// Strings is a list-of-strings argument (nil for null or absent).
func (a Args) Strings(name string) []string {
	l, _ := a[name].([]any)
	if l == nil {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, v := range l {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// Set reports an argument given and not null.
func (a Args) Set(name string) bool { return a[name] != nil }

// Options name the server.
type Options struct {
	// Name and Version are the serverInfo (agno: FastMCP(os.name or
	// "AgentOS")).
	Name, Version string
	Logger        *slog.Logger
}

// New returns the streamable HTTP handler serving agno's tools. It is
// stateless (the SDK's recommended, sessionless mode): every request
// stands alone, so any number of clients and replicas need no session
// store, and nothing outlives a request. DNS-rebinding protection is
// AgentOS's protected mode, in front of this handler.
func New(opts Options, backend Backend) http.Handler {
	name := opts.Name
	if name == "" {
		name = "AgentOS"
	}
	var logger *slog.Logger
	if opts.Logger != nil {
		// The SDK logs every stateless request's session at info.
		logger = slog.New(warnings{opts.Logger.Handler()})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: opts.Version}, &mcp.ServerOptions{Logger: logger})
	for _, t := range Tools {
		srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema()}, handler(t, backend))
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, DisableLocalhostProtection: true, Logger: logger,
	})
}

func handler(t Tool, backend Backend) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := t.parse(req.Params.Arguments)
		if err != nil {
			return toolError(t.Name, err), nil
		}
		var hdr http.Header
		if req.Extra != nil {
			hdr = req.Extra.Header
		}
		out, err := backend(ctx, Call{Tool: t.Name, Args: args, Header: hdr})
		if err != nil {
			return toolError(t.Name, err), nil
		}
		return result(out)
	}
}

// toolError is FastMCP's answer to a tool that raised: isError with
// "Error calling tool '<name>': <exception>".
func toolError(name string, err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Error calling tool '%s': %s", name, err)}}}
}

// result is FastMCP's content of a return value: a str as text, other
// values as their JSON text; a JSON object also as structuredContent.
func result(out any) (*mcp.CallToolResult, error) {
	if s, ok := out.(string); ok {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}, nil
	}
	raw, ok := out.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: buf.String()}}}
	if bytes.HasPrefix(buf.Bytes(), []byte("{")) {
		res.StructuredContent = json.RawMessage(buf.Bytes())
	}
	return res, nil
}

// parse checks the arguments against the signature (pydantic's
// validation of the call) and applies the defaults.
func (t Tool) parse(raw json.RawMessage) (Args, error) {
	in := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return nil, errors.New("arguments must be a JSON object of the tool's parameters")
		}
	}
	var problems []string
	known := map[string]bool{}
	args := Args{}
	for _, p := range t.Params {
		known[p.Name] = true
		v, given := in[p.Name]
		switch {
		case !given && !p.Optional:
			problems = append(problems, p.Name+": Missing required argument")
			continue
		case !given:
			if p.Default != nil {
				v = defaultValue(p.Default)
			}
		case v == nil && !p.Nullable:
			problems = append(problems, fmt.Sprintf("%s: Input should be a valid %s, not null", p.Name, typeName(p.Type)))
			continue
		case v != nil && !typeOK(p.Type, v):
			problems = append(problems, fmt.Sprintf("%s: Input should be a valid %s", p.Name, typeName(p.Type)))
			continue
		}
		args[p.Name] = v
	}
	for name := range in {
		if !known[name] {
			problems = append(problems, name+": Unexpected keyword argument (the tool takes "+paramNames(t)+")")
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("%d validation error(s) for call[%s]: %s", len(problems), t.Name, strings.Join(problems, "; "))
	}
	return args, nil
}

func defaultValue(v any) any {
	if n, ok := v.(int); ok {
		return json.Number(fmt.Sprint(n))
	}
	return v
}

func paramNames(t Tool) string {
	if len(t.Params) == 0 {
		return "no arguments"
	}
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

func typeName(typ string) string {
	switch typ {
	case "object":
		return "dictionary"
	case "array":
		return "list of strings"
	}
	return typ
}

func typeOK(typ string, v any) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		_, err := n.Int64()
		return err == nil
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// warnings passes on warnings and errors only.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(a []slog.Attr) slog.Handler { return warnings{w.Handler.WithAttrs(a)} }
func (w warnings) WithGroup(g string) slog.Handler      { return warnings{w.Handler.WithGroup(g)} }
