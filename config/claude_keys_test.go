package config_test

import (
	"path/filepath"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/awsclaude"
	"github.com/agno-go/agno/model/vertexclaude"
)

// Claude's keys (agno's thinking, cache_system_prompt, ...) decode into
// each Claude provider's options, the platform's own keys beside them.
func TestClaudeKeysDecode(t *testing.T) {
	src := `
[models.direct]
provider = "anthropic"
model = "claude-sonnet-4-5"
thinking = { type = "enabled", budget_tokens = 2048 }
cache_system_prompt = true
extended_cache_time = true
betas = ["context-1m-2025-08-07"]

[models.bedrock]
provider = "aws-claude"
aws_region = "eu-central-1"
thinking = { type = "adaptive" }
cache_tools = true

[models.vertex]
provider = "vertexai-claude"
region = "us-east5"
project_id = "p"
top_k = 40
`
	cfg, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	direct := cfg.Models["direct"].Options.(*anthropic.Options)
	if direct.Thinking == nil || *direct.Thinking != (anthropic.Thinking{Type: "enabled", BudgetTokens: 2048}) ||
		!direct.CacheSystemPrompt || !direct.ExtendedCacheTime || len(direct.Betas) != 1 {
		t.Errorf("anthropic options = %+v", direct)
	}
	bedrock := cfg.Models["bedrock"].Options.(*awsclaude.Options)
	if bedrock.AWSRegion != "eu-central-1" || bedrock.Thinking == nil || bedrock.Thinking.Type != "adaptive" || !bedrock.CacheTools {
		t.Errorf("aws-claude options = %+v", bedrock)
	}
	if m := cfg.Models["bedrock"].Model; m != awsclaude.DefaultID {
		t.Errorf("aws-claude default model = %q, want agno's %q", m, awsclaude.DefaultID)
	}
	vertex := cfg.Models["vertex"].Options.(*vertexclaude.Options)
	if vertex.Region != "us-east5" || vertex.ProjectID != "p" || vertex.TopK == nil || *vertex.TopK != 40 {
		t.Errorf("vertexai-claude options = %+v", vertex)
	}
}

func TestClaudeKeysAreStrict(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		parts     []string
	}{
		{"thinking key typo", "[models.m]\nprovider = \"anthropic\"\nmodel = \"x\"\nthinking = { type = \"enabled\", budget = 2048 }\n",
			[]string{`thinking: unknown key "budget": use type, budget_tokens or display`}},
		{"budget as text", "[models.m]\nprovider = \"anthropic\"\nmodel = \"x\"\nthinking = { type = \"enabled\", budget_tokens = \"2048\" }\n",
			[]string{"thinking.budget_tokens must be a whole number"}},
		{"bedrock key on vertex", "[models.m]\nprovider = \"vertexai-claude\"\naws_region = \"us-east-1\"\n",
			[]string{`unknown key "models.m.aws_region"`}},
		{"agno's region key on bedrock", "[models.m]\nprovider = \"aws-claude\"\nregion = \"us-east-1\"\n",
			[]string{`unknown key "models.m.region"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			findError(t, configErrors(t, parse(t, tt.src)), tt.parts...)
		})
	}
}
