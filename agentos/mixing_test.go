package agentos_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

// Code-defined and file-defined resources mix: config.Build gets the Go
// agent in Existing so a file team can name it, and AgentOS serves both.
func TestCodeAndFileResourcesMix(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		for _, tl := range req.Tools {
			if tl.Name == "delegate_task_to_member" && last.Role != model.RoleTool {
				return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"go-helper","task":"help"}`)}}
			}
		}
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "Team says: " + last.Content}
		}
		return modeltest.Response{Content: "Answer: " + last.Content}
	}})
	defer fake.Close()
	dir := t.TempDir()
	files := map[string]string{
		"config.toml": `[agentos]
name = "mixed"
[models.default]
provider = "openai-compatible"
base_url = "` + fake.URL + `"
model = "gpt-4o-mini"
[models.keyed]
provider = "openai"
api_key_env = "AGNO_TEST_KEY_NOT_SET"
model = "gpt-4.1"
`,
		"agents/writer.toml": "name = \"Writer\"\nmodel = \"default\"\nrole = \"Writes\"\n",
		"agents/keyed.toml":  "name = \"Keyed\"\nmodel = \"keyed\"\n",
		"teams/crew.toml":    "name = \"Crew\"\nmode = \"coordinate\"\nmodel = \"default\"\nmembers = [\"go-helper\", \"writer\"]\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("AGNO_TEST_KEY_NOT_SET", "")
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	helper, err := agent.New(agent.Config{ID: "go-helper", Name: "Go Helper", Role: "Helps", Model: modeltest.New(modeltest.Response{Content: "help from Go"})})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) != 2 || len(res.Teams) != 1 {
		t.Fatalf("built %d agents, %d teams (the existing agent is not returned): %+v", len(res.Agents), len(res.Teams), res.Report)
	}
	o, err := agentos.New(agentos.Config{Name: cfg.AgentOS.Name, Agents: append(res.Agents, helper), Teams: res.Teams, Store: res.Store, Closers: []func() error{res.Close}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)

	var ids []string
	for _, a := range list(mustCall(t, srv, 200, "GET", "/agents", nil)) {
		ids = append(ids, obj(a)["id"].(string))
	}
	if strings.Join(ids, ",") != "keyed,writer,go-helper" {
		t.Fatalf("agents %v", ids)
	}
	resp := postForm(t, srv, "/teams/crew/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"s"}})
	var out map[string]any
	decode(t, resp, &out)
	if out["status"] != "COMPLETED" || out["content"] != "Team says: help from Go" {
		t.Fatalf("team run %d %v", resp.StatusCode, out)
	}
	reg := obj(mustCall(t, srv, 200, "GET", "/registry?limit=100", nil))
	counts := map[string]int{}
	classes := map[string]string{}
	for _, e := range list(reg["data"]) {
		counts[obj(e)["type"].(string)]++
		if obj(e)["type"] == "model" {
			classes[obj(e)["name"].(string)] = obj(obj(e)["metadata"])["class_path"].(string)
		}
	}
	if counts["agent"] != 3 || counts["team"] != 1 || counts["model"] != 3 || counts["db"] != 1 {
		t.Fatalf("registry counts %v", counts)
	}
	// A model waiting for its API key is listed as the provider's model
	// (agno's "openai" is the Responses API).
	if classes["gpt-4.1"] != "github.com/agno-go/agno/model/openairesponses.Model" || classes["gpt-4o-mini"] != "github.com/agno-go/agno/model/openai.Model" {
		t.Fatalf("model classes %v", classes)
	}
}
