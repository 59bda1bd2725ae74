package reasoning

import "github.com/agno-go/agno/tool"

// Options are the keys of [toolkits.reasoning], agno's ReasoningTools
// arguments.
type Options struct {
	EnableThink     bool   `toml:"enable_think"`
	EnableAnalyze   bool   `toml:"enable_analyze"`
	All             bool   `toml:"all"`
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
	AddFewShot      bool   `toml:"add_few_shot"`
	FewShotExamples string `toml:"few_shot_examples"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "think and analyze: a step-by-step reasoning scratchpad kept in the session state (agno's ReasoningTools)",
		// agno enables both functions unless told otherwise.
		Defaults: func(tool.ToolkitEnv) Options { return Options{EnableThink: true, EnableAnalyze: true} },
		New: func(_ tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{
				EnableThink: o.EnableThink, EnableAnalyze: o.EnableAnalyze, All: o.All,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, AddFewShot: o.AddFewShot, FewShot: o.FewShotExamples,
			})
		},
	})
}
