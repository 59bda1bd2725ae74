// Package config loads agno-go's configuration files.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agno-go/agno/knowledge"
)

// Settings is settings.json: runtime switches for the behaviours agno
// v2.6.13 changed. Each defaults to the v2.6.13 behaviour. The zero value
// is not the defaults: start from DefaultSettings.
type Settings struct {
	Runtime RuntimeSettings `json:"runtime"`
	Schema  SchemaSettings  `json:"schema"`
	MCP     MCPSettings     `json:"mcp"`
	Tools   ToolsSettings   `json:"tools"`
}

// RuntimeSettings is the "runtime" section.
type RuntimeSettings struct {
	EventStreaming EventStreamingSettings `json:"event_streaming"`
	ContentHash    ContentHashSettings    `json:"content_hash"`
}

// EventStreamingSettings is "runtime.event_streaming".
type EventStreamingSettings struct {
	// SubAgentToParent streams the events of an agent or team run as a
	// tool (agent-as-tool, context-provider update tools) live into the
	// parent's stream, each with the parent's run id (agno #8348).
	// False: the parent sees only the tool's final result.
	SubAgentToParent bool `json:"sub_agent_to_parent"`
}

// ContentHashSettings is "runtime.content_hash".
type ContentHashSettings struct {
	// IncludeMetadata puts a knowledge content's metadata into its
	// content hash, so the same file inserted with different metadata is
	// two contents (agno #8310). False: the pre-v2.6.13 hash, where the
	// second insert overwrote the first one's metadata.
	IncludeMetadata bool `json:"include_metadata"`
}

// KnowledgeHashOptions is runtime.content_hash as a knowledge base takes
// it (knowledge.Config.ContentHash). With include_metadata false,
// knowledge.New logs a warning that the v2.6.12 hash is in use.
func (s Settings) KnowledgeHashOptions() knowledge.HashOptions {
	include := s.Runtime.ContentHash.IncludeMetadata
	return knowledge.HashOptions{IncludeMetadata: &include}
}

// SchemaSettings is the "schema" section.
type SchemaSettings struct {
	JSONSchema JSONSchemaSettings `json:"json_schema"`
}

// JSONSchemaSettings is "schema.json_schema".
type JSONSchemaSettings struct {
	// OptionalDataclassWithoutType says what happens to an optional
	// field whose schema has no single type (a mixed enum such as 1 or
	// "a"). Only OptionalWithoutTypeTolerate is accepted.
	OptionalDataclassWithoutType OptionalWithoutType `json:"optional_dataclass_without_type"`
}

// OptionalWithoutType is the policy for optional fields without a type.
type OptionalWithoutType string

// OptionalWithoutTypeTolerate keeps the field's anyOf, so the parameter
// stays in the tool's schema (agno #8329); it is the only policy.
const OptionalWithoutTypeTolerate OptionalWithoutType = "tolerate"

// MCPSettings is the "mcp" section.
type MCPSettings struct {
	// MultiMCPCleanupOnFailure closes every connection MultiMCPTools
	// already opened when one server fails to connect, leaving a clean
	// state to retry from (agno #8163). Must be true.
	MultiMCPCleanupOnFailure bool `json:"multi_mcp_cleanup_on_failure"`
}

// ToolsSettings is the "tools" section.
type ToolsSettings struct {
	// DaytonaShellQuotePaths shell-quotes every path the Daytona tools
	// put into a sandbox command (agno #8289). Must be true.
	DaytonaShellQuotePaths bool `json:"daytona_shell_quote_paths"`
}

// DefaultSettings returns the v2.6.13 behaviour, which is what an empty
// settings file ({}) gives.
func DefaultSettings() Settings {
	return Settings{
		Runtime: RuntimeSettings{
			EventStreaming: EventStreamingSettings{SubAgentToParent: true},
			ContentHash:    ContentHashSettings{IncludeMetadata: true},
		},
		Schema: SchemaSettings{JSONSchema: JSONSchemaSettings{OptionalDataclassWithoutType: OptionalWithoutTypeTolerate}},
		MCP:    MCPSettings{MultiMCPCleanupOnFailure: true},
		Tools:  ToolsSettings{DaytonaShellQuotePaths: true},
	}
}

// ErrInvalidSettings is matched (errors.Is) by every problem found in a
// settings file or a Settings value.
var ErrInvalidSettings = errors.New("invalid settings")

// SettingsError is one problem in a settings file: where it is, which key,
// and what to do.
type SettingsError struct {
	File string
	// Line and Column are 1-based; 0 when unknown.
	Line   int
	Column int
	// Key is the full dotted key path ("mcp.multi_mcp_cleanup_on_failure");
	// empty for the file as a whole.
	Key string
	Msg string
}

func (e *SettingsError) Error() string { return positioned(e.File, e.Line, e.Column, e.Msg) }

// Unwrap makes every SettingsError match ErrInvalidSettings.
func (e *SettingsError) Unwrap() error { return ErrInvalidSettings }

// LoadSettings reads and parses a settings.json file. Errors name the file
// as given.
func LoadSettings(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Settings{}, fmt.Errorf("config: read settings: %w", err)
	}
	return parseSettings(path, data)
}

// ParseSettings parses the contents of a settings.json file. Keys left out
// keep their defaults. Unknown keys, values of the wrong type and refused
// values are errors naming the full key path and its line; all problems
// are reported together (errors.Join of *SettingsError).
func ParseSettings(data []byte) (Settings, error) {
	return parseSettings("settings.json", data)
}

// Validate checks a Settings built in code against the same rules as the
// file.
func (s Settings) Validate() error {
	p := &settingsParser{file: "settings"}
	v := reflectSettings(&s)
	for _, l := range settingsLeaves() {
		if why := l.check(v[l.path]); why != "" {
			p.fail(0, l.path, "key %q: %s", l.path, why)
		}
	}
	return errors.Join(p.errs...)
}

func parseSettings(file string, data []byte) (Settings, error) {
	s := DefaultSettings()
	p := &settingsParser{file: file, data: data, settings: &s}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some editors add
	base := int64(len(data) - len(body))
	if len(bytes.TrimSpace(body)) == 0 {
		p.fail(-1, "", "the file is empty; write {} for the defaults")
		return Settings{}, errors.Join(p.errs...)
	}
	p.parseSection(settingsTree(), "", body, base)
	if len(p.errs) > 0 {
		return Settings{}, errors.Join(p.errs...)
	}
	return s, nil
}

// A settings key: a section holding keys, or a leaf holding a value.
type settingsNode struct {
	name     string
	children []*settingsNode
	leaf     *settingsLeaf
}

type settingsLeaf struct {
	path string
	kind string // "boolean" or "string"
	// check returns why a well-typed value is refused, or "".
	check func(v any) string
	set   func(s *Settings, v any)
}

func settingsLeaves() []*settingsLeaf {
	mustBeTrue := func(why string) func(any) string {
		return func(v any) string {
			if v == true {
				return ""
			}
			return fmt.Sprintf("%v is refused (allowed: true): %s", v, why)
		}
	}
	anyBool := func(v any) string {
		if _, ok := v.(bool); ok {
			return ""
		}
		return fmt.Sprintf("%v is not a boolean", v)
	}
	return []*settingsLeaf{
		{
			path: "runtime.event_streaming.sub_agent_to_parent", kind: "boolean", check: anyBool,
			set: func(s *Settings, v any) { s.Runtime.EventStreaming.SubAgentToParent = v.(bool) },
		},
		{
			path: "runtime.content_hash.include_metadata", kind: "boolean", check: anyBool,
			set: func(s *Settings, v any) { s.Runtime.ContentHash.IncludeMetadata = v.(bool) },
		},
		{
			path: "schema.json_schema.optional_dataclass_without_type", kind: "string",
			check: func(v any) string {
				if v == string(OptionalWithoutTypeTolerate) {
					return ""
				}
				return fmt.Sprintf(`%q is not accepted (allowed: "tolerate"): an optional field whose schema has no single type keeps its anyOf; `+
					`dropping the parameter from the tool, as agno did before v2.6.13, is never done`, v)
			},
			set: func(s *Settings, v any) {
				s.Schema.JSONSchema.OptionalDataclassWithoutType = OptionalWithoutType(v.(string))
			},
		},
		{
			path: "mcp.multi_mcp_cleanup_on_failure", kind: "boolean",
			check: mustBeTrue("without the cleanup, a server that fails to connect leaves the connections " +
				"MultiMCPTools already opened half open; that is never wanted"),
			set: func(s *Settings, v any) { s.MCP.MultiMCPCleanupOnFailure = v.(bool) },
		},
		{
			path: "tools.daytona_shell_quote_paths", kind: "boolean",
			check: mustBeTrue(`unquoted, a path such as "dir; id" runs as shell commands in the sandbox; ` +
				"turning quoting off is never safe"),
			set: func(s *Settings, v any) { s.Tools.DaytonaShellQuotePaths = v.(bool) },
		},
	}
}

// reflectSettings lists a Settings' values by key path, for Validate.
func reflectSettings(s *Settings) map[string]any {
	return map[string]any{
		"runtime.event_streaming.sub_agent_to_parent":        s.Runtime.EventStreaming.SubAgentToParent,
		"runtime.content_hash.include_metadata":              s.Runtime.ContentHash.IncludeMetadata,
		"schema.json_schema.optional_dataclass_without_type": string(s.Schema.JSONSchema.OptionalDataclassWithoutType),
		"mcp.multi_mcp_cleanup_on_failure":                   s.MCP.MultiMCPCleanupOnFailure,
		"tools.daytona_shell_quote_paths":                    s.Tools.DaytonaShellQuotePaths,
	}
}

// settingsTree builds the key tree from the leaves' paths, in file order.
func settingsTree() *settingsNode {
	root := &settingsNode{}
	for _, l := range settingsLeaves() {
		n := root
		parts := strings.Split(l.path, ".")
		for _, part := range parts {
			i := slices.IndexFunc(n.children, func(c *settingsNode) bool { return c.name == part })
			if i < 0 {
				n.children = append(n.children, &settingsNode{name: part})
				i = len(n.children) - 1
			}
			n = n.children[i]
		}
		n.leaf = l
	}
	return root
}

type settingsParser struct {
	file     string
	data     []byte
	settings *Settings
	errs     []error
}

func (p *settingsParser) fail(offset int64, key, format string, a ...any) {
	e := &SettingsError{File: p.file, Key: key, Msg: fmt.Sprintf(format, a...)}
	if p.data != nil && offset >= 0 {
		e.Line, e.Column = lineCol(p.data, offset)
	}
	p.errs = append(p.errs, e)
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(offset, int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// parseSection checks one JSON object (raw, starting at byte base of the
// file) against node n, recursing into sections.
func (p *settingsParser) parseSection(n *settingsNode, path string, raw []byte, base int64) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		p.syntax(err, base, dec)
		return
	}
	if tok != json.Delim('{') {
		where := "the file"
		if path != "" {
			where = fmt.Sprintf("key %q", path)
		}
		p.fail(base+valueStart(raw), path, "%s must be a JSON object, got %s", where, describe(tok))
		return
	}
	seen := map[string]int64{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			p.syntax(err, base, dec)
			return
		}
		key := tok.(string) // inside an object the decoder yields string keys
		keyAt := keyStart(p.data, base+dec.InputOffset())
		full := key
		if path != "" {
			full = path + "." + key
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			p.syntax(err, base, dec)
			return
		}
		valueAt := base + dec.InputOffset() - int64(len(value))
		if first, dup := seen[key]; dup {
			line, _ := lineCol(p.data, first)
			p.fail(keyAt, full, "duplicate key %q (first on line %d)", full, line)
			continue
		}
		seen[key] = keyAt
		i := slices.IndexFunc(n.children, func(c *settingsNode) bool { return c.name == key })
		if i < 0 {
			p.fail(keyAt, full, "unknown key %q%s", full, suggest(n, path, key))
			continue
		}
		child := n.children[i]
		if child.leaf == nil {
			p.parseSection(child, full, value, valueAt)
			continue
		}
		p.leafValue(child.leaf, value, valueAt)
	}
	if _, err := dec.Token(); err != nil { // '}'
		p.syntax(err, base, dec)
		return
	}
	if path == "" {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			p.fail(base+dec.InputOffset(), "", "unexpected text after the settings object")
		}
	}
}

func (p *settingsParser) leafValue(l *settingsLeaf, raw json.RawMessage, at int64) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		p.syntax(err, at, dec)
		return
	}
	ok := false
	switch l.kind {
	case "boolean":
		_, ok = v.(bool)
	case "string":
		_, ok = v.(string)
	}
	if !ok {
		want := "a boolean (true or false)"
		if l.kind == "string" {
			want = "a string"
		}
		p.fail(at, l.path, "key %q: expected %s, got %s", l.path, want, describe(v))
		return
	}
	if why := l.check(v); why != "" {
		p.fail(at, l.path, "key %q: %s", l.path, why)
		return
	}
	l.set(p.settings, v)
}

// keyStart finds the opening quote of the key whose closing quote ends
// just before end.
func keyStart(data []byte, end int64) int64 {
	for i := end - 2; i >= 0; i-- {
		if data[i] != '"' {
			continue
		}
		backslashes := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
	}
	return end
}

func (p *settingsParser) syntax(err error, base int64, dec *json.Decoder) {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		p.fail(int64(len(p.data)), "", "invalid JSON: the file ends early; a closing } or ] is missing")
		return
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		p.fail(base+se.Offset, "", "invalid JSON: %v", se)
		return
	}
	p.fail(base+dec.InputOffset(), "", "invalid JSON: %v", err)
}

func valueStart(raw []byte) int64 {
	return int64(len(raw) - len(bytes.TrimLeft(raw, " \t\r\n")))
}

// describe names a JSON value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case string:
		return fmt.Sprintf("string %q", x)
	case json.Number:
		return "number " + x.String()
	case json.Delim:
		if x == '[' {
			return "an array"
		}
		return "an object"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// suggest offers the closest known key and lists the keys allowed here.
func suggest(n *settingsNode, path, key string) string {
	var names []string
	best, bestDist := "", 1<<30
	for _, c := range n.children {
		names = append(names, c.name)
		if d := editDistance(strings.ToLower(key), c.name); d < bestDist {
			best, bestDist = c.name, d
		}
	}
	var b strings.Builder
	if best != "" && bestDist <= max(2, len(best)/3) {
		full := best
		if path != "" {
			full = path + "." + best
		}
		fmt.Fprintf(&b, "; did you mean %q?", full)
	}
	where := "at the top level"
	if path != "" {
		where = fmt.Sprintf("in %q", path)
	}
	fmt.Fprintf(&b, " (keys allowed %s: %s)", where, strings.Join(names, ", "))
	return b.String()
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
