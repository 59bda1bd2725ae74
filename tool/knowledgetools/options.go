package knowledgetools

import (
	"fmt"

	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.knowledge_tools], agno's
// KnowledgeTools arguments; knowledge names the knowledge base, a
// [knowledge.<name>] table, where agno takes the object.
type Options struct {
	Knowledge       string `toml:"knowledge"`
	EnableThink     bool   `toml:"enable_think"`
	EnableSearch    bool   `toml:"enable_search"`
	EnableAnalyze   bool   `toml:"enable_analyze"`
	All             bool   `toml:"all"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
	AddFewShot      bool   `toml:"add_few_shot"`
	FewShotExamples string `toml:"few_shot_examples"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "think, search_knowledge and analyze over the knowledge base the knowledge key names (agno's KnowledgeTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableThink: true, EnableSearch: true, EnableAnalyze: true, AddInstructions: true}
		},
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			kb, err := resolve(env, o.Knowledge)
			if err != nil {
				return nil, err
			}
			return New(Config{
				Knowledge: kb, EnableThink: o.EnableThink, EnableSearch: o.EnableSearch, EnableAnalyze: o.EnableAnalyze, All: o.All,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, AddFewShot: o.AddFewShot, FewShot: o.FewShotExamples,
				Logger: env.Logger,
			})
		},
	})
}

// resolve finds the knowledge base the knowledge key names. agno's
// KnowledgeTools cannot be made without one, so neither can this.
func resolve(env tool.ToolkitEnv, name string) (Searcher, error) {
	if name == "" {
		return nil, tool.OptionErrorf("knowledge", `knowledge is not set: knowledge_tools searches one knowledge base; set knowledge = "<name>" in [toolkits.knowledge_tools], naming a [knowledge.<name>] table`)
	}
	v, err := env.Lookup(tool.ResourceKnowledge, name)
	if err != nil {
		return nil, tool.OptionErrorf("knowledge", "knowledge = %q: %v", name, err)
	}
	kb, ok := v.(Searcher)
	if !ok || kb == nil || v == (*knowledge.Knowledge)(nil) {
		return nil, tool.OptionErrorf("knowledge", "knowledge = %q: %s", name, fmt.Sprintf("the host gave a %T, not a knowledge base", v))
	}
	return kb, nil
}
