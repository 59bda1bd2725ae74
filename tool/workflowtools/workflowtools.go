// Package workflowtools is agno's WorkflowTools: run_workflow, with think
// and analyze when enabled, the model running one workflow as a tool.
// think and analyze keep their notes in the run's session state
// ("workflow_thoughts", "workflow_analysis") and run_workflow each run's
// output ("workflow_results"), as agno does.
package workflowtools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/reasoning"
	"github.com/agno-go/agno/workflow"
)

// ToolkitName is the name agents list in tools, agno's toolkit name.
const ToolkitName = "workflow_tools"

// Runner runs the workflow; *workflow.Workflow is one.
type Runner interface {
	Run(ctx context.Context, input string, opts ...run.Option) (*workflow.RunOutput, error)
}

// Config configures the toolkit.
type Config struct {
	// Workflow returns the workflow to run, looked up at each call (a
	// host may load or reload it after building the toolkit); required.
	Workflow                                      func() (Runner, error)
	EnableRunWorkflow, EnableThink, EnableAnalyze bool
	All                                           bool
	// Instructions replace agno's; "" uses DefaultInstructions (with
	// FewShot when AddFewShot: agno has no examples of its own).
	Instructions    string
	AddInstructions bool
	AddFewShot      bool
	FewShot         string
	// Logger receives failed runs; nil discards them.
	Logger *slog.Logger
}

type thinkArgs struct {
	Thought string `json:"thought" description:"Your thought process and reasoning about workflow execution."`
}

type runArgs struct {
	Input runWorkflowInput `json:"input" description:"The input data for the workflow."`
}

// runWorkflowInput is agno's RunWorkflowInput, a pydantic model.
type runWorkflowInput struct {
	InputData      string         `json:"input_data"`
	AdditionalData map[string]any `json:"additional_data,omitempty"`
}

// JSONSchema is pydantic's model_json_schema() of RunWorkflowInput, as
// agno inlines it into the parameter.
func (runWorkflowInput) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"properties":{"input_data":{"description":"The input data for the workflow.","title":"Input Data","type":"string"},` +
		`"additional_data":{"anyOf":[{"additionalProperties":true,"type":"object"},{"type":"null"}],"default":null,"description":"The additional data for the workflow.","title":"Additional Data"}},` +
		`"required":["input_data"],"title":"RunWorkflowInput","type":"object"}`)
}

type analyzeArgs struct {
	Analysis string `json:"analysis" description:"Your analysis of the workflow execution results."`
}

// New builds agno's WorkflowTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Workflow == nil {
		return nil, errors.New("workflowtools: Config.Workflow is nil: give the workflow to run")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	instructions := reasoning.Instructions(cfg.Instructions, DefaultInstructions, cfg.AddFewShot, cfg.FewShot, "")
	enabled := tool.Enabled{All: cfg.All}
	add := enabled.If
	// agno registers them in this order: think, run_workflow, analyze.
	add(cfg.EnableThink)(tool.New("think", "Use this tool as a scratchpad to reason about the workflow execution, refine your approach, brainstorm workflow inputs, or revise your plan.\nCall `Think` whenever you need to figure out what to do next, analyze the user's requirements, plan workflow inputs, or decide on execution strategy.\nYou should use this tool as frequently as needed.",
		func(ctx context.Context, a thinkArgs) (string, error) {
			return reasoning.AppendNote(ctx, "workflow_thoughts", "Workflow Thoughts", a.Thought)
		}))
	add(cfg.EnableRunWorkflow)(tool.New("run_workflow", "Use this tool to execute the workflow with the specified inputs and parameters.\nAfter thinking through the requirements, use this tool to run the workflow with appropriate inputs.",
		func(ctx context.Context, a runArgs) (string, error) {
			return runWorkflow(ctx, cfg.Workflow, log, a.Input)
		}))
	add(cfg.EnableAnalyze)(tool.New("analyze", "Use this tool to evaluate whether the workflow execution results are correct and sufficient.\nIf not, go back to \"Think\" or \"Run\" with refined inputs or parameters.",
		func(ctx context.Context, a analyzeArgs) (string, error) {
			return reasoning.AppendNote(ctx, "workflow_analysis", "Workflow Analysis", a.Analysis)
		}))
	fns, err := enabled.Functions()
	if err != nil {
		return nil, fmt.Errorf("workflowtools: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

var errNoRun = errors.New("run_workflow runs the workflow in the session of the calling run, and this call has no run")

// runWorkflow is agno's run_workflow: the workflow runs for the calling
// run's user and session with its session state, which takes the
// workflow's changes back; the output is answered as
// json.dumps(to_dict(), indent=2) and kept in workflow_results. A failure
// is told to the model, as agno catches it.
func runWorkflow(ctx context.Context, find func() (Runner, error), log *slog.Logger, in runWorkflowInput) (string, error) {
	rc := run.FromContext(ctx)
	if rc == nil {
		return "", errNoRun
	}
	failed := func(err error) (string, error) {
		log.Warn("workflow_tools: run_workflow failed", "error", err)
		return "Error running workflow: " + err.Error(), nil
	}
	wf, err := find()
	if err != nil {
		return failed(err)
	}
	before := rc.StateSnapshot()
	opts := []run.Option{run.WithUserID(rc.UserID), run.WithSessionID(rc.SessionID), run.WithSessionState(run.CloneMap(before))}
	if in.AdditionalData != nil {
		opts = append(opts, run.WithAdditionalData(in.AdditionalData))
	}
	out, err := wf.Run(ctx, in.InputData, opts...)
	if err != nil {
		return failed(err)
	}
	// Only what the workflow changed goes back: tool calls running beside
	// this one may have changed other keys meanwhile.
	rc.State(func(state map[string]any) {
		for k, v := range out.SessionState {
			if old, ok := before[k]; !ok || !reflect.DeepEqual(old, v) {
				state[k] = v
			}
		}
	})
	raw, err := json.Marshal(out)
	if err != nil {
		return failed(err)
	}
	var dict any
	if err := run.DecodeJSON(raw, &dict); err != nil {
		return failed(err)
	}
	rc.State(func(state map[string]any) {
		list, _ := state["workflow_results"].([]any)
		state["workflow_results"] = append(list, dict)
	})
	return pyjson.DumpsOpts(out, pyjson.Options{Indent: 2})
}
