package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
)

// sinkKey carries the event sink of the current goroutine: branches of a
// Parallel send their events to a channel drained by the goroutine that
// runs the Parallel, so the consumer is only ever called from the run's
// own goroutine.
type sinkKey struct{}

type sink func(e run.Event, always, own bool) bool

func (x *execution) sinkOf(ctx context.Context) sink {
	if s, ok := ctx.Value(sinkKey{}).(sink); ok {
		return s
	}
	return x.deliver
}

// deliver hands an event to the consumer (own: a workflow event subject
// to stream_events; else an executor event).
func (x *execution) deliver(e run.Event, always, own bool) bool {
	if own {
		x.send(e, always)
		return !x.consumerGone
	}
	return x.forward(e)
}

func (x *execution) emitOwn(ctx context.Context, e run.Event, always bool) {
	run.Stamp(e)
	x.sinkOf(ctx)(e, always, true)
}

// done returns a node output finished before the pause (replayed on
// continue) and carries it into the new resume state.
func (x *execution) done(addr string) *StepOutput {
	if x.resume == nil {
		return nil
	}
	o := x.resume.Done[addr]
	if o != nil {
		x.record(addr, o)
	}
	return o
}

func (x *execution) record(addr string, o *StepOutput) {
	x.mu.Lock()
	x.state.Done[addr] = o
	x.mu.Unlock()
}

// decision replays or records a choice (condition result, router
// selection, loop end) so a continued run takes the same path.
func decision[T any](x *execution, key string, decide func() (T, error)) (T, error) {
	var v T
	if x.resume != nil {
		if raw, ok := x.resume.Decisions[key]; ok && json.Unmarshal(raw, &v) == nil {
			x.mu.Lock()
			x.state.Decisions[key] = raw
			x.mu.Unlock()
			return v, nil
		}
	}
	v, err := decide()
	if err != nil {
		return v, err
	}
	raw, _ := json.Marshal(v)
	x.mu.Lock()
	x.state.Decisions[key] = raw
	x.mu.Unlock()
	return v, nil
}

// takeAnswer returns the resolved requirement when addr is the paused
// node; it is consumed so nodes inside do not see it.
func (x *execution) takeAnswer(addr string) *StepRequirement {
	if x.resume == nil || x.answer == nil || x.resume.Address != addr {
		return nil
	}
	a := x.answer
	x.answer = nil
	return a
}

// runNodeUntraced runs one node with its human review.
func (x *execution) runNodeUntraced(ctx context.Context, n Node, addr string, in *StepInput, index *int) (*StepOutput, error) {
	if o := x.done(addr); o != nil {
		return o, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	id, name := x.w.ids[n], n.nodeName()
	ans := x.takeAnswer(addr)
	var selected []string
	if ans != nil && !ans.IsPostExecution && !ans.RequiresExecutorInput {
		x.emitOwn(ctx, &run.StepContinued{EventBase: x.stepBase(id, name, index)}, false)
		if ans.Confirmed != nil && !*ans.Confirmed {
			return x.rejected(ctx, n, addr, in, index, ans)
		}
		if ans.UserInput != nil {
			in = child(in, nil)
			in.AdditionalData["user_input"] = ans.UserInput
		}
		selected = ans.SelectedChoices
		ans = nil
	} else if ans == nil {
		if req := x.preRequirement(n, id, index); req != nil {
			return nil, x.pauseAt(ctx, n, addr, index, req, "step")
		}
	}
	var o *StepOutput
	var err error
	switch v := n.(type) {
	case *Step:
		o, err = x.runStep(ctx, v, addr, in, index, ans)
	case *Steps:
		o, err = x.runSteps(ctx, v, addr, in, index)
	case *Loop:
		o, err = x.runLoop(ctx, v, addr, in, index)
	case *Parallel:
		o, err = x.runParallel(ctx, v, addr, in, index)
	case *Condition:
		o, err = x.runCondition(ctx, v, addr, in, index, false)
	case *Router:
		o, err = x.runRouter(ctx, v, addr, in, index, selected)
	}
	if err != nil {
		return nil, err
	}
	x.record(addr, o)
	return o, nil
}

// preRequirement builds the pre-execution requirement a node asks for.
func (x *execution) preRequirement(n Node, id string, index *int) *StepRequirement {
	h := n.human()
	req := &StepRequirement{StepID: id, StepName: n.nodeName(), StepIndex: index, StepType: n.nodeType(),
		OnReject: h.onReject(defaultReject(n)), MaxRetries: 3}
	if h.Timeout > 0 {
		at := time.Now().Add(h.Timeout).Unix()
		req.TimeoutAt, req.OnTimeout = &at, h.OnTimeout
		if req.OnTimeout == "" {
			req.OnTimeout = TimeoutCancel
		}
	}
	if r, ok := n.(*Router); ok && r.RequiresUserInput {
		req.RequiresRouteSelection, req.RequiresUserInput = true, true
		req.UserInputMessage = h.UserInputMessage
		req.AllowMultipleSelections = r.AllowMultipleSelections
		for _, c := range r.Choices {
			req.AvailableChoices = append(req.AvailableChoices, c.nodeName())
		}
		return req
	}
	if _, ok := n.(*Step); ok && h.RequiresUserInput {
		req.RequiresUserInput, req.UserInputMessage = true, h.UserInputMessage
		req.UserInputSchema = append([]InputField(nil), h.UserInputSchema...)
		return req
	}
	if h.RequiresConfirmation {
		req.RequiresConfirmation, req.ConfirmationMessage = true, h.ConfirmationMessage
		return req
	}
	return nil
}

func defaultReject(n Node) OnReject {
	if _, ok := n.(*Condition); ok {
		return RejectElse
	}
	return RejectSkip
}

// pauseAt emits the pause events and unwinds with a pause signal.
func (x *execution) pauseAt(ctx context.Context, n Node, addr string, index *int, req *StepRequirement, kind string) error {
	if x.inParallel(ctx) {
		return fmt.Errorf("step %q asks for a human inside a Parallel block, which cannot pause; move the human step before or after the Parallel", n.nodeName())
	}
	base := x.stepBase(req.StepID, req.StepName, index)
	switch {
	case req.RequiresRouteSelection:
		x.emitOwn(ctx, &run.RouterPaused{EventBase: base, AvailableChoices: req.AvailableChoices, UserInputMessage: req.UserInputMessage, AllowMultipleSelections: req.AllowMultipleSelections}, true)
	case req.RequiresExecutorInput:
		er, _ := json.Marshal(req.ExecutorRequirements)
		x.emitOwn(ctx, &run.StepExecutorPaused{EventBase: base, ExecutorID: req.ExecutorID, ExecutorName: req.ExecutorName, ExecutorRunID: req.ExecutorRunID, ExecutorType: req.ExecutorType, ExecutorRequirements: er}, true)
	case req.RequiresOutputReview:
		so, _ := json.Marshal(req.StepOutput)
		x.emitOwn(ctx, &run.StepOutputReview{EventBase: base, OutputReviewMessage: req.OutputReviewMessage, RequiresOutputReview: true, StepOutput: so}, true)
	default:
		schema, _ := json.Marshal(req.UserInputSchema)
		if len(req.UserInputSchema) == 0 {
			schema = nil
		}
		x.emitOwn(ctx, &run.StepPaused{EventBase: base, RequiresConfirmation: req.RequiresConfirmation, ConfirmationMessage: req.ConfirmationMessage,
			RequiresUserInput: req.RequiresUserInput, UserInputMessage: req.UserInputMessage, UserInputSchema: schema}, true)
	}
	return &pauseSignal{req: req, kind: kind, address: addr, name: n.nodeName()}
}

type parallelKey struct{}

func (x *execution) inParallel(ctx context.Context) bool { return ctx.Value(parallelKey{}) != nil }

// rejected applies on_reject to a refused node.
func (x *execution) rejected(ctx context.Context, n Node, addr string, in *StepInput, index *int, ans *StepRequirement) (*StepOutput, error) {
	switch ans.OnReject {
	case RejectCancel:
		return nil, &cancelSignal{reason: rejectedReason(n.nodeName())}
	case RejectElse:
		if c, ok := n.(*Condition); ok {
			o, err := x.runCondition(ctx, c, addr, in, index, true)
			if err == nil {
				x.record(addr, o)
			}
			return o, err
		}
	case RejectRetry:
		if ans.RetryCount < ans.MaxRetries {
			req := x.preRequirement(n, x.w.ids[n], index)
			if req != nil {
				req.RetryCount = ans.RetryCount + 1
				req.RejectionFeedback = ans.RejectionFeedback
				return nil, x.pauseAt(ctx, n, addr, index, req, "step")
			}
		}
	}
	o := &StepOutput{StepName: n.nodeName(), StepID: x.w.ids[n], StepType: n.nodeType(), Success: true,
		Content: fmt.Sprintf("Step '%s' was rejected and skipped", n.nodeName())}
	x.record(addr, o)
	return o, nil
}

// runStep runs a Step's executor with retries, on_error handling and the
// post-execution output review.
func (x *execution) runStep(ctx context.Context, s *Step, addr string, in *StepInput, index *int, ans *StepRequirement) (*StepOutput, error) {
	id := x.w.ids[s]
	base := x.stepBase(id, s.Name, index)
	if ans == nil {
		x.emitOwn(ctx, &run.StepStarted{EventBase: base}, false)
	}
	switch {
	case ans != nil && ans.IsPostExecution:
		// Resuming an output review.
		o := ans.StepOutput
		if ans.EditedOutput != nil {
			c := *o
			c.Content = ans.EditedOutput
			o = &c
		}
		if ans.Confirmed == nil || *ans.Confirmed || ans.EditedOutput != nil {
			x.emitOwn(ctx, &run.StepContinued{EventBase: base}, false)
			return x.stepDone(ctx, s, o, index), nil
		}
		switch s.HumanReview.onReject(RejectSkip) {
		case RejectCancel:
			return nil, &cancelSignal{reason: rejectedReason(s.Name)}
		case RejectRetry:
			if ans.MaxRetries > 0 && ans.RetryCount >= ans.MaxRetries {
				// agno gives up on a step rejected this often by cancelling.
				return nil, &cancelSignal{reason: fmt.Sprintf("Max retries (%d) reached for step '%s'", ans.MaxRetries, s.Name)}
			}
			fb := &retryNote{previous: o.ContentString(), feedback: ans.RejectionFeedback}
			out, err := x.attempts(ctx, s, addr, fb.apply(in), index, nil)
			if err != nil {
				return nil, err
			}
			if req := x.reviewRequirement(s, id, index, out); req != nil {
				req.RetryCount = ans.RetryCount + 1
				return nil, x.pauseAt(ctx, s, addr, index, req, "step")
			}
			return x.stepDone(ctx, s, out, index), nil
		}
		return x.stepDone(ctx, s, &StepOutput{StepName: s.Name, StepID: id, StepType: s.nodeType(), Success: true,
			Content: fmt.Sprintf("Step '%s' output was rejected and skipped", s.Name)}, index), nil
	case ans != nil && ans.RequiresExecutorInput:
		x.emitOwn(ctx, &run.StepExecutorContinued{EventBase: base, ExecutorID: ans.ExecutorID, ExecutorName: ans.ExecutorName, ExecutorRunID: ans.ExecutorRunID, ExecutorType: ans.ExecutorType}, false)
	}
	out, err := x.attempts(ctx, s, addr, in, index, ans)
	if err != nil {
		return nil, err
	}
	if req := x.reviewRequirement(s, id, index, out); req != nil {
		return nil, x.pauseAt(ctx, s, addr, index, req, "step")
	}
	return x.stepDone(ctx, s, out, index), nil
}

// rejectedReason is agno's text for a run cancelled by a rejection.
func rejectedReason(step string) string {
	return fmt.Sprintf("Workflow cancelled: Step '%s' was rejected", step)
}

// retryNote is what a step retried after a rejected output sees: agno
// passes both in additional_data, and agent steps get them in the message.
type retryNote struct{ previous, feedback string }

func (r *retryNote) apply(in *StepInput) *StepInput {
	c := *in
	c.AdditionalData = map[string]any{}
	for k, v := range in.AdditionalData {
		c.AdditionalData[k] = v
	}
	if r.previous != "" {
		c.AdditionalData["previous_output"] = r.previous
	}
	if r.feedback != "" {
		c.AdditionalData["rejection_feedback"] = r.feedback
	}
	return &c
}

// reviewRequirement asks for an output review when the step wants one.
func (x *execution) reviewRequirement(s *Step, id string, index *int, out *StepOutput) *StepRequirement {
	h := &s.HumanReview
	if !h.RequiresOutputReview && (h.OutputReviewIf == nil || !h.OutputReviewIf(out)) {
		return nil
	}
	if h.OutputReviewIf != nil && !h.OutputReviewIf(out) {
		return nil
	}
	return &StepRequirement{StepID: id, StepName: s.Name, StepIndex: index, StepType: s.nodeType(),
		RequiresOutputReview: true, OutputReviewMessage: h.OutputReviewMessage, StepOutput: out,
		IsPostExecution: true, OnReject: h.onReject(RejectSkip), MaxRetries: 3}
}

func (x *execution) stepDone(ctx context.Context, s *Step, o *StepOutput, index *int) *StepOutput {
	resp, _ := json.Marshal(o)
	ct := "str"
	if _, ok := o.Content.(string); !ok && o.Content != nil {
		ct = "dict"
	}
	x.emitOwn(ctx, &run.StepCompleted{EventBase: x.stepBase(x.w.ids[s], s.Name, index), Content: o.Content, ContentType: ct, StepResponse: resp}, false)
	return o
}

// attempts runs the executor up to MaxRetries+1 times, then applies
// on_error.
func (x *execution) attempts(ctx context.Context, s *Step, addr string, in *StepInput, index *int, ans *StepRequirement) (*StepOutput, error) {
	max := 3
	if s.MaxRetries != nil {
		max = *s.MaxRetries
	}
	var lastErr error
	for attempt := 0; attempt <= max; attempt++ {
		o, err := x.execStep(ctx, s, addr, in, index, ans)
		if err == nil {
			return o, nil
		}
		var ps *pauseSignal
		var cs *cancelSignal
		var pe *safe.PanicError // a bug, not a failure to retry or skip: the run ends ERROR
		if errors.As(err, &ps) || errors.As(err, &cs) || errors.As(err, &pe) || ctx.Err() != nil {
			return nil, err
		}
		ans = nil // a failed continue does not re-apply the answers
		lastErr = err
		x.w.cfg.Logger.Warn("workflow step failed", "step", s.Name, "attempt", attempt+1, "error", err)
	}
	switch s.OnError {
	case ErrorFail:
		return nil, fmt.Errorf("step %q failed: %w", s.Name, lastErr)
	case ErrorPause:
		if x.inParallel(ctx) {
			return nil, fmt.Errorf("step %q failed inside a Parallel block, where on_error pause cannot pause: %w", s.Name, lastErr)
		}
		er := &ErrorRequirement{StepID: x.w.ids[s], StepName: s.Name, StepIndex: index, Error: lastErr.Error(),
			ErrorType: fmt.Sprintf("%T", lastErr), RetryCount: x.errorRetries(s)}
		// agno announces the pause with StepError, whatever stream_events says.
		x.emitOwn(ctx, &run.StepError{EventBase: x.stepBase(er.StepID, s.Name, index), Error: er.Error}, true)
		return nil, &pauseSignal{errReq: er, kind: "error", address: addr, name: s.Name}
	}
	content := "Step skipped due to error: " + lastErr.Error()
	if s.SkipOnFailure {
		content = lastErr.Error()
	}
	return &StepOutput{StepName: s.Name, StepID: x.w.ids[s], StepType: s.nodeType(), Content: content, Success: false, Error: lastErr.Error()}, nil
}

// execStep runs the executor once.
func (x *execution) execStep(ctx context.Context, s *Step, addr string, in *StepInput, index *int, ans *StepRequirement) (*StepOutput, error) {
	id := x.w.ids[s]
	switch {
	case s.Func != nil:
		return x.execFunc(ctx, s, in, index)
	case s.Workflow != nil:
		return x.execWorkflow(ctx, s, in, index)
	}
	tags := x.tags
	tags.StepID, tags.StepName, tags.StepIndex = id, s.Name, index
	emit := x.executorEmitter(ctx)
	var out *run.Output
	var err error
	if ans != nil && ans.RequiresExecutorInput {
		paused := x.executorRun(ans.ExecutorRunID)
		if paused == nil {
			return nil, fmt.Errorf("step %q: the paused %s run %s is not in this workflow run", s.Name, ans.ExecutorType, ans.ExecutorRunID)
		}
		out, err = s.Agent.ExecuteContinue(ctx, &run.ContinueRequest{
			Output: paused, Requirements: ans.ExecutorRequirements, Nested: true, Workflow: &tags,
			SessionState: x.rc.StateSnapshot(), Stream: x.stream, StreamEvents: true,
		}, emit)
	} else {
		out, err = s.Agent.Execute(ctx, &run.Request{
			Input: x.message(s, in), Images: in.Images, Files: in.Files, Nested: true, Workflow: &tags,
			SessionID: x.out.SessionID, UserID: x.out.UserID, SessionState: x.rc.StateSnapshot(),
			Dependencies: x.rc.Dependencies, Metadata: x.rc.Metadata, Stream: x.stream,
			StreamEvents: x.streamEvents && x.w.streamExecutors(), NestedDepth: x.req.NestedDepth,
		}, emit)
	}
	if err != nil {
		return nil, err
	}
	if out.SessionState != nil {
		x.rc.State(func(st map[string]any) { run.MergeMaps(st, out.SessionState) })
	}
	kind := "agent"
	if out.TeamID != "" {
		kind = "team"
	}
	if x.w.storeExecutors() || out.Status == run.StatusPaused {
		x.keepExecutorRun(out)
	}
	switch out.Status {
	case run.StatusPaused:
		req := &StepRequirement{StepID: id, StepName: s.Name, StepIndex: index, StepType: s.nodeType(),
			RequiresExecutorInput: true, ExecutorRequirements: run.Active(out.Requirements),
			ExecutorID: s.Agent.ID(), ExecutorName: s.Agent.Name(), ExecutorRunID: out.RunID,
			ExecutorType: kind, ExecutorSessionID: out.SessionID, MaxRetries: 3}
		return nil, x.pauseAt(ctx, s, addr, index, req, "executor")
	case run.StatusError:
		return nil, errors.New(out.ContentString())
	case run.StatusCancelled:
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &cancelSignal{reason: fmt.Sprintf("%s %q was cancelled", kind, s.Agent.ID())}
	}
	m := out.Metrics
	if m != nil {
		x.mu.Lock()
		if x.out.Metrics.Steps == nil {
			x.out.Metrics.Steps = map[string]*StepMetrics{}
		}
		x.out.Metrics.Steps[s.Name] = &StepMetrics{StepName: s.Name, ExecutorType: kind, ExecutorName: s.Agent.Name(), Metrics: m}
		x.mu.Unlock()
	}
	return &StepOutput{StepName: s.Name, StepID: id, StepType: s.nodeType(), ExecutorType: kind, ExecutorName: s.Agent.Name(),
		Content: out.Content, StepRunID: out.RunID, Images: out.Images, Metrics: m, Success: true}, nil
}

// executorEmitter forwards an executor's events: all of them with
// stream_executor_events, else only terminal ones.
func (x *execution) executorEmitter(ctx context.Context) run.Emitter {
	deliver := x.sinkOf(ctx)
	all := x.w.streamExecutors()
	return func(e run.Event) bool {
		if !all {
			switch strings.TrimPrefix(e.Kind(), "Team") {
			case "RunCompleted", "RunError", "RunCancelled", "RunPaused":
			default:
				return true
			}
		}
		return deliver(e, true, false)
	}
}

func (x *execution) keepExecutorRun(o *run.Output) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, r := range x.out.StepExecutorRuns {
		if r.RunID == o.RunID {
			x.out.StepExecutorRuns[i] = o
			return
		}
	}
	x.out.StepExecutorRuns = append(x.out.StepExecutorRuns, o)
}

func (x *execution) executorRun(id string) *run.Output {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range x.out.StepExecutorRuns {
		if r.RunID == id {
			return r.Clone()
		}
	}
	return nil
}

// message is an agent's or team's input, built as agno's Step builds it:
// the workflow history block, then the previous step's content (or the
// workflow input), then the human's values, the rejected output and the
// reviewer's feedback.
func (x *execution) message(s *Step, in *StepInput) string {
	msg := in.InputString()
	if in.PreviousStepContent != nil {
		msg = run.ContentText(in.PreviousStepContent)
	}
	if s.AddWorkflowHistory || x.w.cfg.AddWorkflowHistoryToSteps {
		n := s.NumHistoryRuns
		if n == 0 {
			n = x.w.cfg.NumHistoryRuns
		}
		msg = in.HistoryContext(n) + msg
	}
	section := func(title, body string) {
		if msg != "" {
			msg += "\n\n"
		}
		msg += title + ":\n" + body
	}
	if ui := in.UserInput(); len(ui) > 0 {
		keys := make([]string, 0, len(ui))
		for k := range ui {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lines := make([]string, len(keys))
		for i, k := range keys {
			lines[i] = "- " + k + ": " + pyText(ui[k])
		}
		section("User preferences", strings.Join(lines, "\n"))
	}
	if p, _ := in.AdditionalData["previous_output"].(string); p != "" {
		section("Your previous output", p)
	}
	if f, _ := in.AdditionalData["rejection_feedback"].(string); f != "" {
		msg += "\n\nFeedback from reviewer:\n" + f
	}
	return msg
}

// pyText renders a value as Python's str() does for the common types.
func pyText(v any) string {
	if b, ok := v.(bool); ok {
		if b {
			return "True"
		}
		return "False"
	}
	return run.ContentText(v)
}

// errorRetries counts the retries a human already asked for after this
// step failed (agno's ErrorRequirement.retry_count).
func (x *execution) errorRetries(s *Step) int {
	if x.resume == nil || x.errRetry == nil || x.errRetry.StepID != x.w.ids[s] {
		return 0
	}
	return x.errRetry.RetryCount + 1
}

// execFunc runs a Go function step; a panic is a step failure.
func (x *execution) execFunc(ctx context.Context, s *Step, in *StepInput, index *int) (o *StepOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = safe.FromPanic(x.w.cfg.Logger, "workflow "+x.w.cfg.ID+" step "+s.Name, p)
		}
	}()
	o, err = s.Func(ctx, in)
	if err != nil {
		return nil, err
	}
	if o == nil {
		o = &StepOutput{}
	}
	c := *o
	c.StepName, c.StepID, c.StepType = s.Name, x.w.ids[s], s.nodeType()
	c.ExecutorType, c.ExecutorName = "function", s.Name
	if c.Error == "" {
		c.Success = true
	}
	so, _ := json.Marshal(&c)
	x.emitOwn(ctx, &run.StepOutputEvent{EventBase: x.stepBase(c.StepID, s.Name, index), StepOutput: so}, false)
	return &c, nil
}

// execWorkflow runs a nested workflow in the same session; its events keep
// its own workflow id and carry this step as parent.
func (x *execution) execWorkflow(ctx context.Context, s *Step, in *StepInput, index *int) (*StepOutput, error) {
	deliver := x.sinkOf(ctx)
	id := x.w.ids[s]
	emit := func(e run.Event) bool {
		b := e.Base()
		if b.ParentStepID == "" {
			b.ParentStepID = id
		}
		return deliver(e, true, false)
	}
	input := in.InputString()
	if in.PreviousStepContent != nil {
		input = run.ContentText(in.PreviousStepContent)
	}
	out, err := s.Workflow.Execute(ctx, &run.Request{
		Input: input, SessionID: x.out.SessionID, UserID: x.out.UserID, ParentRunID: x.out.RunID,
		SessionState: x.rc.StateSnapshot(), Stream: x.stream, StreamEvents: x.streamEvents, NestedDepth: x.req.NestedDepth + 1,
	}, emit)
	if out != nil && out.SessionState != nil {
		x.rc.State(func(st map[string]any) { run.MergeMaps(st, out.SessionState) })
	}
	if err != nil {
		return nil, err
	}
	if out.Status == run.StatusPaused {
		return nil, fmt.Errorf("nested workflow %q paused for a human, which a nested workflow cannot do; put the human step in workflow %q", s.Workflow.ID(), x.w.ID())
	}
	return &StepOutput{StepName: s.Name, StepID: id, StepType: "Workflow", ExecutorType: "workflow", ExecutorName: s.Workflow.Name(),
		Content: out.Content, StepRunID: out.RunID, Success: out.Status == run.StatusCompleted, Steps: out.StepResults}, nil
}

// runSeq runs nodes in order inside a container.
func (x *execution) runSeq(ctx context.Context, nodes []Node, prefix string, in *StepInput, index *int) ([]*StepOutput, bool, error) {
	var outs []*StepOutput
	var prev *StepOutput
	for j, n := range nodes {
		o, err := x.runNode(ctx, n, prefix+strconv.Itoa(j), child(in, prev), index)
		if err != nil {
			return outs, false, err
		}
		outs = append(outs, o)
		prev = o
		if o.Stop {
			return outs, true, nil
		}
	}
	return outs, false, nil
}

func container(n Node, id string, outs []*StepOutput, stop bool) *StepOutput {
	o := &StepOutput{StepName: n.nodeName(), StepID: id, StepType: n.nodeType(), Steps: outs, Success: true, Stop: stop}
	for _, c := range outs {
		if !c.Success {
			o.Success = false
		}
	}
	if len(outs) > 0 {
		o.Content = outs[len(outs)-1].deepest().Content
	}
	return o
}

func (x *execution) runSteps(ctx context.Context, s *Steps, addr string, in *StepInput, index *int) (*StepOutput, error) {
	id := x.w.ids[s]
	x.emitOwn(ctx, &run.StepsExecutionStarted{EventBase: x.stepBase(id, s.Name, index), StepsCount: len(s.Steps)}, false)
	outs, stop, err := x.runSeq(ctx, s.Steps, addr+"/0.", in, index)
	if err != nil {
		return nil, err
	}
	o := container(s, id, outs, stop)
	res, _ := json.Marshal(outs)
	x.emitOwn(ctx, &run.StepsExecutionCompleted{EventBase: x.stepBase(id, s.Name, index), StepsCount: len(s.Steps), ExecutedSteps: len(outs), StepResults: res}, false)
	return o, nil
}

func (x *execution) runLoop(ctx context.Context, l *Loop, addr string, in *StepInput, index *int) (*StepOutput, error) {
	id := x.w.ids[l]
	max := l.MaxIterations
	if max <= 0 {
		max = 3
	}
	x.emitOwn(ctx, &run.LoopExecutionStarted{EventBase: x.stepBase(id, l.Name, index), MaxIterations: max}, false)
	var all []*StepOutput
	stop := false
	iterations := 0
	cur := in
	for it := 1; it <= max; it++ {
		iterations = it
		x.emitOwn(ctx, &run.LoopIterationStarted{EventBase: x.stepBase(id, l.Name, index), Iteration: it, MaxIterations: max}, false)
		outs, s, err := x.runSeq(ctx, l.Steps, fmt.Sprintf("%s/0#%d.", addr, it), cur, index)
		if err != nil {
			return nil, err
		}
		all = append(all, outs...)
		stop = s
		end := false
		if l.EndConditionAt != nil || l.EndCondition != nil {
			end, err = decision(x, fmt.Sprintf("%s#end%d", addr, it), func() (bool, error) {
				if l.EndConditionAt != nil {
					return l.EndConditionAt(outs, it, max)
				}
				return l.EndCondition(outs), nil
			})
			if err != nil {
				return nil, fmt.Errorf("loop %q end condition: %w", l.Name, err)
			}
		}
		res, _ := json.Marshal(outs)
		x.emitOwn(ctx, &run.LoopIterationCompleted{EventBase: x.stepBase(id, l.Name, index), Iteration: it, MaxIterations: max,
			IterationResults: res, ShouldContinue: !end && !stop && it < max}, false)
		if end || stop {
			break
		}
		if len(outs) > 0 {
			cur = child(in, outs[len(outs)-1])
		}
	}
	res, _ := json.Marshal(all)
	x.emitOwn(ctx, &run.LoopExecutionCompleted{EventBase: x.stepBase(id, l.Name, index), TotalIterations: iterations, AllResults: res}, false)
	return container(l, id, all, stop), nil
}

type branchItem struct {
	e      run.Event
	always bool
	own    bool
	done   bool
}

// runParallel runs branches concurrently; their events are drained here,
// on the goroutine running the Parallel.
func (x *execution) runParallel(ctx context.Context, p *Parallel, addr string, in *StepInput, index *int) (*StepOutput, error) {
	id := x.w.ids[p]
	x.emitOwn(ctx, &run.ParallelExecutionStarted{EventBase: x.stepBase(id, p.Name, index), ParallelStepCount: len(p.Steps)}, false)
	items := make(chan branchItem, 64)
	bctx := context.WithValue(ctx, parallelKey{}, true)
	bctx = context.WithValue(bctx, sinkKey{}, sink(func(e run.Event, always, own bool) bool {
		select {
		case items <- branchItem{e: e, always: always, own: own}:
			return true
		case <-ctx.Done():
			return false
		}
	}))
	outs := make([]*StepOutput, len(p.Steps))
	errs := make([]error, len(p.Steps))
	for j, n := range p.Steps {
		go func() {
			errs[j] = safe.Call(x.w.cfg.Logger, "workflow "+x.w.cfg.ID+" parallel step "+n.nodeName(), func() (err error) {
				outs[j], err = x.runNode(bctx, n, fmt.Sprintf("%s/0.%d", addr, j), child(in, nil), index)
				return err
			})
			items <- branchItem{done: true}
		}()
	}
	deliver := x.sinkOf(ctx)
	for pending := len(p.Steps); pending > 0; {
		it := <-items
		if it.done {
			pending--
			continue
		}
		deliver(it.e, it.always, it.own)
	}
	var b strings.Builder
	b.WriteString("## Parallel Execution Results\n\n")
	o := &StepOutput{StepName: p.Name, StepID: id, StepType: "Parallel", Success: true}
	for j, n := range p.Steps {
		if errs[j] != nil {
			var ps *pauseSignal
			var pe *safe.PanicError
			if errors.As(errs[j], &ps) || errors.As(errs[j], &pe) || ctx.Err() != nil {
				return nil, errs[j]
			}
			o.Success = false
			fmt.Fprintf(&b, "### ❌ %s\n\n%s\n\n", n.nodeName(), errs[j])
			outs[j] = &StepOutput{StepName: n.nodeName(), StepID: x.w.ids[n], StepType: n.nodeType(), Success: false, Error: errs[j].Error()}
		} else {
			mark := "✅"
			if !outs[j].Success {
				mark, o.Success = "❌", false
			}
			fmt.Fprintf(&b, "### %s %s\n\n%s\n\n", mark, n.nodeName(), outs[j].ContentString())
			o.Stop = o.Stop || outs[j].Stop
		}
		o.Steps = append(o.Steps, outs[j])
	}
	o.Content = strings.TrimRight(b.String(), "\n")
	res, _ := json.Marshal(o.Steps)
	x.emitOwn(ctx, &run.ParallelExecutionCompleted{EventBase: x.stepBase(id, p.Name, index), ParallelStepCount: len(p.Steps), StepResults: res}, false)
	return o, nil
}

func (x *execution) runCondition(ctx context.Context, c *Condition, addr string, in *StepInput, index *int, forceElse bool) (*StepOutput, error) {
	id := x.w.ids[c]
	result := false
	if !forceElse {
		var err error
		result, err = decision(x, addr+"#cond", func() (bool, error) { return c.Evaluator(ctx, in) })
		if err != nil {
			return nil, fmt.Errorf("condition %q: %w", c.Name, err)
		}
	}
	x.emitOwn(ctx, &run.ConditionExecutionStarted{EventBase: x.stepBase(id, c.Name, index), ConditionResult: &result}, false)
	branch, nodes, prefix := "if", c.Steps, addr+"/0."
	if !result {
		branch, nodes, prefix = "else", c.ElseSteps, addr+"/1."
	}
	var o *StepOutput
	if len(nodes) == 0 {
		o = &StepOutput{StepName: c.Name, StepID: id, StepType: "Condition", Success: true, Content: fmt.Sprintf("Condition %s not met - skipped", c.Name)}
	} else {
		outs, stop, err := x.runSeq(ctx, nodes, prefix, in, index)
		if err != nil {
			return nil, err
		}
		o = container(c, id, outs, stop)
	}
	res, _ := json.Marshal(o.Steps)
	x.emitOwn(ctx, &run.ConditionExecutionCompleted{EventBase: x.stepBase(id, c.Name, index), ConditionResult: &result,
		ExecutedSteps: len(o.Steps), Branch: branch, StepResults: res}, false)
	return o, nil
}

func (x *execution) runRouter(ctx context.Context, r *Router, addr string, in *StepInput, index *int, chosen []string) (*StepOutput, error) {
	id := x.w.ids[r]
	names := make([]string, len(r.Choices))
	for i, c := range r.Choices {
		names[i] = c.nodeName()
	}
	if chosen == nil {
		var err error
		chosen, err = decision(x, addr+"#route", func() ([]string, error) {
			if r.Selector == nil {
				return nil, fmt.Errorf("router %q has no selector", r.Name)
			}
			return r.Selector(ctx, in, names)
		})
		if err != nil {
			return nil, fmt.Errorf("router %q: %w", r.Name, err)
		}
	}
	x.emitOwn(ctx, &run.RouterExecutionStarted{EventBase: x.stepBase(id, r.Name, index), SelectedSteps: chosen}, false)
	var outs []*StepOutput
	var prev *StepOutput
	stop := false
	for _, name := range chosen {
		j := indexOf(names, name)
		if j < 0 {
			return nil, fmt.Errorf("router %q selected %q, which is not one of its choices (%s)", r.Name, name, strings.Join(names, ", "))
		}
		o, err := x.runNode(ctx, r.Choices[j], fmt.Sprintf("%s/0.%d", addr, j), child(in, prev), index)
		if err != nil {
			return nil, err
		}
		outs = append(outs, o)
		prev = o
		if o.Stop {
			stop = true
			break
		}
	}
	res, _ := json.Marshal(outs)
	x.emitOwn(ctx, &run.RouterExecutionCompleted{EventBase: x.stepBase(id, r.Name, index), SelectedSteps: chosen, ExecutedSteps: len(outs), StepResults: res}, false)
	return container(r, id, outs, stop), nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
