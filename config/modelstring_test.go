package config_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

var registerStringEcho sync.Once

// stringEchoProvider is a provider a program registered, named by agent
// files as "string-test:<id>".
func stringEchoProvider(t *testing.T) {
	registerStringEcho.Do(func() {
		model.RegisterProvider(model.Provider[struct{}]{
			Name: "string-test", KeyEnv: "AGNO_STRING_TEST_KEY",
			New: func(s model.ProviderSettings, _ *struct{}) (model.Model, error) {
				return echoModel{id: s.ID, prefix: s.ID + "/" + s.APIKey + ": "}, nil
			},
		})
	})
	t.Setenv("AGNO_STRING_TEST_KEY", "k1")
}

// agno's "<provider>:<id>" names a model wherever a file names one,
// without a [models] table: the provider's defaults and key variable.
func TestFilesNameModelsByProviderString(t *testing.T) {
	stringEchoProvider(t)
	res, _ := tree(t, map[string]string{
		"agents/a.toml":    "name = \"A\"\nmodel = \"string-test:m-1\"\nfallback_models = [\"string-test:m-2\"]\n",
		"agents/b.toml":    "name = \"B\"\nmodel = \"String-Test:m-1\"\n",
		"teams/t.toml":     "name = \"T\"\nmodel = \"string-test:lead\"\nmembers = [\"a\"]\n",
		"workflows/w.toml": "name = \"w\"\n[agent]\nmodel = \"string-test:wf\"\n[[steps]]\nname = \"s\"\nagent = \"a\"\n",
	})
	if len(res.Report.Failures) > 0 {
		t.Fatalf("failures:\n%s", res.Report)
	}
	byID := map[string]int{}
	for i, a := range res.Agents {
		byID[a.ID()] = i
	}
	out, err := res.Agents[byID["a"]].Run(context.Background(), "hi")
	if err != nil || out.Status != run.StatusCompleted || out.ContentString() != "m-1/k1: hi" {
		t.Fatalf("agent a: %v %v %q", err, out.Status, out.ContentString())
	}
	// The provider is matched case-insensitively, as agno's get_model does.
	if out, err := res.Agents[byID["b"]].Run(context.Background(), "yo"); err != nil || out.ContentString() != "m-1/k1: yo" {
		t.Fatalf("agent b: %v %q", err, out.ContentString())
	}
	if got := res.Teams[0].Config().Model.Info().ID; got != "lead" {
		t.Errorf("team model %q", got)
	}
}

func TestModelStringErrors(t *testing.T) {
	res, _ := tree(t, map[string]string{
		"agents/a.toml": "name = \"A\"\nmodel = \"nosuch:gpt\"\n",
		"agents/b.toml": "name = \"B\"\nmodel = \"openai:\"\n",
	})
	e := findError(t, configErrors(t, failure(t, res, "a.toml").Err), `model = "nosuch:gpt"`, "unknown model provider", "anthropic, ", "openai, ")
	if e.Line != 2 {
		t.Errorf("line %d: %v", e.Line, e)
	}
	findError(t, configErrors(t, failure(t, res, "b.toml").Err), `model = "openai:"`, `"<provider>:<model id>"`)
}

// A model string whose provider's key is not exported loads (a warning),
// and its runs fail naming the variable.
func TestModelStringWithoutKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	res, _ := tree(t, map[string]string{"agents/a.toml": "name = \"A\"\nmodel = \"anthropic:claude-sonnet-4-5\"\n"})
	if len(res.Agents) != 1 {
		t.Fatalf("not loaded:\n%s", res.Report)
	}
	out, err := res.Agents[0].Run(context.Background(), "hi")
	if err == nil {
		err = errors.New(out.ContentString())
	}
	if !errors.Is(err, config.ErrMissingAPIKey) && !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("%v", err)
	}
	if !strings.Contains(err.Error(), "export ANTHROPIC_API_KEY") {
		t.Errorf("%v", err)
	}
}

// A component (a caller's config) names a model string only where the
// operator listed it: each builds a client on the server's key.
func TestComponentModelStringsNeedTheAllowlist(t *testing.T) {
	stringEchoProvider(t)
	res, _ := componentResources(t)
	ctx := context.Background()
	_, err := res.BuildComponent(ctx, config.KindAgent, "c", jsonObject(t, `{"model": "string-test:x"}`), config.Existing{Agents: res.Agents})
	if !errors.Is(err, component.ErrNotAllowed) || !strings.Contains(err.Error(), "allowed_models") {
		t.Fatalf("unlisted model string: %v", err)
	}
	if err := parse(t, "[components]\nallowed_models = [\"string-test:x\"]\n"); err != nil {
		t.Fatalf("a listed model string: %v", err)
	}
	if err := parse(t, "[components]\nallowed_models = [\"nosuch:x\"]\n"); err == nil || !strings.Contains(err.Error(), `"<provider>:<model id>" string of a registered provider`) {
		t.Fatalf("an unknown provider: %v", err)
	}
}

// reasoning_model is a model a component names like model: a string
// needs the allowlist. reasoning_agent is a reference: the built
// component says it uses that agent, so AgentOS checks the writer may.
func TestComponentReasoningKeys(t *testing.T) {
	stringEchoProvider(t)
	res, _ := componentResources(t)
	ctx := context.Background()
	_, err := res.BuildComponent(ctx, config.KindAgent, "c", jsonObject(t, `{"model": "fast", "reasoning": true, "reasoning_model": "string-test:x"}`), config.Existing{Agents: res.Agents})
	if !errors.Is(err, component.ErrNotAllowed) || !strings.Contains(err.Error(), "reasoning_model") {
		t.Fatalf("unlisted reasoning model string: %v", err)
	}
	built, err := res.BuildComponent(ctx, config.KindAgent, "c", jsonObject(t, `{"model": "fast", "reasoning_model": "fast", "reasoning_agent": "helper"}`), config.Existing{Agents: res.Agents})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(built.Uses, component.Use{Kind: "agent", ID: "helper"}) {
		t.Fatalf("uses %v", built.Uses)
	}
	a := built.Object.(*agent.Agent)
	if c := a.Config(); c.ReasoningModel == nil || c.ReasoningAgent == nil || c.ReasoningAgent.ID() != "helper" {
		t.Fatalf("reasoning keys not built: %+v", c)
	}
}
