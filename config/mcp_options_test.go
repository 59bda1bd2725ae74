package config_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool/mcp"
)

// mcpFromConfig builds config.toml with one [mcp.servers.s] table and
// returns the server's toolkit, closed at cleanup.
func mcpFromConfig(t *testing.T, table string) *mcp.Tools {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[mcp.servers.s]\n" + table + "\n"})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	tk := res.MCP["s"]
	if tk == nil {
		t.Fatal("no MCP toolkit built")
	}
	return tk
}

// connect connects tk, failing the test otherwise.
func connect(t *testing.T, tk *mcp.Tools) {
	t.Helper()
	if err := tk.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// startEverythingHTTP runs the reference server's streamable HTTP mode
// on a free port and returns its endpoint.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	node, entry := everythingServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && strings.Contains(sc.Text(), "listening on port") {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
	})
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the reference server exited before listening")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reference server did not start listening")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
}

// env and pass_env reach a stdio server's process: the reference
// server's get-env lists its environment.
func TestMCPServerEnvFromConfig(t *testing.T) {
	node, entry := everythingServer(t)
	t.Setenv("AGNO_TEST_MCP_TOKEN", "from-the-environment")
	tk := mcpFromConfig(t, `command = "`+node+`"
args = ["`+entry+`", "stdio"]
env = { AGNO_TEST_MCP_MODE = "from-the-file" }
pass_env = ["AGNO_TEST_MCP_TOKEN"]
include_tools = ["get-env"]
timeout_seconds = 20`)
	r, err := tk.Call(context.Background(), "get-env", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"AGNO_TEST_MCP_MODE": "from-the-file"`, `"AGNO_TEST_MCP_TOKEN": "from-the-environment"`} {
		if !strings.Contains(r.Content, want) {
			t.Errorf("the server's environment lacks %s", want)
		}
	}
	connect(t, tk)
	fns, err := tk.Functions(context.Background())
	if err != nil || len(fns) != 1 || fns[0].Name != "get-env" {
		t.Errorf("include_tools: %d functions, %v", len(fns), err)
	}
}

// http_timeout_seconds is agno's StreamableHTTPClientParams timeout: a
// call to a real server outlasting it fails, and within it completes,
// though timeout_seconds allows longer.
func TestMCPServerHTTPTimeoutFromConfig(t *testing.T) {
	url := startEverythingHTTP(t)
	ctx := context.Background()
	args := map[string]any{"duration": 3, "steps": 1}

	tk := mcpFromConfig(t, `url = "`+url+`"
timeout_seconds = 30
http_timeout_seconds = 1
exclude_tools = ["echo"]
tool_name_prefix = "ev"`)
	connect(t, tk)
	fns, err := tk.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fns {
		names = append(names, f.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "ev_trigger-long-running-operation") || strings.Contains(strings.Join(names, ","), "ev_echo,") {
		t.Errorf("functions %v", names)
	}
	start := time.Now()
	r, err := tk.Call(ctx, "trigger-long-running-operation", args)
	if err == nil && strings.Contains(r.Content, "completed") {
		t.Fatalf("the call outlasting http_timeout_seconds completed: %q", r.Content)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("the call failed after %v, want about 1s", d)
	}

	tk = mcpFromConfig(t, `url = "`+url+`"
http_timeout_seconds = 10`)
	r, err = tk.Call(ctx, "trigger-long-running-operation", args)
	if err != nil || !strings.Contains(r.Content, "Long running operation completed. Duration: 3 seconds") {
		t.Fatalf("within http_timeout_seconds: %q %v", r.Content, err)
	}
}

// connect_timeout_seconds bounds starting a server and its handshake
// apart from timeout_seconds: a command that never answers initialize
// fails after it, and a real server within it connects.
func TestMCPServerConnectTimeoutFromConfig(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	tk := mcpFromConfig(t, `command = "`+sleep+`"
args = ["30"]
timeout_seconds = 30
connect_timeout_seconds = 0.5`)
	start := time.Now()
	if err := tk.Connect(context.Background()); err == nil {
		t.Fatal("connected to a command that never answers")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("connecting gave up after %v, want about 0.5s", d)
	}

	node, entry := everythingServer(t)
	tk = mcpFromConfig(t, `command = "`+node+`"
args = ["`+entry+`", "stdio"]
connect_timeout_seconds = 20`)
	r, err := tk.Call(context.Background(), "echo", map[string]any{"message": "up"})
	if err != nil || r.Content != "Echo: up" {
		t.Fatalf("echo: %q %v", r.Content, err)
	}
}

// instructions and add_instructions reach the system message of an agent
// using the server, as agno's Toolkit arguments.
func TestMCPServerInstructionsFromConfig(t *testing.T) {
	node, entry := everythingServer(t)
	t.Setenv(testKeyEnv, testKey)
	var system string
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: testKey, Responder: func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role != model.RoleTool {
			system = systemText(req)
		}
		return registryResponder(req)
	}})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
[storage]
driver = "memory"
[mcp.servers.everything]
command = "` + node + `"
args = ["` + entry + `", "stdio"]
include_tools = ["echo"]
instructions = "Pass messages to echo unchanged."
add_instructions = true
`,
		"agents/echoer.toml": "instructions = \"[echoer]\"\ntools = [\"mcp:everything\"]\n",
	})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	out, err := res.Agents[0].Run(context.Background(), "echo it")
	if err != nil || out.Content != "echoed: Echo:   hello MCP" {
		t.Fatalf("run: %v %q", err, out.Content)
	}
	if !strings.Contains(system, "Pass messages to echo unchanged.") {
		t.Errorf("system message %q lacks the server's instructions", system)
	}
}

// headers and headers_env reach a streamable HTTP server with every
// request (a go-sdk server whose tool reports them); a headers_env
// variable that is not set makes the server unusable, not the config.
func TestMCPServerHeadersFromConfig(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "headers", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "headers", Description: "The request's headers.", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var h http.Header
			if req.Extra != nil {
				h = req.Extra.Header
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "team=" + h.Get("X-Team") + " auth=" + h.Get("Authorization")}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	table := `url = "` + ts.URL + `"
headers = { X-Team = "blue" }
headers_env = { Authorization = "AGNO_TEST_MCP_AUTH" }`

	t.Setenv("AGNO_TEST_MCP_AUTH", "Bearer from-the-environment")
	tk := mcpFromConfig(t, table)
	r, err := tk.Call(context.Background(), "headers", nil)
	if err != nil || r.Content != "team=blue auth=Bearer from-the-environment" {
		t.Fatalf("headers: %q %v", r.Content, err)
	}

	t.Setenv("AGNO_TEST_MCP_AUTH", "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[mcp.servers.s]\n" + table + "\n"})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	if res.MCP["s"] != nil {
		t.Error("a server whose headers_env variable is not set was built")
	}
}
