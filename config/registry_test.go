package config_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// registry copies testdata/registry, points it at a fresh fake model
// server and builds it.
func registry(t *testing.T) (*config.Resources, string) {
	t.Helper()
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := copyTree(t, "registry", "{{BASE_URL}}", srv.URL)
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	return res, dir
}

func agentByID(t *testing.T, res *config.Resources, id string) *agent.Agent {
	t.Helper()
	for _, a := range res.Agents {
		if a.ID() == id {
			return a
		}
	}
	t.Fatalf("no agent %q (report:\n%s)", id, res.Report)
	return nil
}

func teamByID(t *testing.T, res *config.Resources, id string) *team.Team {
	t.Helper()
	for _, x := range res.Teams {
		if x.ID() == id {
			return x
		}
	}
	t.Fatalf("no team %q (report:\n%s)", id, res.Report)
	return nil
}

func workflowByID(t *testing.T, res *config.Resources, id string) *workflow.Workflow {
	t.Helper()
	for _, w := range res.Workflows {
		if w.ID() == id {
			return w
		}
	}
	t.Fatalf("no workflow %q (report:\n%s)", id, res.Report)
	return nil
}

func TestRegistryTreeBuilds(t *testing.T) {
	res, dir := registry(t)
	rep := res.Report
	if len(rep.Failures) > 0 {
		t.Fatalf("failures:\n%s", rep)
	}
	if rep.Counts != (config.Counts{Agents: 3, Teams: 2, Workflows: 2}) {
		t.Fatalf("counts %+v\n%s", rep.Counts, rep)
	}
	if len(rep.Scanned) != 3 || rep.Scanned[0].Kind != config.KindAgent || !rep.Scanned[1].Exists ||
		!slices.Equal(rep.Scanned[0].Files, []string{"researcher.toml", "summarizer.toml", "writer.toml"}) {
		t.Errorf("scanned: %+v", rep.Scanned)
	}
	s := rep.String()
	for _, want := range []string{filepath.Join(dir, "agents"), "3 found: researcher.toml, summarizer.toml, writer.toml", "loaded 3 agents, 2 teams, 2 workflows"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}

	r := agentByID(t, res, "researcher")
	cfg := r.Config()
	if r.Name() != "Researcher" || r.Role() != "Finds facts" || cfg.Store != res.Store || cfg.Model != res.Models["default"] ||
		!cfg.AddHistoryToContext || cfg.NumHistoryRuns != 2 || cfg.SessionState["topic"] != "agno" || cfg.Metadata["team"] != "research" ||
		!slices.Equal(cfg.Instructions, []string{"You are the researcher. [researcher]", "Be concise."}) {
		t.Errorf("researcher config: %+v", cfg)
	}
	if !slices.Equal(r.ToolNames(), []string{"lookup"}) {
		t.Errorf("researcher tools %v", r.ToolNames())
	}
	w := agentByID(t, res, "writer")
	if !slices.Equal(w.ToolNames(), []string{"ask_researcher"}) || !slices.Equal(w.Config().Instructions, []string{"You write reports. [writer]"}) {
		t.Errorf("writer: tools %v instructions %v", w.ToolNames(), w.Config().Instructions)
	}
	if w.Config().Model != res.Models["default"] {
		t.Error("writer without model = ... does not use [models.default]")
	}
	sum := agentByID(t, res, "summarizer")
	if os := sum.Config().OutputSchema; os == nil || os.Name != "Summary" {
		t.Errorf("summarizer output schema %+v", os)
	}
	rt := teamByID(t, res, "research-team")
	if rt.Mode() != team.ModeCoordinate || len(rt.Members()) != 2 || rt.Members()[0] != run.Executor(r) || rt.Config().Store != res.Store {
		t.Errorf("research-team: mode %s members %v", rt.Mode(), rt.Members())
	}
	ed := teamByID(t, res, "editorial")
	if ed.Mode() != team.ModeRoute || ed.Members()[0] != run.Executor(rt) || ed.Members()[1] != run.Executor(sum) {
		t.Errorf("editorial: mode %s members %v", ed.Mode(), ed.Members())
	}
	rf := workflowByID(t, res, "review-flow")
	if rf.Name() != "Review Flow" || rf.Config().Store != res.Store || len(rf.Config().Steps) != 9 {
		t.Errorf("review-flow: %+v", rf.Config())
	}
	if info := res.Models["default"].Info(); info.ID != "fake-model" || info.Provider != "OpenAI" {
		t.Errorf("model info %+v", info)
	}
}

func TestRegistryAgentsAndTeamsRun(t *testing.T) {
	res, _ := registry(t)
	ctx := context.Background()

	out, err := agentByID(t, res, "researcher").Run(ctx, "what is agno?")
	if err != nil || out.Status != run.StatusCompleted || out.Content != "facts: value-of-agno" {
		t.Fatalf("researcher: %v %s %v", err, out.Status, out.Content)
	}
	// The run is in the configured store.
	rec, err := res.Store.GetRun(ctx, out.RunID)
	if err != nil || rec.ComponentID != "researcher" {
		t.Fatalf("stored run: %+v %v", rec, err)
	}

	// Agent as a tool: the researcher's events stream into the writer's.
	var sub, parent int
	var final *run.Output
	for ev, err := range agentByID(t, res, "writer").RunStream(ctx, "write", run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		b := ev.Base()
		if b.AgentID == "researcher" && b.ParentRunID != "" {
			sub++
		}
		if b.AgentID == "writer" {
			parent++
		}
		if c, ok := ev.(*run.RunCompleted); ok && b.AgentID == "writer" {
			final = &run.Output{Content: c.Content}
		}
	}
	if sub == 0 || parent == 0 || final == nil || final.Content != "report: facts: value-of-agno" {
		t.Fatalf("writer stream: %d sub-agent events, %d own, final %+v", sub, parent, final)
	}

	// Team delegation, and a nested team delegating on.
	tout, err := teamByID(t, res, "research-team").Run(ctx, "research agno")
	if err != nil || tout.Status != run.StatusCompleted || tout.Content != "team: facts: value-of-agno" {
		t.Fatalf("research-team: %v %s %v", err, tout.Status, tout.Content)
	}
	eout, err := teamByID(t, res, "editorial").Run(ctx, "edit")
	if err != nil || eout.Status != run.StatusCompleted || !strings.Contains(eout.ContentString(), "team: facts: value-of-agno") {
		t.Fatalf("editorial: %v %s %v", err, eout.Status, eout.Content)
	}

	// Structured output from the file's JSON schema.
	sout, err := agentByID(t, res, "summarizer").Run(ctx, "sum up")
	m, ok := sout.Content.(map[string]any)
	if err != nil || sout.Status != run.StatusCompleted || !ok || m["summary"] != "short" {
		t.Fatalf("summarizer: %v %s %#v", err, sout.Status, sout.Content)
	}
}

func TestRegistryWorkflowRunsEveryStepKind(t *testing.T) {
	res, _ := registry(t)
	ctx := context.Background()
	w := workflowByID(t, res, "review-flow")

	out, err := w.Run(ctx, "urgent: write about agno", run.WithSessionID("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusPaused || out.ActiveRequirement() == nil || !out.ActiveRequirement().RequiresUserInput {
		t.Fatalf("want a pause for user input at collect, got %s %+v", out.Status, out.ActiveRequirement())
	}
	req := out.ActiveRequirement()
	if req.StepName != "collect" || req.UserInputMessage != "Who is the audience?" || len(req.UserInputSchema) != 2 ||
		req.UserInputSchema[0].Name != "audience" || !slices.Equal(req.UserInputSchema[0].AllowedValues, []any{"devs", "execs"}) {
		t.Fatalf("user input requirement %+v", req)
	}
	if err := req.SetUserInput(map[string]any{"audience": "devs"}); err != nil {
		t.Fatal(err)
	}
	out, err = w.Continue(ctx, workflow.ContinueRequest{RunID: out.RunID, SessionID: "s1", StepRequirements: []*workflow.StepRequirement{req}})
	if err != nil {
		t.Fatal(err)
	}
	conf := out.ActiveRequirement()
	if out.Status != run.StatusPaused || conf == nil || !conf.RequiresConfirmation || conf.StepName != "publish" || conf.ConfirmationMessage != "Publish the report?" {
		t.Fatalf("want the publish confirmation, got %s %+v", out.Status, conf)
	}
	conf.Confirm()
	out, err = w.Continue(ctx, workflow.ContinueRequest{RunID: out.RunID, SessionID: "s1", StepRequirements: []*workflow.StepRequirement{conf}})
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("continue after confirm: %v %s %v", err, out.Status, out.Content)
	}

	byName := map[string]*workflow.StepOutput{}
	for _, s := range out.StepResults {
		byName[s.StepName] = s
	}
	want := map[string]string{
		"draft":        "facts: value-of-agno",
		"normalize":    "normalized(facts: value-of-agno)",
		"urgent-check": "escalated",                              // CEL on the input: the if branch
		"long-check":   "Condition long-check not met - skipped", // registered function: false
		"collect":      "audience=devs",
		"publish":      "team: facts: value-of-agno",
	}
	for name, content := range want {
		s := byName[name]
		if s == nil || s.ContentString() != content {
			t.Errorf("step %s: %+v, want content %q", name, s, content)
		}
	}
	if s := byName["urgent-check"]; s == nil || len(s.Steps) != 1 || s.Steps[0].StepName != "escalate" {
		t.Errorf("urgent-check ran %+v", s)
	}
	polish := byName["polish"]
	if polish == nil || len(polish.Steps) != 3 || !strings.HasSuffix(polish.ContentString(), "!!!") {
		t.Errorf("polish loop: %+v (want 3 iterations ending at the CEL end condition)", polish)
	}
	checks := byName["checks"]
	if checks == nil || len(checks.Steps) != 2 || checks.Steps[0].ContentString() != "spelled" || checks.Steps[1].ContentString() != "facts: value-of-agno" {
		t.Errorf("parallel checks: %+v", checks)
	}
	// CEL on session state picked "full", a group running the nested
	// workflow, which shouts the previous step's content.
	route := byName["route"]
	if route == nil || len(route.Steps) != 1 || route.Steps[0].StepName != "full" ||
		checks == nil || route.ContentString() != strings.ToUpper(checks.ContentString()) {
		t.Errorf("router chose %+v", route)
	}

	// Routine branch: the CEL condition is false for another input.
	out2, err := w.Run(ctx, "calm request", run.WithSessionID("s2"))
	if err != nil || out2.Status != run.StatusPaused {
		t.Fatalf("second run: %v %s", err, out2.Status)
	}
	for _, s := range out2.StepResults {
		if s.StepName == "urgent-check" && (len(s.Steps) != 1 || s.Steps[0].StepName != "routine") {
			t.Errorf("else branch not taken: %+v", s)
		}
	}
}

func TestWorkflowRejectionCancels(t *testing.T) {
	res, _ := registry(t)
	ctx := context.Background()
	w := workflowByID(t, res, "review-flow")
	out, err := w.Run(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	req := out.ActiveRequirement()
	_ = req.SetUserInput(map[string]any{"audience": "execs"})
	out, _ = w.Continue(ctx, workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{req}})
	conf := out.ActiveRequirement()
	conf.Reject("not yet")
	out, _ = w.Continue(ctx, workflow.ContinueRequest{Output: out, StepRequirements: []*workflow.StepRequirement{conf}})
	if out.Status != run.StatusCancelled {
		t.Fatalf("on_reject = \"cancel\": status %s", out.Status)
	}
}

// settings.json runtime.event_streaming.sub_agent_to_parent = false keeps
// the researcher's events out of the writer's stream.
func TestSubAgentStreamingFollowsSettings(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := copyTree(t, "registry", "{{BASE_URL}}", srv.URL)
	writeFiles(t, dir, map[string]string{"settings.json": `{"runtime": {"event_streaming": {"sub_agent_to_parent": false}}}`})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err = c.LoadSettingsFile("settings.json"); err != nil {
		t.Fatal(err)
	}
	c.Logger, _ = newLogger()
	res, err := c.Build(context.Background(), registryFunctions(), config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	sub := 0
	var content any
	for ev, err := range agentByID(t, res, "writer").RunStream(context.Background(), "write", run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Base().AgentID == "researcher" {
			sub++
		}
		if c, ok := ev.(*run.RunCompleted); ok {
			content = c.Content
		}
	}
	if sub != 0 || content != "report: facts: value-of-agno" {
		t.Fatalf("%d researcher events in the writer's stream, content %v", sub, content)
	}
}

func TestCodeDefinedResourcesAreReferenced(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := copyTree(t, "registry", "{{BASE_URL}}", srv.URL)
	writeFiles(t, dir, map[string]string{
		"teams/mixed.toml": "name = \"Mixed\"\nmembers = [\"coder\", \"researcher\"]\n",
	})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Logger, _ = newLogger()
	// A code-defined agent, with the same model.
	probe, err := c.Build(context.Background(), registryFunctions(), config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	coder, err := agent.New(agent.Config{ID: "coder", Name: "Coder", Model: probe.Models["default"]})
	if err != nil {
		t.Fatal(err)
	}
	probe.Close()
	// Without it the team cannot load…
	if len(probe.Report.Failures) != 1 || !strings.Contains(probe.Report.Failures[0].Err.Error(), `members[0] = "coder"`) {
		t.Fatalf("want one failure for the unknown member: %s", probe.Report)
	}
	// …with it, it does.
	res, err := c.Build(context.Background(), registryFunctions(), config.Existing{Agents: []*agent.Agent{coder}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if len(res.Report.Failures) != 0 {
		t.Fatalf("failures: %s", res.Report)
	}
	mixed := teamByID(t, res, "mixed")
	if mixed.Members()[0] != run.Executor(coder) {
		t.Errorf("members %v", mixed.Members())
	}
}

func TestStoreIsTheConfiguredFile(t *testing.T) {
	res, dir := registry(t)
	if _, err := os.Stat(filepath.Join(dir, "data", "registry.db")); err != nil {
		t.Fatalf("the sqlite file beside the config: %v", err)
	}
	out, err := agentByID(t, res, "researcher").Run(context.Background(), "q", run.WithSessionID("sess"))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatal(err, out.Status)
	}
	s, err := res.Store.GetSession(context.Background(), "sess")
	if err != nil || s.SessionType != storage.SessionAgent || s.AgentID != "researcher" {
		t.Fatalf("session %+v %v", s, err)
	}
}
