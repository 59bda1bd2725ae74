// Package reasoning is agno's ReasoningTools: think and analyze, a
// scratchpad the model reasons on step by step. Each call records a
// reasoning step (agno's ReasoningStep) in the session state under
// reasoning_steps[<run id>], as agno does, and answers with the run's
// steps so far.
package reasoning

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agno-go/agno/internal/pyrepr"
	agnoreasoning "github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; ReasoningTools reports
// agno's toolkit name, "reasoning_tools".
const ToolkitName = "reasoning"

// Step is agno's ReasoningStep (package reasoning's).
type Step = agnoreasoning.Step

// Config configures the toolkit; the zero value has agno's defaults
// except the two Enable flags, which New's callers set (Options does).
type Config struct {
	EnableThink, EnableAnalyze, All bool
	// Instructions replace agno's; "" uses DefaultInstructions (with
	// FewShotExamples, or FewShot, when AddFewShot).
	Instructions    string
	AddInstructions bool
	AddFewShot      bool
	FewShot         string
}

type thinkArgs struct {
	Title      string   `json:"title" description:"A concise title for this step"`
	Thought    string   `json:"thought" description:"Your detailed thought for this step"`
	Action     *string  `json:"action,omitempty" description:"What you'll do based on this thought"`
	Confidence *float64 `json:"confidence,omitempty" description:"How confident you are about this thought (0.0 to 1.0)"`
}

type analyzeArgs struct {
	Title      string   `json:"title" description:"A concise title for this analysis step"`
	Result     string   `json:"result" description:"The outcome of the previous action"`
	Analysis   string   `json:"analysis" description:"Your analysis of the results"`
	NextAction *string  `json:"next_action,omitempty" description:"What to do next (\"continue\", \"validate\", or \"final_answer\")"`
	Confidence *float64 `json:"confidence,omitempty" description:"How confident you are in this analysis (0.0 to 1.0)"`
}

// New builds agno's ReasoningTools.
func New(cfg Config) (*tool.Toolkit, error) {
	instructions := cfg.Instructions
	if instructions == "" {
		instructions = "<reasoning_instructions>\n" + Instructions("", DefaultInstructions, cfg.AddFewShot, cfg.FewShot, FewShotExamples) + "\n</reasoning_instructions>\n"
	}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableThink)(tool.New("think", "Use this tool as a scratchpad to reason about the question and work through it step-by-step.\nThis tool will help you break down complex problems into logical steps and track the reasoning process.\nYou can call it as many times as needed. These internal thoughts are never revealed to the user.", think))
	fns.If(cfg.EnableAnalyze)(tool.New("analyze", "Use this tool to analyze results from a reasoning step and determine next actions.", analyze))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "reasoning_tools", Functions: list, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

func think(ctx context.Context, a thinkArgs) (string, error) {
	return record(ctx, Step{Title: &a.Title, Reasoning: &a.Thought, Action: a.Action, NextAction: ptr(agnoreasoning.Continue), Confidence: confidence(a.Confidence)})
}

func analyze(ctx context.Context, a analyzeArgs) (string, error) {
	// agno maps the model's words onto its enum, anything else continuing.
	next := agnoreasoning.Continue
	if a.NextAction != nil {
		switch strings.ToLower(*a.NextAction) {
		case "validate":
			next = agnoreasoning.Validate
		case "final", "final_answer", "finalize":
			next = agnoreasoning.FinalAnswer
		}
	}
	return record(ctx, Step{Title: &a.Title, Result: &a.Result, Reasoning: &a.Analysis, NextAction: &next, Confidence: confidence(a.Confidence)})
}

func confidence(c *float64) *agnoreasoning.Confidence {
	if c == nil {
		return ptr(agnoreasoning.Confidence(0.8)) // agno's default
	}
	return ptr(agnoreasoning.Confidence(*c))
}

func ptr[T any](v T) *T { return &v }

var errNoRun = errors.New("reasoning: think and analyze keep their steps in the run's session state, and this call has no run")

// record appends the step to session_state["reasoning_steps"][run id]
// as agno stores it (each step its JSON text) and returns the run's steps.
func record(ctx context.Context, s Step) (string, error) {
	rc := run.FromContext(ctx)
	if rc == nil {
		return "", errNoRun
	}
	raw, err := s.StoredJSON()
	if err != nil {
		return "", err
	}
	var steps []string
	rc.State(func(state map[string]any) {
		byRun, _ := state["reasoning_steps"].(map[string]any)
		if byRun == nil {
			byRun = map[string]any{}
			state["reasoning_steps"] = byRun
		}
		list, _ := byRun[rc.RunID].([]any)
		list = append(list, string(raw))
		byRun[rc.RunID] = list
		for _, v := range list {
			if str, ok := v.(string); ok {
				steps = append(steps, str)
			}
		}
	})
	var b strings.Builder
	for i, text := range steps {
		var st Step
		if json.Unmarshal([]byte(text), &st) != nil {
			continue
		}
		fmt.Fprintf(&b, "Step %d:\nTitle: %s\nReasoning: %s\nAction: %s\nConfidence: %s\n\n", i+1,
			pyStr(st.Title), pyStr(st.Reasoning), pyStr(st.Action), pyFloat(st.Confidence))
	}
	return strings.TrimSpace(b.String()), nil
}

// pyStr and pyFloat print as agno's f-string does: None for a missing value.
func pyStr(s *string) string {
	if s == nil {
		return "None"
	}
	return *s
}

func pyFloat(f *agnoreasoning.Confidence) string {
	if f == nil {
		return "None"
	}
	return pyrepr.Float(float64(*f))
}
