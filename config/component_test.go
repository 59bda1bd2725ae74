package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// componentResources builds a config with the [models.fast] key on the
// fake model server and one file agent, "helper".
func componentResources(t *testing.T) (*config.Resources, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: testKey, Responder: func(req *model.Request) modeltest.Response {
		for _, m := range req.Messages {
			if m.Role == "system" && strings.Contains(m.Content, "Answer in French.") {
				return modeltest.Response{Content: "Bonjour"}
			}
		}
		return modeltest.Response{Content: "Hello"}
	}})
	t.Cleanup(srv.Close)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `[models.fast]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
max_retries = 0

[storage]
driver = "memory"
`,
		"agents/helper.toml": "name = \"Helper\"\nmodel = \"fast\"\ninstructions = \"Help.\"\n",
	})
	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Close() })
	if len(res.Agents) != 1 {
		t.Fatalf("file agents: %v", res.Report)
	}
	return res, srv
}

// jsonObject decodes a JSON object as the API does.
func jsonObject(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildComponentAgentRuns(t *testing.T) {
	res, _ := componentResources(t)
	ctx := context.Background()
	cfg := jsonObject(t, `{"id": "ignored", "name": "Greeter", "model": "fast", "instructions": ["Answer in French."],
		"num_history_runs": 3, "add_history_to_context": true, "metadata": {"team": "x", "gone": null}, "db": {"id": "agno-db"}}`)
	built, err := res.BuildComponent(ctx, config.KindAgent, "greeter", cfg, config.Existing{Agents: res.Agents})
	if err != nil {
		t.Fatal(err)
	}
	obj := built.Object
	a, ok := obj.(*agent.Agent)
	if !ok {
		t.Fatalf("built %T", obj)
	}
	c := a.Config()
	if a.ID() != "greeter" || c.Name != "Greeter" || c.NumHistoryRuns != 3 || !c.AddHistoryToContext || c.Store != res.Store || c.Model != res.Models["fast"] {
		t.Fatalf("agent: id %q %+v", a.ID(), c)
	}
	if _, has := c.Metadata["gone"]; has || c.Metadata["team"] != "x" {
		t.Fatalf("metadata: %v", c.Metadata)
	}
	out, err := a.Run(ctx, "hi")
	if err != nil || out.Content != "Bonjour" {
		t.Fatalf("run: %v %v", out, err)
	}
}

func TestBuildComponentErrorsNameTheKey(t *testing.T) {
	res, _ := componentResources(t)
	ctx := context.Background()
	cases := []struct {
		kind config.Kind
		cfg  string
		want []string
	}{
		{config.KindAgent, `{"model": "slow"}`, []string{`component "c"`, `model = "slow" is not a key of [models]`, `"fast"`}},
		{config.KindAgent, `{"model": "fast", "temperture": 1}`, []string{`component "c"`, "temperture"}},
		{config.KindAgent, `{"model": "fast", "num_history_runs": -1}`, []string{"num_history_runs", "positive"}},
		{config.KindAgent, `{"model": "fast", "num_history_runs": 1.5}`, []string{"num_history_runs"}},
		{config.KindAgent, `{"model": "fast", "tools": ["mcp:nowhere"]}`, []string{"nowhere"}},
		{config.KindAgent, `{"kind": "team"}`, []string{`kind = "team", but the component_type is "agent"`}},
		{config.KindAgent, `{"model": "fast", "tools": [null]}`, []string{"tools[0] is null"}},
		{config.KindTeam, `{"model": "fast", "members": ["nobody"]}`, []string{"members[0]", "nobody", "helper"}},
		{config.KindTeam, `{"model": "fast"}`, []string{"no members"}},
		{config.KindWorkflow, `{"steps": [{"name": "s", "agent": "ghost"}]}`, []string{"ghost"}},
	}
	for _, tc := range cases {
		_, err := res.BuildComponent(ctx, tc.kind, "c", jsonObject(t, tc.cfg), config.Existing{Agents: res.Agents})
		if err == nil {
			t.Errorf("%s %s: built", tc.kind, tc.cfg)
			continue
		}
		if !errors.Is(err, config.ErrInvalidConfig) {
			t.Errorf("%s: not ErrInvalidConfig: %v", tc.cfg, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.cfg, err, w)
			}
		}
		if strings.Contains(err.Error(), `"c":`) && strings.Contains(err.Error(), `"c":1`) {
			t.Errorf("%s: error points at a line of generated TOML: %v", tc.cfg, err)
		}
	}
}

func TestBuildComponentTeamAndWorkflowUseServedResources(t *testing.T) {
	res, _ := componentResources(t)
	ctx := context.Background()
	served := config.Existing{Agents: res.Agents}
	built, err := res.BuildComponent(ctx, config.KindTeam, "crew", jsonObject(t, `{"name": "Crew", "model": "fast", "members": ["helper"], "mode": "route"}`), served)
	if err != nil {
		t.Fatal(err)
	}
	tm := built.Object.(*team.Team)
	if len(built.Uses) != 1 || built.Uses[0] != (component.Use{Kind: "agent", ID: res.Agents[0].ID()}) {
		t.Fatalf("the team's uses: %v", built.Uses)
	}
	if tm.ID() != "crew" || len(tm.Members()) != 1 || tm.Members()[0] != res.Agents[0] || tm.Mode() != team.Mode("route") {
		t.Fatalf("team: %s %v %s", tm.ID(), tm.Members(), tm.Mode())
	}
	served.Teams = []*team.Team{tm}
	built, err = res.BuildComponent(ctx, config.KindWorkflow, "flow", jsonObject(t, `{"name": "Flow", "steps": [
		{"name": "ask", "agent": "helper"}, {"name": "route", "team": "crew", "max_retries": 2}]}`), served)
	if err != nil {
		t.Fatal(err)
	}
	wf := built.Object.(*workflow.Workflow)
	if len(built.Uses) != 2 || built.Uses[1] != (component.Use{Kind: "team", ID: "crew"}) {
		t.Fatalf("the workflow's uses: %v", built.Uses)
	}
	if wf.ID() != "flow" || wf.Name() != "Flow" {
		t.Fatalf("workflow: %s %s", wf.ID(), wf.Name())
	}
	out, err := wf.Run(ctx, "hi")
	if err != nil || out.Content != "Hello" {
		t.Fatalf("workflow run: %+v %v", out, err)
	}
}
