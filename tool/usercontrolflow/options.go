package usercontrolflow

import "github.com/agno-go/agno/tool"

// Options are the keys of [toolkits.user_control_flow], agno's
// UserControlFlowTools arguments.
type Options struct {
	Instructions       string `toml:"instructions"`
	AddInstructions    bool   `toml:"add_instructions"`
	EnableGetUserInput bool   `toml:"enable_get_user_input"`
	All                bool   `toml:"all"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "get_user_input: the model pauses the run to ask the user for the fields it names, as a form (agno's UserControlFlowTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{AddInstructions: true, EnableGetUserInput: true}
		},
		New: func(_ tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{EnableGetUserInput: o.EnableGetUserInput, All: o.All, Instructions: o.Instructions, AddInstructions: o.AddInstructions})
		},
	})
}
