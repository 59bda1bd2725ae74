package config_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/tool/file"
	"github.com/agno-go/agno/tool/shell"
)

// testdata/config.toml and testdata/settings.json are copies of
// shared/examples, the files users copy from the upgrade guide.
func TestUsersConfigLoadsAsIs(t *testing.T) {
	c, err := config.Load(filepath.Join("testdata", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata")
	if c.Path != filepath.Join(dir, "config.toml") || c.Dir != dir {
		t.Errorf("Path %q Dir %q", c.Path, c.Dir)
	}
	a := c.AgentOS
	if a.Name != "my-agentos" || a.Host != "0.0.0.0" || a.Port != 7777 || !a.RegistryAutoPopulate || !a.ProtectedMode {
		t.Errorf("[agentos] = %+v", a)
	}
	wantSources := []string{filepath.Join(dir, "agents"), filepath.Join(dir, "teams"), filepath.Join(dir, "workflows")}
	if diff := cmp.Diff(wantSources, a.Registry.Sources); diff != "" || !a.Registry.RefreshOnStart {
		t.Errorf("registry sources (-want +got):\n%s refresh_on_start=%v", diff, a.Registry.RefreshOnStart)
	}
	want := config.ModelConfig{Provider: "openai-compatible", BaseURL: "https://taotoken.net/api", APIKeyEnv: "TAOTOKEN_API_KEY", Model: "gpt-4o-mini"}
	if diff := cmp.Diff(map[string]config.ModelConfig{"default": want}, c.Models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if !c.MCP.Tools.SessionCloseOnRefresh || !c.MCP.Tools.PreserveArgumentWhitespace {
		t.Errorf("[mcp.tools] = %+v", c.MCP.Tools)
	}
	h := c.Workflows.HITL
	if h.Transport != "socket" || h.SocketPath != "/tmp/agno-hitl.sock" || !h.Socket() || h.WebSocket() {
		t.Errorf("[workflows.hitl] = %+v", h)
	}
	// Defaults for what the skeleton leaves out.
	if c.Storage.Driver != "sqlite" || c.Storage.Path != filepath.Join(dir, "agno.db") {
		t.Errorf("storage = %+v, want sqlite agno.db beside the config", c.Storage)
	}
	if c.Settings != config.DefaultSettings() {
		t.Errorf("settings = %+v, want the defaults", c.Settings)
	}

	// settings.json next to it, as `--settings settings.json`.
	withSettings, err := c.LoadSettingsFile("settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if withSettings.Settings != config.DefaultSettings() || withSettings.AgentOS.Name != "my-agentos" {
		t.Errorf("LoadSettingsFile: %+v", withSettings.Settings)
	}
	off := config.DefaultSettings()
	off.Runtime.EventStreaming.SubAgentToParent = false
	c2, err := c.WithSettings(off)
	if err != nil || c2.Settings.Runtime.EventStreaming.SubAgentToParent || !c.Settings.Runtime.EventStreaming.SubAgentToParent {
		t.Errorf("WithSettings: %v %+v (original %+v)", err, c2.Settings, c.Settings)
	}
	bad := config.DefaultSettings()
	bad.MCP.MultiMCPCleanupOnFailure = false
	if _, err := c.WithSettings(bad); !errors.Is(err, config.ErrInvalidSettings) {
		t.Errorf("WithSettings(refused value) = %v", err)
	}
}

// The users' skeleton starts as it is: its model key is not set, its
// sources directories do not exist, and both are explained.
func TestUsersConfigBuilds(t *testing.T) {
	t.Setenv("TAOTOKEN_API_KEY", "")
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"config.toml": string(b)})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	logger, logs := newLogger()
	c.Logger = logger
	res, err := c.Build(t.Context(), config.Functions{}, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if !strings.Contains(logs.String(), "model=default env=TAOTOKEN_API_KEY") {
		t.Errorf("no warning for the key:\n%s", logs)
	}
	s := res.Report.String()
	for _, want := range []string{
		"TAOTOKEN_API_KEY is not set",
		filepath.Join(dir, "agents") + " (agent files): missing",
		filepath.Join(dir, "workflows") + " (workflow files): missing",
		"loaded 0 agents, 0 teams, 0 workflows",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "agno.db")); err != nil {
		t.Errorf("default store: %v", err)
	}
}

func TestUsersFilesAreTheExamples(t *testing.T) {
	for _, name := range []string{"config.toml", "settings.json"} {
		example, err := os.ReadFile(filepath.Join("..", "..", "shared", "examples", name))
		if err != nil {
			t.Skipf("shared/examples not beside the tree: %v", err)
		}
		copied, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(example) != string(copied) {
			t.Errorf("testdata/%s differs from shared/examples/%s", name, name)
		}
	}
}

func parse(t *testing.T, src string) error {
	t.Helper()
	_, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte(src))
	return err
}

func TestUnknownKeysNameThePathAndLine(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		parts     []string
	}{
		{"top level", "[agentos]\nname = \"x\"\n\n[agentoss]\nport = 1\n", 4,
			[]string{`unknown key "agentoss"`, `did you mean "agentos"?`, "keys allowed at the top level"}},
		{"nested table", "[agentos]\nname = \"x\"\n[agentos.registry]\nrefresh_on_start = true\nsource = [\"agents\"]\n", 5,
			[]string{`unknown key "agentos.registry.source"`, `did you mean "agentos.registry.sources"?`}},
		{"dotted key", "agentos.prot = 8000\n", 1, []string{`unknown key "agentos.prot"`, `did you mean "agentos.port"?`}},
		{"inside a model", "[models.default]\nprovider = \"openai\"\nmodel = \"gpt-4o\"\ntemprature = 0.5\n", 4,
			[]string{`unknown key "models.default.temprature"`, `did you mean "models.default.temperature"?`}},
		{"secret in the file", "[models.default]\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"sk-123\"\n", 4,
			[]string{`unknown key "models.default.api_key"`, "secrets never go in a config file", "api_key_env"}},
		{"unknown toolkit", "[toolkits.shel]\nallow_shell = true\n", 1, []string{`unknown key "toolkits.shel"`, `did you mean "toolkits.shell"?`}},
		{"inline table", "[mcp.servers.x]\nurl = \"http://h/mcp\"\nheaders = { A = \"1\" }\nheader_env = { B = \"C\" }\n", 4,
			[]string{`unknown key "mcp.servers.x.header_env"`, `did you mean "mcp.servers.x.headers_env"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := configErrors(t, parse(t, tt.src))
			e := findError(t, errs, tt.parts...)
			if e.Line != tt.line {
				t.Errorf("line %d, want %d: %v", e.Line, tt.line, e)
			}
			if !errors.Is(e, config.ErrInvalidConfig) {
				t.Errorf("%v does not match ErrInvalidConfig", e)
			}
		})
	}
}

func TestValidationMessages(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		parts     []string
	}{
		{"port", "[agentos]\nport = 70000\n", 2, []string{"agentos.port = 70000", "from 1 to 65535"}},
		{"empty host", "[agentos]\nhost = \"\"\n", 2, []string{"agentos.host is empty", "0.0.0.0"}},
		{"upload limit", "[agentos]\nmax_upload_bytes = 0\n", 2, []string{"agentos.max_upload_bytes = 0", "in bytes"}},
		{"file limit", "[agentos]\nmax_upload_bytes = 1000\nmax_file_bytes = 2000\n", 3, []string{"agentos.max_file_bytes = 2000", "at most agentos.max_upload_bytes (1000)"}},
		{"allowed host", "[agentos]\nallowed_hosts = [\"http://x/\"]\n", 2, []string{"allowed_hosts: \"http://x/\" is not a host"}},
		{"cors origin", "[agentos]\ncors_allowed_origins = [\"*\", \"example.com/app\"]\n", 2, []string{"\"example.com/app\" is not an origin", "scheme://host[:port]"}},
		{"empty source", "[agentos.registry]\nsources = [\"agents\", \"\"]\n", 2, []string{"sources has an empty entry"}},
		{"duplicate source", "[agentos.registry]\nsources = [\"agents\", \"./agents\"]\n", 2, []string{"lists \"./agents\" twice"}},
		{"no provider", "[models.m]\nmodel = \"x\"\n", 1, []string{"models.m has no provider", "openai-compatible"}},
		{"bad provider", "[models.m]\nprovider = \"azure\"\nmodel = \"x\"\n", 2, []string{"provider = \"azure\" is not supported"}},
		{"no model id", "[models.m]\nprovider = \"openai-compatible\"\nbase_url = \"http://localhost:1/v1\"\n", 1, []string{"models.m has no model", "model = \"gpt-4o-mini\""}},
		{"compatible without url", "[models.m]\nprovider = \"openai-compatible\"\nmodel = \"x\"\n", 1, []string{"has no base_url", "http://localhost:11434/v1"}},
		{"bad base url", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\nbase_url = \"localhost:8080\"\n", 4, []string{"base_url = \"localhost:8080\" is not an http(s) URL"}},
		{"key instead of variable", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\napi_key_env = \"sk-abcdef\"\n", 4, []string{"must name an environment variable, not hold the secret", "export MY_KEY"}},
		{"bad variable name", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\napi_key_env = \"MY-KEY\"\n", 4, []string{"\"MY-KEY\" is not an environment variable name"}},
		{"temperature", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\ntemperature = 3.5\n", 4, []string{"temperature = 3.5", "from 0 to 2"}},
		{"max tokens", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\nmax_tokens = 0\n", 4, []string{"max_tokens = 0", "positive number"}},
		{"max retries", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\nmax_retries = -1\n", 4, []string{"max_retries = -1", "use 0"}},
		{"timeout", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\ntimeout = 0\n", 4, []string{"timeout = 0", "positive number of seconds"}},
		{"type mismatch", "[agentos]\nport = \"7777\"\n", 2, []string{`key "agentos.port"`, "type string", "type integer"}},
		{"storage driver", "[storage]\ndriver = \"mysql\"\n", 2, []string{"storage.driver = \"mysql\"", "\"sqlite\"", "\"postgres\""}},
		{"postgres path", "[storage]\ndriver = \"postgres\"\npath = \"x.db\"\n", 3, []string{"storage.path is for driver = \"sqlite\""}},
		{"sqlite dsn", "[storage]\ndsn_env = \"X\"\n", 1, []string{"dsn_env and schema are for driver = \"postgres\""}},
		{"dsn in the file", "[storage]\ndriver = \"postgres\"\ndsn = \"postgres://u:p@h/db\"\n", 3, []string{`unknown key "storage.dsn"`, "dsn_env"}},
		{"storage timeout zero", "[storage]\ntimeout_seconds = 0\n", 2, []string{"storage.timeout_seconds = 0", "positive number of seconds", "default 15"}},
		{"storage timeout negative", "[storage]\ndriver = \"postgres\"\ntimeout_seconds = -1.5\n", 3, []string{"storage.timeout_seconds = -1.5", "positive number of seconds"}},
		{"storage timeout string", "[storage]\ntimeout_seconds = \"15s\"\n", 2, []string{"timeout_seconds", "number of seconds", `the string "15s"`}},
		{"storage connect timeout", "[storage]\ndriver = \"postgres\"\nconnect_timeout_seconds = 0\n", 3, []string{"storage.connect_timeout_seconds = 0", "one connection attempt", "default 5"}},
		{"storage max conns zero", "[storage]\ndriver = \"postgres\"\nmax_conns = 0\n", 3, []string{"storage.max_conns = 0", "1 or more", "default 16"}},
		{"storage max conns negative", "[storage]\ndriver = \"postgres\"\nmax_conns = -4\n", 3, []string{"storage.max_conns = -4", "1 or more"}},
		{"sqlite max conns", "[storage]\nmax_conns = 4\n", 2, []string{"storage.max_conns is for driver = \"postgres\"", "remove it"}},
		{"sqlite connect timeout", "[storage]\npath = \"a.db\"\nconnect_timeout_seconds = 3\n", 3, []string{"storage.connect_timeout_seconds is for driver = \"postgres\""}},
		{"memory timeout", "[storage]\ndriver = \"memory\"\ntimeout_seconds = 5\n", 3, []string{"storage.timeout_seconds bounds a database", "driver = \"memory\" has none"}},
		{"session close off", "[mcp.tools]\nsession_close_on_refresh = false\n", 2, []string{"session_close_on_refresh = false is refused", "cannot be turned off"}},
		{"whitespace off", "[mcp.tools]\npreserve_argument_whitespace = false\n", 2, []string{"preserve_argument_whitespace = false is refused", "cannot be turned off"}},
		{"mcp both", "[mcp.servers.e]\ncommand = \"npx\"\nurl = \"http://h/mcp\"\n", 1, []string{"has both command and url"}},
		{"mcp neither", "[mcp.servers.e]\ntimeout_seconds = 5\n", 1, []string{"has neither command nor url"}},
		{"mcp transport", "[mcp.servers.e]\nurl = \"http://h/mcp\"\ntransport = \"websocket\"\n", 3, []string{"transport = \"websocket\"", "streamable-http"}},
		{"mcp url", "[mcp.servers.e]\nurl = \"h:3001\"\n", 2, []string{"url = \"h:3001\" is not an http(s) URL"}},
		{"mcp http timeout on stdio", "[mcp.servers.e]\ncommand = \"npx\"\nhttp_timeout_seconds = 5\n", 3, []string{"mcp.servers.e.http_timeout_seconds is for HTTP servers (url), not command"}},
		{"mcp connect timeout zero", "[mcp.servers.e]\ncommand = \"npx\"\nconnect_timeout_seconds = 0\n", 3, []string{"mcp.servers.e.connect_timeout_seconds = 0: use a positive number of seconds (default timeout_seconds)"}},
		{"mcp headers on stdio", "[mcp.servers.e]\ncommand = \"npx\"\nheaders = { A = \"b\" }\n", 1, []string{"headers and headers_env are for HTTP servers"}},
		{"mcp timeout", "[mcp.servers.e]\ncommand = \"npx\"\ntimeout_seconds = -1\n", 3, []string{"timeout_seconds = -1"}},
		{"mcp name", "[mcp.servers.\"a b\"]\ncommand = \"npx\"\n", 1, []string{"MCP server name \"a b\""}},
		{"hitl transport", "[workflows.hitl]\ntransport = \"tcp\"\n", 2, []string{"transport = \"tcp\"", "\"socket\"", "\"websocket\"", "\"both\""}},
		{"socket path length", "[workflows.hitl]\ntransport = \"socket\"\nsocket_path = \"/tmp/" + strings.Repeat("s", 120) + ".sock\"\n", 3, []string{"Unix sockets take at most"}},
		{"shell timeout", "[toolkits.shell]\ntimeout_seconds = 0\n", 2, []string{"toolkits.shell.timeout_seconds = 0"}},
		{"daytona language", "[toolkits.daytona]\nlanguage = \"ruby\"\n", 2, []string{"language = \"ruby\"", "python"}},
		{"syntax", "[agentos]\nname = \"x\n", 2, []string{"config.toml:2", "strings cannot contain newlines"}},
		// A construct left open is reported where it began, not where the
		// parser gave up.
		{"open table header", "[agentos\nport = 1\n", 1, []string{"config.toml:1", "to end table name"}},
		{"open multiline string", "[agentos]\nname = \"\"\"abc\n\nport = 1\n", 2, []string{"config.toml:2", "unexpected EOF"}},
		{"open array", "[agentos]\ncors_allowed_origins = [\"a\",\n\"b\",\n\n", 2, []string{"config.toml:2", "EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := configErrors(t, parse(t, tt.src))
			e := findError(t, errs, tt.parts...)
			if e.Line != tt.line {
				t.Errorf("line %d, want %d: %v", e.Line, tt.line, e)
			}
		})
	}
}

func TestAllProblemsReportedTogether(t *testing.T) {
	err := parse(t, "[agentos]\nport = 0\nnmae = \"x\"\n[mcp.tools]\nsession_close_on_refresh = false\n")
	errs := configErrors(t, err)
	findError(t, errs, "agentos.port = 0")
	findError(t, errs, `unknown key "agentos.nmae"`)
	findError(t, errs, "session_close_on_refresh = false is refused")
}

func TestRelativePathsResolveAgainstTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"conf/config.toml": `
[agentos.registry]
sources = ["defs/agents", "/abs/teams"]
[storage]
path = "data/agno.db"
[workflows.hitl]
socket_path = "run/hitl.sock"
[toolkits.shell]
dir = "work"
[toolkits.file]
base_dir = "../files"
[mcp.servers.local]
command = "./bin/server"
args = ["--stdio"]
[mcp.servers.line]
command = "npx -y server"
`,
		"conf/settings.json": `{"runtime": {"event_streaming": {"sub_agent_to_parent": false}}}`,
	})
	// Load from another working directory: paths follow the file.
	t.Chdir(t.TempDir())
	c, err := config.Load(filepath.Join(dir, "conf", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "conf")
	checks := map[string][2]string{
		"sources[0]":      {c.AgentOS.Registry.Sources[0], filepath.Join(base, "defs", "agents")},
		"sources[1]":      {c.AgentOS.Registry.Sources[1], "/abs/teams"},
		"storage.path":    {c.Storage.Path, filepath.Join(base, "data", "agno.db")},
		"socket_path":     {c.Workflows.HITL.SocketPath, filepath.Join(base, "run", "hitl.sock")},
		"shell.dir":       {c.Toolkits[config.ToolkitShell].(*shell.Options).Dir, filepath.Join(base, "work")},
		"file.base_dir":   {c.Toolkits[config.ToolkitFile].(*file.Options).BaseDir, filepath.Join(dir, "files")},
		"mcp command":     {c.MCP.Servers["local"].Command, filepath.Join(base, "bin", "server")},
		"mcp commandline": {c.MCP.Servers["line"].Command, "npx -y server"},
	}
	for name, got := range checks {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", name, got[0], got[1])
		}
	}
	c2, err := c.LoadSettingsFile("settings.json")
	if err != nil {
		t.Fatal(err)
	}
	if c2.Settings.Runtime.EventStreaming.SubAgentToParent {
		t.Error("settings.json beside the config was not read")
	}

	// Defaults also sit beside the file.
	writeFiles(t, dir, map[string]string{"empty/config.toml": ""})
	d, err := config.Load(filepath.Join(dir, "empty", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	e := filepath.Join(dir, "empty")
	if d.Storage.Path != filepath.Join(e, "agno.db") || d.Workflows.HITL.SocketPath != filepath.Join(e, "agno-hitl.sock") ||
		d.AgentOS.Registry.Sources[0] != filepath.Join(e, "agents") || d.Toolkits[config.ToolkitShell].(*shell.Options).Dir != e || d.Toolkits[config.ToolkitFile].(*file.Options).BaseDir != e {
		t.Errorf("defaults not beside the file: %+v %+v", d.Storage, d.Workflows.HITL)
	}
	deep := filepath.Join(dir, strings.Repeat("d", 60), strings.Repeat("e", 60))
	writeFiles(t, deep, map[string]string{"config.toml": ""})
	dd, err := config.Load(filepath.Join(deep, "config.toml"))
	if err != nil {
		t.Fatalf("a deep directory must not fail for the default socket path: %v", err)
	}
	if p := dd.Workflows.HITL.SocketPath; filepath.Dir(p) != os.TempDir() || len(p) > 103 || !strings.HasPrefix(filepath.Base(p), "agno-hitl-") {
		t.Errorf("default socket path for a deep directory: %q", p)
	}
	if d.AgentOS.Host != "127.0.0.1" || d.AgentOS.Port != 7777 || !d.AgentOS.ProtectedMode || d.Workflows.HITL.Transport != "both" {
		t.Errorf("defaults: %+v %+v", d.AgentOS, d.Workflows.HITL)
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"[agentos]\nport = 7777\n",
		"[[steps]]\nname = \"a\"\n[[steps.steps]]\nfoo = 1\n",
		"a = [{b = 1, c = [1, [2, 3]]}, {d = \"\"\"x\ny\"\"\"}]\n",
		"\"quoted.key\" = 'lit' # comment\n[x.'y z']\nq = 1979-05-27T07:32:00Z\n",
		"[models.\"my model\"]\nprovider = \"openai\"\napi_key = \"k\"\n",
		"x = '''\n''' \ny = \"\\u00e9\\e\"\n",
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "config.toml")); err == nil {
		seeds = append(seeds, string(b))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "registry", "workflows", "review-flow.toml")); err == nil {
		seeds = append(seeds, string(b))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := config.Parse("/fuzz/config.toml", []byte(src))
		if err == nil && c == nil {
			t.Fatal("nil config without an error")
		}
		if err != nil && !errors.Is(err, config.ErrInvalidConfig) {
			t.Fatalf("error does not match ErrInvalidConfig: %v", err)
		}
	})
}

func TestStorageLimits(t *testing.T) {
	c, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte("[storage]\ndriver = \"postgres\"\ntimeout_seconds = 2.5\nconnect_timeout_seconds = 3\nmax_conns = 6\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Storage
	if s.TimeoutSeconds.Duration() != 2500*time.Millisecond || s.ConnectTimeoutSeconds.Duration() != 3*time.Second || s.MaxConns != 6 {
		t.Errorf("[storage] = %+v", s)
	}
	// Unset, they are 0: the backends' defaults (15s, 5s, 16) apply.
	d, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte("[storage]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Storage.TimeoutSeconds != 0 || d.Storage.ConnectTimeoutSeconds != 0 || d.Storage.MaxConns != 0 {
		t.Errorf("defaults: %+v", d.Storage)
	}
}

// TestStoragePostgresLimitsReachThePools builds a config with
// connect_timeout_seconds and max_conns: the run store's pool and the
// control plane's are opened with them.
func TestStoragePostgresLimitsReachThePools(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[storage]
driver = "postgres"
dsn_env = "` + pgtest.EnvDSN + `"
schema = "` + schema + `"
timeout_seconds = 4
connect_timeout_seconds = 2
max_conns = 3
`})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	pg, ok := res.Store.(*postgres.Store)
	if !ok {
		t.Fatalf("store %T", res.Store)
	}
	pc := pg.Pool().Config()
	if pc.MaxConns != 3 || pc.ConnConfig.ConnectTimeout != 2*time.Second {
		t.Errorf("run store pool: max_conns %d, connect timeout %s; want 3, 2s", pc.MaxConns, pc.ConnConfig.ConnectTimeout)
	}
	if n := res.DB.SQL.Stats().MaxOpenConnections; n != 3 {
		t.Errorf("control plane pool: at most %d connections, want 3", n)
	}
}

// TestStorageTimeoutBoundsACall builds a SQLite store with
// timeout_seconds = 0.5 and has another process hold the write lock: a
// write fails within the deadline (not the 5s busy timeout) and says
// which key bounds it.
func TestStorageTimeoutBoundsACall(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ntimeout_seconds = 0.5\n"})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	other, err := sql.Open("sqlite", filepath.Join(dir, "agno.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO agno_schema_versions (table_name, version, created_at, updated_at) VALUES ('lock', 1, 0, 0)`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = res.Store.EnsureSession(t.Context(), &storage.Session{SessionID: "s", SessionType: storage.SessionAgent})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a write went through another process's write lock")
	}
	if !errors.Is(err, storage.ErrUnavailable) || !strings.Contains(err.Error(), "[storage] timeout_seconds") || !strings.Contains(err.Error(), "500ms") {
		t.Errorf("blocked write: %v\nwant storage.ErrUnavailable naming [storage] timeout_seconds (500ms)", err)
	}
	if took > 4*time.Second {
		t.Errorf("blocked write returned after %s: want timeout_seconds (0.5) to end it, not the busy timeout", took)
	}
	// The control plane's tables, in the same file, have the same bound.
	start = time.Now()
	_, err = res.DB.Exec(t.Context(), `CREATE TABLE IF NOT EXISTS agno_config_test_lock (a INTEGER)`)
	if took := time.Since(start); err == nil || took > 4*time.Second {
		t.Errorf("blocked control-plane write: %v after %s, want a failure within timeout_seconds (0.5)", err, took)
	}
}
