package userfeedback

import "github.com/agno-go/agno/tool"

// Options are the keys of [toolkits.user_feedback], agno's
// UserFeedbackTools arguments.
type Options struct {
	Instructions    string `toml:"instructions"`
	AddInstructions bool   `toml:"add_instructions"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "ask_user: the model pauses the run to put questions with predefined options to the user (agno's UserFeedbackTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Options{AddInstructions: true} },
		New: func(_ tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			return New(Config{Instructions: o.Instructions, AddInstructions: o.AddInstructions})
		},
	})
}
