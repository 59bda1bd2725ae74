package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
)

// runWithInput runs the command line in process with stdin.
func runWithInput(stdin string, args ...string) (stdout, stderr string, code int) {
	root := newRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		errOut.WriteString("error: " + err.Error())
	}
	return out.String(), errOut.String(), exitCode(err)
}

// The fake speaks OpenAI's Chat Completions wire format
// (platform.openai.com/docs/api-reference/chat/create): it asks for the
// shell tool, then answers with the tool's result.
func shellAsker(req *model.Request) modeltest.Response {
	if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
		return modeltest.Response{Content: "The shell said: " + strings.TrimSpace(last.Content)}
	}
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "run_shell_command", `{"args":["echo","hello from the shell"]}`)}}
}

// agno run streams an agent's answer, asks for the confirmation its tool
// needs, continues with the answer, and stores the run; a workflow's
// step approval is asked the same way.
func TestRunCommand(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: shellAsker})
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	writeTree(t, dir, map[string]string{
		"config.toml": "[models.default]\nprovider = \"openai-compatible\"\nbase_url = \"" + srv.URL + "\"\nmodel = \"fake-model\"\n" +
			"[toolkits.shell]\nrequires_confirmation = true\n",
		"agents/ops.toml":  "name = \"Ops\"\nmodel = \"default\"\ntools = [\"shell\"]\n",
		"agents/echo.toml": "name = \"Echo\"\nmodel = \"default\"\n",
		"workflows/release.toml": "name = \"release\"\n[[steps]]\nname = \"check\"\nagent = \"ops\"\n" +
			"[[steps]]\nname = \"publish\"\nagent = \"echo\"\nrequires_confirmation = true\nconfirmation_message = \"Publish?\"\n",
	})

	out, errOut, code := runWithInput("y\n", "run", "ops", "say hello", "--config", cfgPath, "--session", "s1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if out != "The shell said: hello from the shell\n" {
		t.Errorf("stdout %q", out)
	}
	for _, s := range []string{`The run wants to call run_shell_command({"args":["echo","hello from the shell"]}). Allow? [y/N]`, "Continuing…", `→ run_shell_command(`} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.OpenKnowledge(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	runs, err := res.Store.ListRuns(context.Background(), storage.RunQuery{SessionID: "s1", TopLevel: true})
	_ = res.Close()
	if err != nil || len(runs) != 1 || runs[0].Status != "COMPLETED" {
		t.Fatalf("stored runs %+v %v", runs, err)
	}

	// --quiet leaves out tool calls, not the question a pause asks.
	out, errOut, code = runWithInput("y\n", "run", "ops", "say hello", "--config", cfgPath, "--quiet")
	if code != 0 || out != "The shell said: hello from the shell\n" || !strings.Contains(errOut, "Allow? [y/N]") || strings.Contains(errOut, "→") || strings.Contains(errOut, "Continuing") {
		t.Errorf("--quiet: exit %d\n%s\n%s", code, out, errOut)
	}

	// A refusal goes back to the model; the tool does not run.
	out, errOut, code = runWithInput("n\nnot now\n", "run", "Ops", "say hello", "--config", cfgPath)
	if code != 0 || strings.Contains(out, "hello from the shell") {
		t.Errorf("reject: exit %d\n%s\n%s", code, out, errOut)
	}
	// Input that ends before the answer leaves the run paused and fails.
	if _, errOut, code = runWithInput("", "run", "ops", "say hello", "--config", cfgPath); code != 1 || !strings.Contains(errOut, "the input ended before an answer") {
		t.Errorf("no input: exit %d\n%s", code, errOut)
	}

	out, errOut, code = runWithInput("y\na\n", "run", "release", "ship it", "--config", cfgPath)
	if code != 0 || !strings.Contains(errOut, "── step check ──") || !strings.Contains(errOut, "Message:    Publish?") || strings.Contains(errOut, "agno hitl approve") {
		t.Errorf("workflow: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "The shell said: hello from the shell") {
		t.Errorf("workflow stdout %q", out)
	}

	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"run", "nobody", "hi", "--config", cfgPath}, 1, `no agent, team or workflow has the id or name "nobody"; there are: agent echo, agent ops, workflow release`},
		{[]string{"run", "ops", "--config", cfgPath}, 2, "give the agent, team or workflow and the message"},
	} {
		if _, errOut, code := runWithInput("", c.args...); code != c.code || !strings.Contains(errOut, c.says) {
			t.Errorf("agno %v: exit %d\n%s", c.args, code, errOut)
		}
	}
}

// A run that fails says why once: the library's own lines about the
// attempt and the run's end are left out at the default level.
func TestRunCommandFailureSaidOnce(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	writeTree(t, dir, map[string]string{
		"config.toml":   "[models.down]\nprovider = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\nmax_retries = 0\n",
		"agents/a.toml": "name = \"A\"\nmodel = \"down\"\n",
	})
	out, errOut, code := runWithInput("", "run", "a", "hi", "--config", cfgPath)
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	if n := strings.Count(errOut, "connection refused"); n != 1 {
		t.Errorf("the failure is said %d times, want once:\n%s", n, errOut)
	}
}
