package anthropic

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agno-go/agno/model"
)

// ProviderAnthropic is agno's model-string name for Claude.
const ProviderAnthropic = "anthropic"

// Options are the [models.<key>] keys of Claude beyond the common ones,
// named as agno's Claude parameters. The Bedrock and Vertex AI providers
// embed them, since agno's classes there inherit them.
type Options struct {
	// Thinking is agno's thinking dict, sent as the request's thinking
	// parameter: {type = "enabled", budget_tokens = N}, {type =
	// "adaptive"} or {type = "disabled"}.
	Thinking *Thinking `toml:"thinking"`
	// CacheSystemPrompt marks the system prompt for prompt caching
	// (cache_control ephemeral, 5 minutes).
	CacheSystemPrompt bool `toml:"cache_system_prompt"`
	// ExtendedCacheTime caches the system prompt for an hour instead.
	ExtendedCacheTime bool `toml:"extended_cache_time"`
	// CacheTools marks the last tool definition for prompt caching, which
	// caches every tool before it too.
	CacheTools bool `toml:"cache_tools"`
	// TopK samples from the k most likely tokens only.
	TopK *int `toml:"top_k"`
	// Betas are beta features to enable, sent in the anthropic-beta header.
	Betas []string `toml:"betas"`
}

// Thinking is the extended thinking configuration
// (https://platform.claude.com/docs/en/build-with-claude/extended-thinking).
type Thinking struct {
	// Type is "enabled", "adaptive" or "disabled".
	Type string `toml:"type"`
	// BudgetTokens is how many tokens the model may think with: at least
	// 1024 and less than max_tokens. Only for type "enabled".
	BudgetTokens int `toml:"budget_tokens"`
	// Display is "summarized" or "omitted" (thinking text left out, its
	// signature kept); "" is the model's default.
	Display string `toml:"display"`
}

// UnmarshalTOML reads the thinking table, naming a key it does not know
// (a nested table's keys are not checked by the config's own decoder).
func (t *Thinking) UnmarshalTOML(v any) error {
	table, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("thinking must be a table, e.g. thinking = { type = \"enabled\", budget_tokens = 2048 }")
	}
	*t = Thinking{}
	for k, v := range table {
		var ok bool
		switch k {
		case "type":
			t.Type, ok = v.(string)
		case "display":
			t.Display, ok = v.(string)
		case "budget_tokens":
			var n int64
			n, ok = v.(int64)
			t.BudgetTokens = int(n)
		default:
			return fmt.Errorf("thinking: unknown key %q: use type, budget_tokens or display", k)
		}
		if !ok {
			want := "a string"
			if k == "budget_tokens" {
				want = "a whole number"
			}
			return fmt.Errorf("thinking.%s must be %s, not %v", k, want, v)
		}
	}
	return nil
}

// MinThinkingBudget is the smallest budget_tokens the API accepts.
const MinThinkingBudget = 1024

// nonThinkingModels do not support extended thinking, as agno lists them.
var nonThinkingModels = []string{"claude-3-haiku-20240307", "claude-3-5-haiku-20241022", "claude-3-5-haiku-latest"}

// Apply copies the options into cfg.
func (o *Options) Apply(cfg *Config) {
	if o == nil {
		return
	}
	if o.Thinking != nil {
		t := *o.Thinking
		cfg.Thinking = &t
	}
	cfg.CacheSystemPrompt = o.CacheSystemPrompt
	cfg.ExtendedCacheTime = o.ExtendedCacheTime
	cfg.CacheTools = o.CacheTools
	if o.TopK != nil {
		cfg.TopK = *o.TopK
	}
	cfg.Betas = slices.Clone(o.Betas)
}

// validateFeatures checks the thinking, caching and beta settings of cfg
// for model id; the messages name the [models.<key>] keys.
func validateFeatures(cfg Config, id string) error {
	if t := cfg.Thinking; t != nil {
		switch t.Type {
		case "enabled":
			if t.BudgetTokens < MinThinkingBudget {
				return fmt.Errorf("anthropic: thinking.budget_tokens is %d: set it to at least %d (and below max_tokens), as the API requires", t.BudgetTokens, MinThinkingBudget)
			}
		case "adaptive", "disabled":
			if t.BudgetTokens != 0 {
				return fmt.Errorf("anthropic: thinking.budget_tokens is set for thinking type %q: a budget goes with type \"enabled\" only; remove it", t.Type)
			}
		case "":
			return fmt.Errorf("anthropic: thinking has no type: set thinking.type to \"enabled\" (with budget_tokens), \"adaptive\" or \"disabled\"")
		default:
			return fmt.Errorf("anthropic: thinking.type %q: use \"enabled\" (with budget_tokens), \"adaptive\" or \"disabled\"", t.Type)
		}
		switch t.Display {
		case "", "summarized", "omitted":
		default:
			return fmt.Errorf("anthropic: thinking.display %q: use \"summarized\" or \"omitted\", or leave it out", t.Display)
		}
		if t.Display != "" && t.Type == "disabled" {
			return fmt.Errorf("anthropic: thinking.display is set but thinking is disabled: remove display")
		}
		if t.Type != "disabled" && slices.Contains(nonThinkingModels, id) {
			return fmt.Errorf("anthropic: model %q does not support extended thinking: remove thinking or use a model that thinks (not %s)", id, strings.Join(nonThinkingModels, ", "))
		}
	}
	if cfg.ExtendedCacheTime && !cfg.CacheSystemPrompt {
		return fmt.Errorf("anthropic: extended_cache_time is set without cache_system_prompt: it sets how long the cached system prompt lives, so set cache_system_prompt = true too")
	}
	if cfg.TopK < 0 {
		return fmt.Errorf("anthropic: top_k is %d: set a positive number or leave it out", cfg.TopK)
	}
	for i, b := range cfg.Betas {
		if strings.TrimSpace(b) == "" || strings.ContainsAny(b, ", \t\r\n") {
			return fmt.Errorf("anthropic: betas[%d] is %q: give one beta name per entry, e.g. \"context-1m-2025-08-07\"", i, b)
		}
	}
	return nil
}

func init() {
	model.RegisterProvider(model.Provider[Options]{
		Name: ProviderAnthropic, Summary: "Anthropic Messages API (agno's Claude)",
		KeyEnv: DefaultAPIKeyEnv, DefaultMaxRetries: DefaultMaxRetries,
		New: func(s model.ProviderSettings, o *Options) (model.Model, error) {
			cfg := Config{ID: s.ID, BaseURL: s.BaseURL, APIKey: s.APIKey, HTTPClient: s.HTTPClient, MaxRetries: s.MaxRetries, Headers: s.Headers, Logger: s.Logger}
			o.Apply(&cfg)
			return New(cfg)
		},
	})
}
