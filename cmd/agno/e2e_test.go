package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

// The users' checks against the real binary: start `agno agentos start`
// with their config.toml (its model pointed at a fake OpenAI-compatible
// server), the MCP reference server and several declarative resources,
// then talk HTTP to it as a user would.
func TestE2EAgentOSBinary(t *testing.T) {
	bin := agnoBinary(t)
	node, entry := referenceServer(t)
	dir := t.TempDir()
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel, APIKey: "sk-e2e"})
	defer fake.Close()

	cfg, _ := usersConfig(t, fake.URL)
	cfg += fmt.Sprintf(`
[mcp.servers.everything]
command = %q
args = [%q, "stdio"]
include_tools = ["echo"]

[mcp.servers.guarded]
command = %q
args = [%q, "stdio"]
include_tools = ["echo"]
requires_confirmation_tools = ["echo"]
`, node, entry, node, entry)
	files := map[string]string{
		"config.toml":                cfg,
		"settings.json":              mustRead(t, "../../examples/agentos/settings.json"),
		"agents/echoer.toml":         "name = \"Echoer\"\nmodel = \"default\"\ntools = [\"mcp:everything\"]\n",
		"agents/approver.toml":       "name = \"Approver\"\nmodel = \"default\"\ntools = [\"mcp:guarded\"]\n",
		"agents/researcher.toml":     "name = \"Researcher\"\nmodel = \"default\"\nrole = \"Finds facts\"\n",
		"agents/writer.toml":         "name = \"Writer\"\nmodel = \"default\"\nrole = \"Writes\"\n",
		"teams/research-team.toml":   "name = \"Research Team\"\nmode = \"coordinate\"\nmodel = \"default\"\nmembers = [\"researcher\", \"writer\"]\n",
		"workflows/review-flow.toml": "name = \"review-flow\"\n[[steps]]\nname = \"draft\"\nagent = \"researcher\"\n[[steps]]\nname = \"publish\"\nagent = \"writer\"\nrequires_confirmation = true\nconfirmation_message = \"Publish the report?\"\non_reject = \"cancel\"\n",
		"workflows/triage.toml":      "name = \"triage\"\n[[steps]]\nname = \"route\"\ntype = \"condition\"\nevaluator = \"input.contains('urgent')\"\n[[steps.steps]]\nname = \"fast\"\nagent = \"researcher\"\n[[steps.else_steps]]\nname = \"slow\"\nagent = \"writer\"\n",
	}
	writeTree(t, dir, files)
	p := startAgno(t, bin, []string{"agentos", "start", "--config", filepath.Join(dir, "config.toml")}, []string{"TAOTOKEN_API_KEY=sk-e2e"})
	base, logs, cmd := p.base, p.logs, p.cmd

	// Users' step 1: the registry lists every resource, counted per kind.
	var reg struct {
		Data []struct{ Name, Type, ID string } `json:"data"`
		Meta struct {
			TotalCount int `json:"total_count"`
		} `json:"meta"`
	}
	getJSON(t, base+"/registry?limit=100", &reg)
	counts := map[string]int{}
	for _, r := range reg.Data {
		counts[r.Type]++
	}
	if counts["agent"] != 4 || counts["team"] != 1 || counts["workflow"] != 2 || counts["model"] != 1 || counts["db"] != 1 {
		t.Fatalf("registry counts %v", counts)
	}
	p.waitLogged(t, "registry: loaded 4 agents, 1 teams, 2 workflows")

	// A streamed agent run with an MCP tool: agno's SSE sequence and fields.
	evs := postSSE(t, base+"/agents/echoer/runs", url.Values{"message": {"echo please"}, "session_id": {"s-echo"}})
	seq := eventNames(evs)
	if !strings.HasPrefix(seq, "RunStarted") || !strings.Contains(seq, "ToolCallStarted") || !strings.Contains(seq, "ToolCallCompleted") || !strings.HasSuffix(seq, "RunCompleted") {
		t.Fatalf("SSE sequence: %s", seq)
	}
	for _, e := range evs {
		if e.data["event"] != e.name || e.data["agent_id"] != "echoer" || e.data["run_id"] == nil || e.data["session_id"] != "s-echo" {
			t.Fatalf("event %s fields %v", e.name, e.data)
		}
		if e.name == "ToolCallCompleted" {
			tool := e.data["tool"].(map[string]any)
			if tool["tool_name"] != "echo" || !strings.Contains(fmt.Sprint(tool["result"]), "padded") {
				t.Fatalf("tool %v", tool)
			}
		}
	}

	// HITL: the guarded tool pauses the run; an HTTP continue confirms it.
	evs = postSSE(t, base+"/agents/approver/runs", url.Values{"message": {"echo please"}, "session_id": {"s-hitl"}})
	last := evs[len(evs)-1]
	if last.name != "RunPaused" {
		t.Fatalf("expected RunPaused: %s", eventNames(evs))
	}
	tools := last.data["tools"].([]any)
	tools[0].(map[string]any)["confirmed"] = true
	tb, _ := json.Marshal(tools)
	var out map[string]any
	postJSON(t, base+"/agents/approver/runs/"+last.data["run_id"].(string)+"/continue", url.Values{"tools": {string(tb)}, "session_id": {"s-hitl"}, "stream": {"false"}}, &out)
	if out["status"] != "COMPLETED" || !strings.HasPrefix(fmt.Sprint(out["content"]), "Echo done:") {
		t.Fatalf("continued run %v", out)
	}

	// Workflow HITL over HTTP, and the team and a CEL condition.
	evs = postSSE(t, base+"/workflows/review-flow/runs", url.Values{"message": {"the plan"}, "session_id": {"s-wf"}})
	if !strings.HasSuffix(eventNames(evs), "StepPaused WorkflowPaused WorkflowRunOutput") {
		t.Fatalf("workflow events %s", eventNames(evs))
	}
	paused := evs[len(evs)-2].data
	reqs := paused["step_requirements"].([]any)
	reqs[0].(map[string]any)["confirmed"] = true
	rb, _ := json.Marshal(reqs)
	postJSON(t, base+"/workflows/review-flow/runs/"+paused["run_id"].(string)+"/continue", url.Values{"step_requirements": {string(rb)}, "session_id": {"s-wf"}, "stream": {"false"}}, &out)
	if out["status"] != "COMPLETED" {
		t.Fatalf("workflow continue %v", out)
	}
	postJSON(t, base+"/workflows/triage/runs", url.Values{"message": {"urgent: server down"}, "stream": {"false"}}, &out)
	if !strings.Contains(fmt.Sprint(out["content"]), "Answer: urgent: server down") {
		t.Fatalf("triage %v", out["content"])
	}
	postJSON(t, base+"/teams/research-team/runs", url.Values{"message": {"capital of France?"}, "stream": {"false"}, "session_id": {"s-team"}}, &out)
	if out["status"] != "COMPLETED" || out["team_id"] != "research-team" {
		t.Fatalf("team run %v", out)
	}

	// Session listing.
	var sessions struct {
		Data []map[string]any `json:"data"`
	}
	getJSON(t, base+"/sessions?type=agent", &sessions)
	ids := map[string]bool{}
	for _, s := range sessions.Data {
		ids[fmt.Sprint(s["session_id"])] = true
	}
	if !ids["s-echo"] || !ids["s-hitl"] {
		t.Fatalf("sessions %v", ids)
	}

	// Reload (SIGHUP): a new file appears, a broken file keeps its previous
	// version running and the log says why.
	_ = os.WriteFile(filepath.Join(dir, "agents/critic.toml"), []byte("name = \"Critic\"\nmodel = \"default\"\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "agents/writer.toml"), []byte("name = \"Writer\"\nmodel = \"no-such-model\"\n"), 0o644)
	_ = cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(20 * time.Second)
	for {
		var agents []map[string]any
		getJSON(t, base+"/agents", &agents)
		have := map[string]bool{}
		for _, a := range agents {
			have[fmt.Sprint(a["id"])] = true
		}
		if have["critic"] {
			if !have["writer"] || len(agents) != 5 {
				t.Fatalf("after reload: %v", have)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reload did not add the new agent: %v", have)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The log comes through the process's stderr pipe: it may trail the
	// catalog the reload swapped in.
	explained := func() bool {
		return strings.Contains(logs.String(), "keeping the previous version") && strings.Contains(logs.String(), "no-such-model")
	}
	for !explained() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !explained() {
		t.Fatalf("reload log does not explain the failed file:\n%s", logs.String())
	}

	// The previous version is the one being served, not the one from
	// startup: fix the file, reload, break it again, reload.
	writerRole := func() string {
		var a map[string]any
		getJSON(t, base+"/agents/writer", &a)
		return fmt.Sprint(a["role"])
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "agents/writer.toml"), []byte("name = \"Writer\"\nmodel = \"default\"\nrole = \"Edits v2\"\n"), 0o644)
	_ = cmd.Process.Signal(syscall.SIGHUP)
	waitFor("writer v2", func() bool { return writerRole() == "Edits v2" })
	kept := strings.Count(logs.String(), "keeping the previous version")
	_ = os.WriteFile(filepath.Join(dir, "agents/writer.toml"), []byte("name = \"Writer\"\nmodel = \"no-such-model\"\n"), 0o644)
	_ = cmd.Process.Signal(syscall.SIGHUP)
	waitFor("the second failed reload", func() bool { return strings.Count(logs.String(), "keeping the previous version") > kept })
	if got := writerRole(); got != "Edits v2" {
		t.Fatalf("after a failed reload writer's role = %q, want the served version's \"Edits v2\"", got)
	}

	// Graceful stop.
	p.stop(t)
}

// fakeModel plays every model of the test: tool users call echo with a
// padded message, leaders delegate, everyone else answers.
func fakeModel(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	has := func(name string) bool {
		for _, t := range req.Tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
	switch {
	case last.Role == model.RoleTool && has("echo"):
		return modeltest.Response{Content: "Echo done: " + last.Content}
	case last.Role == model.RoleTool:
		return modeltest.Response{Content: "Team says: " + last.Content}
	case has("echo"):
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("e1", "echo", `{"message":"  padded  "}`)}}
	case has("delegate_task_to_member"):
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"researcher","task":"find it"}`)}}
	}
	return modeltest.Response{Content: "Answer: " + last.Content}
}

func referenceServer(t *testing.T) (node, entry string) {
	t.Helper()
	entry, _ = filepath.Abs("../../tool/mcp/testdata/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(entry); serr != nil || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("MCP reference server or node missing (run `make test-deps`): %v %v", serr, err)
		}
		t.Skip("MCP reference server not installed (make test-deps)")
	}
	return node, entry
}

func shortSocket(t *testing.T) string {
	d, err := os.MkdirTemp("/tmp", "agno-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "hitl.sock")
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitHealthy(t *testing.T, base string, exited <-chan error) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			t.Fatalf("agentos exited early: %v", err)
		default:
		}
		if resp, err := http.Get(base + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("agentos did not become healthy")
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(b, v) != nil {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
}

func postJSON(t *testing.T, u string, form url.Values, v any) {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || json.Unmarshal(b, v) != nil {
		t.Fatalf("POST %s: %d %s", u, resp.StatusCode, b)
	}
}

type sse struct {
	name string
	data map[string]any
}

func postSSE(t *testing.T, u string, form url.Values) []sse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s", u, resp.StatusCode, b)
	}
	var out []sse
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var name string
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
		} else if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("data line %q", line)
			}
			out = append(out, sse{name, m})
		}
	}
	return out
}

func eventNames(evs []sse) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}
