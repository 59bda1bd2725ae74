package workflowtools

import (
	"fmt"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.workflow_tools], agno's WorkflowTools
// arguments; workflow is the id of the workflow to run, where agno takes
// the object. agno's async_mode has no counterpart: every Go tool call
// may block.
type Options struct {
	Workflow          string `toml:"workflow"`
	EnableRunWorkflow bool   `toml:"enable_run_workflow"`
	EnableThink       bool   `toml:"enable_think"`
	EnableAnalyze     bool   `toml:"enable_analyze"`
	All               bool   `toml:"all"`
	Instructions      string `toml:"instructions"`
	AddInstructions   bool   `toml:"add_instructions"`
	AddFewShot        bool   `toml:"add_few_shot"`
	FewShotExamples   string `toml:"few_shot_examples"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "run_workflow (with think and analyze when enabled) runs the workflow the workflow key names (agno's WorkflowTools)",
		Defaults: func(tool.ToolkitEnv) Options { return Options{EnableRunWorkflow: true, AddInstructions: true} },
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			if o.Workflow == "" {
				return nil, tool.OptionErrorf("workflow", `workflow is not set: workflow_tools runs one workflow; set workflow = "<workflow id>" in [toolkits.workflow_tools]`)
			}
			if env.Resolve == nil {
				return nil, tool.OptionErrorf("workflow", "workflow = %q: %v", o.Workflow, tool.ErrNoResolver)
			}
			id := o.Workflow
			// Resolved at each call: workflows load after the toolkits.
			find := func() (Runner, error) {
				v, err := env.Lookup(tool.ResourceWorkflow, id)
				if err != nil {
					return nil, fmt.Errorf("workflow %q: %w", id, err)
				}
				w, ok := v.(Runner)
				if !ok || w == nil {
					return nil, fmt.Errorf("workflow %q: the host gave a %T, not a workflow", id, v)
				}
				return w, nil
			}
			return New(Config{
				Workflow: find, EnableRunWorkflow: o.EnableRunWorkflow, EnableThink: o.EnableThink, EnableAnalyze: o.EnableAnalyze, All: o.All,
				Instructions: o.Instructions, AddInstructions: o.AddInstructions, AddFewShot: o.AddFewShot, FewShot: o.FewShotExamples,
				Logger: env.Logger,
			})
		},
	})
}
