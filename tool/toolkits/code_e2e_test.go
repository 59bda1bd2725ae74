package toolkits_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/toolkits" // registers the built-ins
	"go.uber.org/goleak"
)

// TestCodeAndFilesThroughAgentOS runs issue 33's "code and files" group
// end to end: an agent with file, python, sleep, file_generation and
// coding, each built from the registry as a config builds it, called by
// a scripted model through AgentOS's POST /agents/<id>/runs.
func TestCodeAndFilesThroughAgentOS(t *testing.T) {
	defer goleak.VerifyNone(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: this test runs python_tools")
	}
	dir := t.TempDir()
	env := tool.ToolkitEnv{Dir: dir}
	var tools []tool.Provider
	for _, name := range []string{"file", "python", "sleep", "file_generation", "coding"} {
		rt, ok := tool.LookupToolkit(name)
		if !ok {
			t.Fatalf("toolkit %q is not registered", name)
		}
		p, err := rt.New(env, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tools = append(tools, p)
	}
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != model.RoleTool {
			return modeltest.Response{ToolCalls: []model.ToolCall{
				modeltest.ToolCall("c1", "save_file", `{"contents": "21", "file_name": "in/n.txt"}`),
			}}
		}
		switch last.ToolName {
		case "save_file":
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c2", "run_python_code",
				`{"code": "n = int(open('in/n.txt').read()) * 2", "variable_to_return": "n"}`)}}
		case "run_python_code":
			return modeltest.Response{ToolCalls: []model.ToolCall{
				modeltest.ToolCall("c3", "sleep", `{"seconds": 0}`),
				modeltest.ToolCall("c4", "generate_text_file", `{"content": "answer `+last.Content+`", "filename": "answer"}`),
				modeltest.ToolCall("c5", "read_file", `{"file_name": "../outside.txt"}`),
				modeltest.ToolCall("c6", "run_shell", `{"command": "ls in"}`),
			}}
		}
		var parts []string
		for _, msg := range req.Messages {
			if msg.Role == model.RoleTool {
				parts = append(parts, msg.ToolName+"="+msg.Content)
			}
		}
		return modeltest.Response{Content: strings.Join(parts, " | ")}
	})
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Coder", Model: m, Tools: tools, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	form := url.Values{"message": {"double the number"}, "stream": {"false"}}
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/agents/coder/runs", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out struct {
		Content string `json:"content"`
		Status  string `json:"status"`
		// The generated file is the run's, as agno's RunOutput.files.
		Files []struct {
			Filename string `json:"filename"`
			MimeType string `json:"mime_type"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusOK || out.Status != "COMPLETED" {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	for _, want := range []string{
		"save_file=in/n.txt",
		"run_python_code=42",
		"sleep=Slept for 0 seconds",
		"generate_text_file=Text file 'answer.txt' generated (9 characters)",
		// file_tools' read_file (listed first, it wins over
		// python_tools' one) refuses the escape.
		`read_file=path is outside the base directory: file_name "../outside.txt"`,
		"run_shell=Exit code: 0\nn.txt\n",
	} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("the answer lacks %q:\n%s", want, out.Content)
		}
	}
	if len(out.Files) != 1 || out.Files[0].Filename != "answer.txt" {
		t.Errorf("run files: %+v", out.Files)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "in", "n.txt")); err != nil || string(b) != "21" {
		t.Fatalf("saved file: %q, %v", b, err)
	}
}
