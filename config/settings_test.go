package config_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
)

func TestUsersExampleLoadsAsIs(t *testing.T) {
	// testdata/settings.json is a copy of shared/examples/settings.json,
	// the file users copy from the upgrade guide.
	s, err := config.LoadSettings(filepath.Join("testdata", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.DefaultSettings(), s); diff != "" {
		t.Errorf("example settings differ from the defaults (-want +got):\n%s", diff)
	}
}

func TestDefaults(t *testing.T) {
	d := config.DefaultSettings()
	if !d.Runtime.EventStreaming.SubAgentToParent || !d.Runtime.ContentHash.IncludeMetadata ||
		d.Schema.JSONSchema.OptionalDataclassWithoutType != config.OptionalWithoutTypeTolerate ||
		!d.MCP.MultiMCPCleanupOnFailure || !d.Tools.DaytonaShellQuotePaths {
		t.Errorf("DefaultSettings = %+v, want v2.6.13 behaviour everywhere", d)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	for _, in := range []string{`{}`, `{"runtime":{}}`, `{"runtime":{"event_streaming":{}},"schema":{"json_schema":{}},"mcp":{},"tools":{}}`, "\xef\xbb\xbf{}\n"} {
		s, err := config.ParseSettings([]byte(in))
		if err != nil {
			t.Fatalf("ParseSettings(%q): %v", in, err)
		}
		if diff := cmp.Diff(d, s); diff != "" {
			t.Errorf("ParseSettings(%q) (-defaults +got):\n%s", in, diff)
		}
	}
	// The Go type writes the same file shape it reads.
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.ParseSettings(b)
	if err != nil || back != d {
		t.Errorf("round trip of %s: %+v, %v", b, back, err)
	}
	example, err := os.ReadFile(filepath.Join("testdata", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(example, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("marshaled defaults differ from the example file (-example +marshaled):\n%s", diff)
	}
}

func TestAcceptedChoices(t *testing.T) {
	s, err := config.ParseSettings([]byte(`{
		"runtime": {
			"event_streaming": {"sub_agent_to_parent": false},
			"content_hash": {"include_metadata": false}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := config.DefaultSettings()
	want.Runtime.EventStreaming.SubAgentToParent = false
	want.Runtime.ContentHash.IncludeMetadata = false
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // each must appear in the error text
		key  string   // the first SettingsError's Key
		line int      // and its line
	}{
		{
			name: "unknown key with suggestion",
			in:   "{\n  \"runtime\": {\n    \"event_streming\": { \"sub_agent_to_parent\": true }\n  }\n}",
			want: []string{`settings.json:3:`, `unknown key "runtime.event_streming"`, `did you mean "runtime.event_streaming"?`, `keys allowed in "runtime": event_streaming, content_hash`},
			key:  "runtime.event_streming", line: 3,
		},
		{
			name: "unknown top-level key",
			in:   `{"models": {}}`,
			want: []string{`settings.json:1:`, `unknown key "models"`, `keys allowed at the top level: runtime, schema, mcp, tools`},
			key:  "models", line: 1,
		},
		{
			name: "unknown leaf key",
			in:   "{\"mcp\": {\n\"multi_mcp_cleanup_on_failure\": true,\n\"cleanup\": true}}",
			want: []string{`settings.json:3:`, `unknown key "mcp.cleanup"`},
			key:  "mcp.cleanup", line: 3,
		},
		{
			name: "key under a leaf",
			in:   `{"tools": {"daytona_shell_quote_paths": {"enabled": true}}}`,
			want: []string{`key "tools.daytona_shell_quote_paths": expected a boolean (true or false), got an object`},
			key:  "tools.daytona_shell_quote_paths", line: 1,
		},
		{
			name: "wrong type bool",
			in:   "{\"runtime\": {\"content_hash\": {\n  \"include_metadata\": \"yes\"}}}",
			want: []string{`settings.json:2:`, `key "runtime.content_hash.include_metadata": expected a boolean (true or false), got string "yes"`},
			key:  "runtime.content_hash.include_metadata", line: 2,
		},
		{
			name: "null is not a boolean",
			in:   `{"runtime": {"event_streaming": {"sub_agent_to_parent": null}}}`,
			want: []string{`expected a boolean (true or false), got null`},
			key:  "runtime.event_streaming.sub_agent_to_parent", line: 1,
		},
		{
			name: "wrong type string",
			in:   `{"schema": {"json_schema": {"optional_dataclass_without_type": 1}}}`,
			want: []string{`key "schema.json_schema.optional_dataclass_without_type": expected a string, got number 1`},
			key:  "schema.json_schema.optional_dataclass_without_type", line: 1,
		},
		{
			name: "section not an object",
			in:   `{"runtime": true}`,
			want: []string{`key "runtime" must be a JSON object, got boolean true`},
			key:  "runtime", line: 1,
		},
		{
			name: "file not an object",
			in:   "\n[1]",
			want: []string{`settings.json:2:1: the file must be a JSON object, got an array`},
			line: 2,
		},
		{
			name: "refused policy",
			in:   `{"schema": {"json_schema": {"optional_dataclass_without_type": "drop"}}}`,
			want: []string{`key "schema.json_schema.optional_dataclass_without_type": "drop" is not accepted (allowed: "tolerate")`, "never done"},
			key:  "schema.json_schema.optional_dataclass_without_type", line: 1,
		},
		{
			name: "refused mcp cleanup off",
			in:   "{\n\"mcp\": {\"multi_mcp_cleanup_on_failure\": false}\n}",
			want: []string{`settings.json:2:`, `key "mcp.multi_mcp_cleanup_on_failure": false is refused (allowed: true)`, "half open", "never wanted"},
			key:  "mcp.multi_mcp_cleanup_on_failure", line: 2,
		},
		{
			name: "refused daytona quoting off",
			in:   `{"tools": {"daytona_shell_quote_paths": false}}`,
			want: []string{`key "tools.daytona_shell_quote_paths": false is refused (allowed: true)`, "never safe"},
			key:  "tools.daytona_shell_quote_paths", line: 1,
		},
		{
			name: "duplicate key",
			in:   "{\"mcp\": {\"multi_mcp_cleanup_on_failure\": true},\n\"mcp\": {}}",
			want: []string{`settings.json:2:`, `duplicate key "mcp" (first on line 1)`},
			key:  "mcp", line: 2,
		},
		{
			name: "syntax error",
			in:   "{\n  \"runtime\": {,}\n}",
			want: []string{`settings.json:2:`, `invalid JSON`},
			line: 2,
		},
		{
			name: "trailing comma",
			in:   "{\"mcp\": {},\n}",
			want: []string{`settings.json:2:`, `invalid JSON`},
			line: 2,
		},
		{
			name: "trailing text",
			in:   `{} {}`,
			want: []string{`unexpected text after the settings object`},
			line: 1,
		},
		{
			name: "empty",
			in:   " \n",
			want: []string{`settings.json: the file is empty; write {} for the defaults`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := config.ParseSettings([]byte(tt.in))
			if err == nil {
				t.Fatalf("parsed to %+v, want an error", s)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n does not contain %q", err, w)
				}
			}
			if !errors.Is(err, config.ErrInvalidSettings) {
				t.Errorf("error does not match ErrInvalidSettings")
			}
			var se *config.SettingsError
			if !errors.As(err, &se) {
				t.Fatalf("error is not a *SettingsError: %T", err)
			}
			if se.Key != tt.key || se.Line != tt.line {
				t.Errorf("Key, Line = %q, %d; want %q, %d", se.Key, se.Line, tt.key, tt.line)
			}
			if s != (config.Settings{}) {
				t.Errorf("a failed parse returned settings %+v", s)
			}
		})
	}
}

func TestAllProblemsReported(t *testing.T) {
	_, err := config.ParseSettings([]byte(`{
  "runtime": {"event_streaming": {"sub_agent_to_parent": "true"}},
  "mcp": {"multi_mcp_cleanup_on_failure": false},
  "tool": {}
}`))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`settings.json:2:`,
		`settings.json:3:`,
		`settings.json:4:`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d = %q, want it on %q", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[2], `did you mean "tools"?`) {
		t.Errorf("no suggestion for tool: %q", lines[2])
	}
}

func TestLoadSettingsNamesFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "my-settings.json")
	if err := os.WriteFile(path, []byte("{\n\"runtime\": {\"event_streming\": {}}}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := config.LoadSettings(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+`:2:`) || !strings.Contains(err.Error(), `unknown key "runtime.event_streming"`) {
		t.Fatalf("err = %v, want it to start with %s:2:", err, path)
	}
	_, err = config.LoadSettings(filepath.Join(dir, "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want fs.ErrNotExist", err)
	}
}

func TestValidateCodeBuiltSettings(t *testing.T) {
	var zero config.Settings
	err := zero.Validate()
	if err == nil {
		t.Fatal("the zero Settings must not validate: its refused falses would turn safety off")
	}
	for _, w := range []string{
		`key "schema.json_schema.optional_dataclass_without_type": "" is not accepted (allowed: "tolerate")`,
		`key "mcp.multi_mcp_cleanup_on_failure": false is refused (allowed: true)`,
		`key "tools.daytona_shell_quote_paths": false is refused (allowed: true)`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\n does not contain %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "sub_agent_to_parent") || strings.Contains(err.Error(), "include_metadata") {
		t.Errorf("false is a valid choice for the runtime switches: %v", err)
	}
	if !errors.Is(err, config.ErrInvalidSettings) {
		t.Error("Validate error does not match ErrInvalidSettings")
	}
}

// FuzzParseSettings: any file content parses or fails with located
// SettingsErrors, never a panic; what parses is valid settings.
func FuzzParseSettings(f *testing.F) {
	f.Add(`{"runtime":{"event_streaming":{"sub_agent_to_parent":false}}}`)
	f.Add("{\n\"mcp\": {\"multi_mcp_cleanup_on_failure\": false},\n\"tool\": 1}")
	f.Add(`{"schema":{"json_schema":{"optional_dataclass_without_type":"tolerate"}},"schema":{}}`)
	f.Add("\xef\xbb\xbf{\"runtime\\u0020\": {}}")
	f.Add(`{"tools":{"daytona_shell_quote_paths":[true]}} {}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := config.ParseSettings([]byte(in))
		if err != nil {
			if !errors.Is(err, config.ErrInvalidSettings) {
				t.Fatalf("error %v does not match ErrInvalidSettings", err)
			}
			var se *config.SettingsError
			if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), "settings.json") {
				t.Fatalf("error %v is not a located SettingsError", err)
			}
			if se.Line < 0 || se.Line > strings.Count(in, "\n")+1 {
				t.Fatalf("line %d outside the input", se.Line)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed settings do not validate: %v", err)
		}
	})
}

// runtime.content_hash.include_metadata reaches a knowledge base's
// content hash: true (the default) is agno v2.6.13's hash over the
// metadata (A3 golden case 2), false the v2.6.12 hash (golden case 1),
// which knowledge.New announces with a warning.
func TestContentHashSettingReachesKnowledge(t *testing.T) {
	c := &knowledge.Content{Path: "./demo.pdf", Metadata: map[string]any{"doc_id": 1, "collection_id": 1, "server_id": "10"}}
	for _, tc := range []struct {
		file, hash string
		warns      bool
	}{
		{`{}`, "c5521948500454dd7380f623c15bd0259c9f15c57e2d019680dd5e5160e7fe81", false},
		{`{"runtime": {"content_hash": {"include_metadata": true}}}`, "c5521948500454dd7380f623c15bd0259c9f15c57e2d019680dd5e5160e7fe81", false},
		{`{"runtime": {"content_hash": {"include_metadata": false}}}`, "50c6b3e91093a697bab6e423ed132c9f81402dd84efd81fa4544740feeeda0fd", true},
	} {
		s, err := config.ParseSettings([]byte(tc.file))
		if err != nil {
			t.Fatal(err)
		}
		opts := s.KnowledgeHashOptions()
		if got := knowledge.ContentHash(c, opts); got != tc.hash {
			t.Errorf("%s: content hash %s, want %s", tc.file, got, tc.hash)
		}
		var logs strings.Builder
		if _, err := knowledge.New(t.Context(), knowledge.Config{Name: "kb", ContentHash: opts, Logger: slog.New(slog.NewTextHandler(&logs, nil))}); err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "include_metadata=false") && strings.Contains(logs.String(), "v2.6.12")
		if warned != tc.warns {
			t.Errorf("%s: warning logged = %v, want %v; log:\n%s", tc.file, warned, tc.warns, logs.String())
		}
	}
	// The users' example file keeps the v2.6.13 hash.
	s, err := config.LoadSettings(filepath.Join("testdata", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := knowledge.ContentHash(c, s.KnowledgeHashOptions()); got != "c5521948500454dd7380f623c15bd0259c9f15c57e2d019680dd5e5160e7fe81" {
		t.Errorf("example settings give hash %s", got)
	}
	if _, err := config.ParseSettings([]byte(`{"runtime": {"content_hash": {"include_metadata": "no"}}}`)); !errors.Is(err, config.ErrInvalidSettings) {
		t.Errorf("a string include_metadata: %v, want ErrInvalidSettings", err)
	}
}
