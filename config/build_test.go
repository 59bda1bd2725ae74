package config_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/tool/daytona"
)

func TestMissingAPIKeyWarnsAndFailsRuns(t *testing.T) {
	srv := fakeModel(t)
	const env = "AGNO_CONFIG_TEST_MISSING_KEY"
	t.Setenv(env, "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + env + `"
model = "fake-model"
[models.claude]
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "AGNO_CONFIG_TEST_MISSING_ANTHROPIC"
[storage]
driver = "memory"
`,
		"agents/researcher.toml": "name = \"Researcher\"\ninstructions = \"[researcher]\"\ntools = [\"lookup\"]\n",
	})
	t.Setenv("AGNO_CONFIG_TEST_MISSING_ANTHROPIC", "")
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	logger, logs := newLogger()
	c.Logger = logger
	res, err := c.Build(context.Background(), registryFunctions(), config.Existing{})
	if err != nil {
		t.Fatalf("a missing key must not stop the start: %v", err)
	}
	defer res.Close()

	// One warning at build time per model, naming the model and variable.
	log := logs.String()
	if strings.Count(log, "level=WARN msg=\"model API key is not set") != 2 ||
		!strings.Contains(log, "model=default env="+env) || !strings.Contains(log, "model=claude env=AGNO_CONFIG_TEST_MISSING_ANTHROPIC") {
		t.Errorf("build log:\n%s", log)
	}
	if !slices.Equal(res.Report.MissingKeys, []config.MissingKey{{Model: "claude", Env: "AGNO_CONFIG_TEST_MISSING_ANTHROPIC"}, {Model: "default", Env: env}}) {
		t.Errorf("missing keys %+v", res.Report.MissingKeys)
	}
	if !strings.Contains(res.Report.String(), "its API key variable "+env+" is not set") {
		t.Errorf("report:\n%s", res.Report)
	}
	// Info still reports provider and id.
	if info := res.Models["default"].Info(); info.Provider != "OpenAI" || info.ID != "fake-model" || info.Name != "OpenAILike" {
		t.Errorf("info %+v", info)
	}
	if info := res.Models["claude"].Info(); info.Provider != "Anthropic" || info.ID != "claude-sonnet-4-5" {
		t.Errorf("info %+v", info)
	}

	// A run through the agent fails with the variable and the fix.
	a := res.Agents[0]
	out, err := a.Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	msg := out.ContentString()
	if out.Status != run.StatusError || !strings.Contains(msg, env) || !strings.Contains(msg, "export "+env+"=<your key>") || !strings.Contains(msg, `model "default"`) {
		t.Fatalf("run: %s %q", out.Status, msg)
	}
	if srv.Calls() != 0 {
		t.Errorf("the provider was called %d times without a key", srv.Calls())
	}
	_, gerr := model.Collect(res.Models["claude"].Generate(context.Background(), &model.Request{}))
	if !errors.Is(gerr, config.ErrMissingAPIKey) || !strings.Contains(gerr.Error(), "AGNO_CONFIG_TEST_MISSING_ANTHROPIC") {
		t.Errorf("anthropic: %v", gerr)
	}

	// Once the variable is set in the process, the real client is used
	// (the fake server checks the key).
	t.Setenv(env, testKey)
	out, err = a.Run(context.Background(), "hi")
	if err != nil || out.Status != run.StatusCompleted || out.Content != "facts: value-of-agno" {
		t.Fatalf("run with the key: %v %s %v", err, out.Status, out.Content)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[0].Authorization() != "Bearer "+testKey {
		t.Errorf("requests %d, authorization %q", len(reqs), reqs[0].Authorization())
	}
}

func TestModelOptionsReachTheProvider(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-chat"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
temperature = 0.3
top_p = 0.9
max_tokens = 123
stop = ["END"]
seed = 7
max_retries = 0
timeout = 30
reasoning_effort = "low"
request_params = { service_tier = "flex", metadata = { team = "docs" } }
[storage]
driver = "memory"
`,
		"agents/plain.toml": "name = \"Plain\"\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	out, err := res.Agents[0].Run(context.Background(), "hello")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatal(err, out.Status, out.Content)
	}
	var body struct {
		Model       string   `json:"model"`
		Temperature float64  `json:"temperature"`
		TopP        float64  `json:"top_p"`
		MaxTokens   int      `json:"max_completion_tokens"`
		MaxTokens2  int      `json:"max_tokens"`
		Stop        []string `json:"stop"`
		Seed        int      `json:"seed"`
		// agno's reasoning_effort and request_params.
		ReasoningEffort string            `json:"reasoning_effort"`
		ServiceTier     string            `json:"service_tier"`
		Metadata        map[string]string `json:"metadata"`
	}
	reqs := srv.Requests()
	if err := reqs[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "fake-model" || body.Temperature != 0.3 || body.TopP != 0.9 || max(body.MaxTokens, body.MaxTokens2) != 123 ||
		!slices.Equal(body.Stop, []string{"END"}) || body.Seed != 7 ||
		body.ReasoningEffort != "low" || body.ServiceTier != "flex" || body.Metadata["team"] != "docs" {
		t.Errorf("request body %s", reqs[0].Body)
	}
}

func TestBuiltinToolkits(t *testing.T) {
	t.Setenv("DAYTONA_API_KEY", "")
	res, dir := tree(t, map[string]string{
		"config.toml": baseConfig + `
[toolkits.shell]
dir = "work"
allow_shell = true
timeout_seconds = 5
[toolkits.file]
base_dir = "files"
read_only = true
[toolkits.daytona]
language = "typescript"
`,
		"work/.keep":            "",
		"files/hello.txt":       "hi",
		"agents/local.toml":     "tools = [\"shell\", \"file\"]\n",
		"agents/sandboxed.toml": "tools = [\"shell\", \"file\", \"daytona\"]\n",
		"agents/other-key.toml": "tools = [\"file\"]\n",
	})
	local := res.Agents[0]
	if local.ID() != "local" || !slices.Equal(local.ToolNames(), []string{"run_shell_command", "read_file", "list_files", "search_files", "read_file_chunk", "search_content"}) {
		t.Errorf("%s tools %v (read_only drops save_file and replace_file_chunk)", local.ID(), local.ToolNames())
	}
	// shell runs in dir, relative to the config file, with allow_shell's
	// command parameter.
	sh, err := res.Toolkits["shell"].Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sh[0].Parameters), `"command"`) {
		t.Errorf("allow_shell: parameters %s", sh[0].Parameters)
	}
	r, err := sh[0].Invoke(context.Background(), nil, map[string]any{"command": "pwd"})
	if err != nil || !strings.Contains(r.Content, filepath.Join(dir, "work")) {
		t.Errorf("pwd: %q %v", r.Content, err)
	}
	fs, _ := res.Toolkits["file"].Functions(context.Background())
	for _, f := range fs {
		if f.Name == "read_file" {
			r, err := f.Invoke(context.Background(), nil, map[string]any{"file_name": "hello.txt"})
			if err != nil || r.Content != "hi" {
				t.Errorf("read_file: %q %v", r.Content, err)
			}
		}
	}
	// Daytona without its key: agno's error, for that agent only.
	f := failure(t, res, "sandboxed.toml")
	if !strings.Contains(f.Err.Error(), daytona.ErrMissingAPIKey.Error()) || !strings.Contains(f.Err.Error(), `tools: "daytona"`) {
		t.Errorf("daytona failure: %v", f.Err)
	}
	if res.Report.Counts.Agents != 2 {
		t.Errorf("report:\n%s", res.Report)
	}

	// With a key (and another variable name), the toolkit builds; nothing
	// is contacted until a tool runs.
	t.Setenv("MY_DAYTONA", "dtn-test")
	res2, _ := tree(t, map[string]string{
		"config.toml":      baseConfig + "\n[toolkits.daytona]\napi_key_env = \"MY_DAYTONA\"\napi_url = \"http://127.0.0.1:9/api\"\n",
		"agents/sand.toml": "tools = [\"daytona\"]\n",
	})
	if len(res2.Agents) != 1 || !slices.Contains(res2.Agents[0].ToolNames(), "run_code") {
		t.Fatalf("daytona with a key: %s", res2.Report)
	}
	t.Setenv("MY_DAYTONA", "")
	res3, _ := tree(t, map[string]string{
		"config.toml":      baseConfig + "\n[toolkits.daytona]\napi_key_env = \"MY_DAYTONA\"\n",
		"agents/sand.toml": "tools = [\"daytona\"]\n",
	})
	if f := failure(t, res3, "sand.toml"); !strings.Contains(f.Err.Error(), "MY_DAYTONA not set. Please set the MY_DAYTONA environment variable") {
		t.Errorf("custom variable: %v", f.Err)
	}
}

func TestStorageDefaultsToSQLiteBesideTheConfig(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[agentos]\nname = \"x\"\n"})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	if _, err := os.Stat(filepath.Join(dir, "agno.db")); err != nil {
		t.Fatalf("agno.db beside the config: %v", err)
	}
	if res.Store == nil {
		t.Fatal("no store")
	}
}

func TestStoragePostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[storage]
driver = "postgres"
dsn_env = "AGNO_TEST_POSTGRES_DSN"
schema = "` + schema + `"
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
`,
		"agents/researcher.toml": "instructions = \"[researcher]\"\ntools = [\"lookup\"]\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	out, err := res.Agents[0].Run(context.Background(), "q", run.WithSessionID("pg-session"))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatal(err, out.Status, out.Content)
	}
	s, err := res.Store.GetSession(context.Background(), "pg-session")
	if err != nil || s.AgentID != "researcher" {
		t.Fatalf("session in postgres: %+v %v", s, err)
	}
}

func TestStoragePostgresWithoutDSN(t *testing.T) {
	t.Setenv("AGNO_CONFIG_TEST_NO_DSN", "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"postgres\"\ndsn_env = \"AGNO_CONFIG_TEST_NO_DSN\"\n"})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Build(context.Background(), config.Functions{}, config.Existing{})
	if err == nil || !strings.Contains(err.Error(), "AGNO_CONFIG_TEST_NO_DSN, which is not set") || !strings.Contains(err.Error(), "export AGNO_CONFIG_TEST_NO_DSN=postgres://") {
		t.Fatalf("Build: %v", err)
	}
	// The default variable name.
	d, err := config.Parse(filepath.Join(dir, "c.toml"), []byte("[storage]\ndriver = \"postgres\"\n"))
	if err != nil || d.Storage.DSNEnv != "AGNO_POSTGRES_DSN" {
		t.Fatalf("default dsn_env: %+v %v", d.Storage, err)
	}
}

// everythingServer returns node and the reference MCP server installed
// for tool/mcp's tests; without them the test is skipped, except under
// CI=true where it fails.
func everythingServer(t *testing.T) (node, entry string) {
	t.Helper()
	missing := func(format string, a ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format+" (CI=true: run `make test-deps`)", a...)
		}
		t.Skipf(format+" (run `make test-deps`)", a...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	entry, err = filepath.Abs(filepath.Join("..", "tool", "mcp", "testdata", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		missing("the reference MCP server is not installed: %v", err)
	}
	return node, entry
}

func TestMCPServerFromConfig(t *testing.T) {
	node, entry := everythingServer(t)
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
[storage]
driver = "memory"
[mcp.servers.everything]
command = "` + node + `"
args = ["` + entry + `", "stdio"]
timeout_seconds = 20
include_tools = ["echo"]
`,
		"agents/echoer.toml": "instructions = \"[echoer]\"\ntools = [\"mcp:everything\"]\n",
	})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	tk := res.MCP["everything"]
	if tk == nil || tk.Connected() || tk.OpenSessions() != 0 {
		t.Fatalf("Build must not start the MCP server: %+v", tk)
	}
	out, err := res.Agents[0].Run(context.Background(), "echo it")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatal(err, out.Status, out.Content)
	}
	// Whitespace reaches the server byte for byte (trailing spaces are
	// stripped from the result, as agno does).
	if out.Content != "echoed: Echo:   hello MCP" {
		t.Errorf("content %q", out.Content)
	}
	if !tk.Connected() {
		t.Error("the server was not connected on first use")
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if tk.Connected() || tk.OpenSessions() != 0 {
		t.Error("Close left the MCP server connected")
	}
}

// provider = "groq" is agno's Groq: its key variable by default, its
// default model, its name in what the run reports; base_url points it
// at the fake here as a file may point it at a gateway.
func TestPresetProvider(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv("GROQ_API_KEY", testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "groq"
base_url = "` + srv.URL + `"
[storage]
driver = "memory"
`,
		"agents/plain.toml": "name = \"Plain\"\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	if info := res.Models["default"].Info(); info.Provider != "Groq" || info.Name != "Groq" || info.ID != "llama-3.3-70b-versatile" {
		t.Fatalf("info %+v", info)
	}
	out, err := res.Agents[0].Run(context.Background(), "hello")
	if err != nil || out.Status != run.StatusCompleted || out.ModelProvider != "Groq" {
		t.Fatal(err, out.Status, out.ModelProvider, out.Content)
	}
	reqs := srv.Requests()
	var body struct {
		Model string `json:"model"`
	}
	if len(reqs) == 0 || reqs[0].Authorization() != "Bearer "+testKey || reqs[0].Decode(&body) != nil || body.Model != "llama-3.3-70b-versatile" {
		t.Fatalf("requests %+v", reqs)
	}
}
