package team

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// Texts the leader model sees (agno's team/_default_tools.py).
const (
	delegateDesc = "Use this function to delegate a task to the selected team member.\n" +
		"You must provide a clear and concise description of the task the member should achieve AND the expected output."
	delegateAllDesc = "Use this function to delegate a task to all the member agents and return a response.\n" +
		"You must provide a clear and concise description of the task the member should achieve AND the expected output."
	noMemberResponse = "No response from the member agent."
)

type delegateArgs struct {
	MemberID string `json:"member_id" description:"The ID of the member to delegate the task to. Use only the ID of the member, not the ID of the team followed by the ID of the member."`
	Task     string `json:"task" description:"A clear and concise description of the task the member should achieve."`
}

type delegateAllArgs struct {
	Task string `json:"task" description:"A clear and concise description of the task to send to member agents."`
}

// modeTools returns the leader's tools for the team's mode.
func (t *Team) modeTools() []tool.Provider {
	var fns []tool.Provider
	switch t.mode {
	case ModeBroadcast:
		fns = append(fns, tool.Must(tool.New("delegate_task_to_members", delegateAllDesc, t.delegateAll)))
	case ModeTasks:
		fns = append(fns, t.taskTools()...)
	default:
		var opts []tool.Option
		if t.mode == ModeRoute {
			opts = append(opts, tool.StopAfterToolCall())
		}
		fns = append(fns, tool.Must(tool.New("delegate_task_to_member", delegateDesc, t.delegate, opts...)))
	}
	if t.cfg.GetMemberInformationTool && t.mode != ModeTasks {
		fns = append(fns, tool.Must(tool.New("get_member_information",
			"Get information about the members of the team, including their IDs, names, and roles.",
			func(context.Context, struct{}) (string, error) { return t.roster(), nil })))
	}
	return fns
}

// delegate runs one member on a task (coordinate and route modes).
func (t *Team) delegate(ctx context.Context, a delegateArgs) (tool.Result, error) {
	m := t.findMember(a.MemberID)
	if m == nil {
		return tool.Text(fmt.Sprintf("Member with ID %s not found in the team or any subteams. Please choose the correct member from the list of members:\n\n%s", a.MemberID, t.roster())), nil
	}
	out, err := t.runMember(ctx, m, a.Task, run.EmitterFrom(ctx))
	if err != nil {
		return tool.Result{}, err
	}
	return t.memberResult(m, out), nil
}

// delegateAll runs every member on the same task at once (broadcast).
// Their events are merged into the team stream from this call's goroutine.
func (t *Team) delegateAll(ctx context.Context, a delegateAllArgs) (tool.Result, error) {
	members := t.cfg.Members
	type done struct {
		i   int
		out *run.Output
		err error
	}
	items := make(chan any, 64)
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emit := func(e run.Event) bool {
				select {
				case items <- e:
					return true
				case <-ctx.Done():
					return false
				}
			}
			var out *run.Output
			err := safe.Call(t.cfg.Logger, "team "+t.ID()+" member "+m.ID(), func() (err error) {
				out, err = t.runMember(ctx, m, a.Task, emit)
				return err
			})
			items <- done{i, out, err}
		}()
	}
	go func() { wg.Wait(); close(items) }()
	parent := run.EmitterFrom(ctx)
	outs := make([]*run.Output, len(members))
	errs := make([]error, len(members))
	for it := range items {
		switch x := it.(type) {
		case run.Event:
			if parent != nil && t.streamMembers() {
				parent(x)
			}
		case done:
			outs[x.i], errs[x.i] = x.out, x.err
		}
	}
	var res tool.Result
	var parts []string
	for i, m := range members {
		name := displayName(m)
		if errs[i] != nil {
			parts = append(parts, fmt.Sprintf("Agent %s: Error - %s", name, errs[i]))
			continue
		}
		r := t.memberResult(m, outs[i])
		res.Requirements = append(res.Requirements, r.Requirements...)
		res.ChildRuns = append(res.ChildRuns, r.ChildRuns...)
		if outs[i].Status == run.StatusPaused {
			parts = append(parts, fmt.Sprintf("Agent %s: Requires human input before continuing.", name))
			continue
		}
		parts = append(parts, fmt.Sprintf("Agent %s: %s", name, r.Content))
	}
	res.Content = strings.Join(parts, "\n\n")
	return res, ctx.Err()
}

// runMember runs a member as a child of the team run: same session, a
// copy of the team's session state (merged back afterwards), events
// tagged with the team run as parent.
func (t *Team) runMember(ctx context.Context, m run.Executor, task string, emit run.Emitter) (*run.Output, error) {
	rc := run.FromContext(ctx)
	input := task
	if t.cfg.DetermineInputForMembers != nil && !*t.cfg.DetermineInputForMembers && rc != nil {
		input = rc.Input
	}
	input = t.wrapTask(ctx, rc, input)
	req := &run.Request{Input: input, Nested: true, HistoryOfChildRuns: true}
	if rc != nil {
		req.ParentRunID, req.SessionID, req.UserID = rc.RunID, rc.SessionID, rc.UserID
		req.SessionState = rc.StateSnapshot()
		req.Dependencies, req.Metadata = rc.Dependencies, rc.Metadata
		req.Stream = rc.Stream
		req.StreamEvents = rc.StreamEvents || t.streamMembers()
		req.NestedDepth = rc.NestedDepth + 1
	}
	if !t.streamMembers() {
		emit = nil
	}
	out, err := m.Execute(ctx, req, emit)
	if err != nil {
		return nil, err
	}
	// agno records the leader's task, not the prompt built from it: that
	// prompt holds the earlier interactions, which would nest block in block.
	t.recordInteraction(rc, m, task, out)
	if rc != nil && out.SessionState != nil {
		rc.State(func(s map[string]any) { run.MergeMaps(s, out.SessionState) })
	}
	return out, nil
}

// memberResult turns a member's output into the delegate tool's result
// and records the interaction for share_member_interactions.
func (t *Team) memberResult(m run.Executor, out *run.Output) tool.Result {
	res := tool.Result{ChildRuns: []*run.Output{out}, ChildRunID: out.RunID}
	switch out.Status {
	case run.StatusPaused:
		for _, r := range out.ActiveRequirements() {
			// A copy: the member's own run keeps its requirement untagged.
			c := *r
			c.ToolExecution = r.ToolExecution.Clone()
			c.MemberAgentID, c.MemberAgentName, c.MemberRunID = m.ID(), m.Name(), out.RunID
			res.Requirements = append(res.Requirements, &c)
		}
		res.Content = fmt.Sprintf("Member '%s' requires human input before continuing.", displayName(m))
	default:
		res.Content = memberContent(out)
	}
	return res
}

// memberContent is the tool result for a member's answer (agno's
// _default_tools rules): text as is, structured content as indented JSON,
// no text → the member's tool results, nothing → a fixed line.
func memberContent(out *run.Output) string {
	switch c := out.Content.(type) {
	case nil:
	case string:
		if strings.TrimSpace(c) != "" {
			return c
		}
	default:
		if s, err := pyjson.DumpsOpts(c, pyjson.Options{Indent: 2, NoEnsureASCII: true}); err == nil {
			return s
		}
		return fmt.Sprint(c)
	}
	var results []string
	for _, t := range out.Tools {
		if r := t.ResultText(); r != "" {
			results = append(results, r)
		}
	}
	if len(results) > 0 {
		return strings.Join(results, ",")
	}
	return noMemberResponse
}

func displayName(m run.Executor) string {
	if m.Name() != "" {
		return m.Name()
	}
	return m.ID()
}

// continueMembers continues each paused member with the answered
// requirements (agno: Team.continue_run routes member requirements to
// member.continue_run), then reports their results to the leader.
func (t *Team) continueMembers(ctx context.Context, mc *engine.MemberContinuation) (*engine.MemberResult, error) {
	byRun := map[string][]*run.Requirement{}
	var order []string
	for _, r := range mc.Requirements {
		if _, ok := byRun[r.MemberRunID]; !ok {
			order = append(order, r.MemberRunID)
		}
		byRun[r.MemberRunID] = append(byRun[r.MemberRunID], r)
	}
	res := &engine.MemberResult{}
	var lines []string
	for _, runID := range order {
		reqs := byRun[runID]
		m := t.findMember(reqs[0].MemberAgentID)
		if m == nil {
			return nil, fmt.Errorf("continue: member %q of run %s is no longer in team %q", reqs[0].MemberAgentID, runID, t.cfg.ID)
		}
		paused, err := mc.MemberRun(runID)
		if err != nil {
			return nil, fmt.Errorf("continue member %s: %w", m.ID(), err)
		}
		rc := mc.RunContext
		creq := &run.ContinueRequest{
			Output: paused, Requirements: reqs, Nested: true,
			Stream: rc.Stream, StreamEvents: rc.StreamEvents || t.streamMembers(),
			SessionState: rc.StateSnapshot(),
		}
		emit := mc.Emit
		if !t.streamMembers() {
			emit = nil
		}
		out, err := m.ExecuteContinue(ctx, creq, emit)
		if err != nil {
			return nil, fmt.Errorf("continue member %s: %w", m.ID(), err)
		}
		if out.SessionState != nil {
			rc.State(func(s map[string]any) { run.MergeMaps(s, out.SessionState) })
		}
		r := t.memberResult(m, out)
		res.Runs = append(res.Runs, out)
		res.Pending = append(res.Pending, r.Requirements...)
		content := out.ContentString()
		if content == "" {
			content = "Task completed"
		}
		lines = append(lines, fmt.Sprintf("[%s]: %s", displayName(m), content))
	}
	if len(lines) == 0 {
		res.Content = "The delegated task has been completed."
		return res, nil
	}
	res.Content = "Member results after human-in-the-loop resolution:\n" + strings.Join(lines, "\n")
	return res, nil
}
