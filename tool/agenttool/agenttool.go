// Package agenttool makes an agent (or team) a tool of another agent.
// While the sub-run works, its events (tool calls, content, …) travel live
// into the parent's stream between the parent's ToolCallStarted and
// ToolCallCompleted, each tagged with parent_run_id = the parent's run id;
// the parent model gets the sub-run's final answer as the tool result.
package agenttool

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// Config configures the tool.
type Config struct {
	Executor run.Executor
	// Name defaults to "ask_" + the executor id made identifier-safe.
	Name        string
	Description string
	// StreamToParent forwards the sub-run's events live (default true;
	// settings.json runtime.event_streaming.sub_agent_to_parent).
	StreamToParent *bool
	// StreamEvents asks the sub-run for its full event set (default true).
	StreamEvents *bool
}

type taskArgs struct {
	Task string `json:"task" description:"The task or question for the agent, with all the context it needs."`
}

// New returns the tool.
func New(cfg Config) (*tool.Function, error) {
	if cfg.Executor == nil {
		return nil, errors.New("agenttool: Executor is required")
	}
	name := cfg.Name
	if name == "" {
		name = "ask_" + SanitizeID(cfg.Executor.ID())
	}
	desc := cfg.Description
	if desc == "" {
		desc = fmt.Sprintf("Ask %s to carry out a task and return its answer.", displayName(cfg.Executor))
	}
	toParent := cfg.StreamToParent == nil || *cfg.StreamToParent
	events := cfg.StreamEvents == nil || *cfg.StreamEvents
	exec := cfg.Executor
	return tool.New(name, desc, func(ctx context.Context, a taskArgs) (tool.Result, error) {
		out, err := RunNested(ctx, exec, a.Task, toParent, events)
		if err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Content: out.ContentString(), ChildRunID: out.RunID}, nil
	})
}

// RunNested runs exec as a child of the run in ctx and returns its output;
// a failed, paused or cancelled sub-run is an error for the parent's tool
// call.
func RunNested(ctx context.Context, exec run.Executor, input string, toParent, streamEvents bool) (*run.Output, error) {
	req := &run.Request{Input: input, Nested: true, StreamEvents: streamEvents}
	if rc := run.FromContext(ctx); rc != nil {
		req.ParentRunID, req.SessionID, req.UserID = rc.RunID, rc.SessionID, rc.UserID
		req.Dependencies, req.Metadata = rc.Dependencies, rc.Metadata
		req.Stream = rc.Stream
		req.NestedDepth = rc.NestedDepth + 1
	}
	var emit run.Emitter
	if toParent {
		emit = run.EmitterFrom(ctx)
	}
	out, err := exec.Execute(ctx, req, emit)
	if err != nil {
		return nil, err
	}
	switch out.Status {
	case run.StatusError:
		return out, fmt.Errorf("%s failed: %s", displayName(exec), out.ContentString())
	case run.StatusCancelled:
		if err := ctx.Err(); err != nil {
			return out, err
		}
		return out, fmt.Errorf("%s was cancelled", displayName(exec))
	case run.StatusPaused:
		return out, fmt.Errorf("%s paused for human input, which an agent used as a tool cannot ask for; make it a team member instead", displayName(exec))
	}
	return out, nil
}

func displayName(e run.Executor) string {
	if e.Name() != "" {
		return e.Name()
	}
	return e.ID()
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// SanitizeID turns an id into a tool-name fragment as agno's context
// providers do: lower-case, runs of other characters → "_", trimmed;
// nothing left → "context" ("My-Provider.2" → "my_provider_2").
func SanitizeID(id string) string {
	s := strings.Trim(nonIdent.ReplaceAllString(strings.ToLower(id), "_"), "_")
	if s == "" {
		return "context"
	}
	return s
}
