package engine

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
)

// reasoner is what a reasoning run asks: the reasoning agent (the
// spec's, else one built at Prepare) and how its model reasons.
type reasoner struct {
	agent  run.Executor
	native model.NativeReasoning
	// minSteps and maxSteps bound the chain-of-thought loop.
	minSteps, maxSteps int
}

// prepareReasoning builds the reasoning agent of a spec with reasoning on
// (agno's ReasoningManager): the model's own thinking when the reasoning
// model is a native one, else agno's chain-of-thought agent, which gets
// the spec's tools and answers ReasoningSteps.
func (s *Spec) prepareReasoning() error {
	if !s.Reasoning && s.ReasoningModel == nil {
		return nil
	}
	r := &reasoner{minSteps: s.ReasoningMinSteps, maxSteps: s.ReasoningMaxSteps}
	if r.minSteps == 0 {
		r.minSteps = 1
	}
	if r.maxSteps == 0 {
		r.maxSteps = 10
	}
	if r.minSteps < 0 || r.maxSteps < 0 || r.minSteps > r.maxSteps {
		return fmt.Errorf("reasoning_min_steps = %d, reasoning_max_steps = %d: use 1 <= reasoning_min_steps <= reasoning_max_steps (agno's defaults are 1 and 10)", s.ReasoningMinSteps, s.ReasoningMaxSteps)
	}
	m := s.ReasoningModel
	if m == nil {
		m = s.Model
	}
	r.native = m.Info().NativeReasoning
	r.agent = s.ReasoningAgent
	if r.agent == nil {
		sub := &Spec{AgentConfig: AgentConfig{Name: "Reasoning Agent", Model: m, Logger: s.Logger}}
		if r.native == model.ReasoningNone {
			sub.Description = reasoning.Description
			sub.Instructions = []string{reasoning.Instructions(r.minSteps, r.maxSteps)}
			sub.Tools, sub.ToolCallLimit, sub.UseJSONMode = s.Tools, s.ToolCallLimit, s.UseJSONMode
			sub.OutputSchema = &OutputSchema{Name: reasoning.CompletedContentType, Schema: []byte(reasoning.StepsSchema), Type: reflect.TypeFor[reasoning.Completed]()}
		}
		if err := sub.Prepare(); err != nil {
			return fmt.Errorf("reasoning agent: %w", err)
		}
		r.agent = reasoningAgent{sub}
	}
	s.reasoner = r
	return nil
}

// reasoningAgent is a spec the engine built for itself as a
// run.Executor (a Spec's ID and Name are fields, not methods).
type reasoningAgent struct{ spec *Spec }

func (a reasoningAgent) ID() string   { return a.spec.AgentConfig.ID }
func (a reasoningAgent) Name() string { return a.spec.AgentConfig.Name }

func (a reasoningAgent) Execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	return a.spec.Execute(ctx, req, emit)
}

func (a reasoningAgent) ExecuteContinue(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	return a.spec.Continue(ctx, req, emit)
}

// reason runs reasoning before the model loop, as agno does after the
// run's messages are built: it emits the Reasoning* events, fills the
// output's reasoning fields and adds the reasoning to the messages the
// model sees. A failed reasoning is logged and the run goes on without
// it, as in agno; only a cancelled run stops.
func (st *runState) reason() error {
	r := st.spec.reasoner
	if r == nil {
		return nil
	}
	st.sendOptional(&run.ReasoningStarted{EventBase: st.base()})
	input := st.reasoningInput()
	var err error
	if r.native != model.ReasoningNone {
		err = st.reasonNatively(r, input)
	} else {
		err = st.reasonStepByStep(r, input)
	}
	if err != nil && st.ctx.Err() != nil {
		return context.Cause(st.ctx)
	}
	if err != nil {
		st.spec.logger.Warn("Reasoning error, continuing regular session", "run_id", st.out.RunID, "error", err)
	}
	return nil
}

// reasoningInput are the run's input messages: the system message, the
// additional input and the input, without history (agno's
// get_input_messages).
func (st *runState) reasoningInput() []model.Message {
	var in []model.Message
	for _, m := range st.messages {
		if !m.FromHistory {
			in = append(in, m)
		}
	}
	return in
}

// askReasoner runs the reasoning agent once on the input.
func (st *runState) askReasoner(r *reasoner, input []model.Message, stream bool, emit run.Emitter) (*run.Output, error) {
	out, err := r.agent.Execute(st.ctx, &run.Request{
		Messages: input, Nested: true, Stream: stream,
		SessionID: st.out.SessionID, UserID: st.out.UserID, ParentRunID: st.out.RunID,
		SessionState: st.rc.StateSnapshot(), Dependencies: st.rc.Dependencies, Metadata: st.rc.Metadata,
	}, emit)
	if err != nil {
		return nil, err
	}
	addChildMetrics(st.out.Metrics, out.Metrics, "reasoning")
	if out.Status == run.StatusError {
		return nil, fmt.Errorf("reasoning agent: %s", out.ContentString())
	}
	if out.Status == run.StatusCancelled {
		return nil, fmt.Errorf("reasoning agent: cancelled")
	}
	return out, nil
}

// reasonStepByStep is agno's chain-of-thought loop: the reasoning agent
// answers ReasoningSteps until a step's next action is not "continue" or
// the loop has asked max_steps-1 times. Each answer's steps are events;
// the last answer's messages go, between agno's two framing messages,
// into the main model's context (not into the stored run).
func (st *runState) reasonStepByStep(r *reasoner, input []model.Message) error {
	var all []reasoning.Step
	var msgs []model.Message
	var stepErr error
	next := reasoning.Continue
	for n := 1; next == reasoning.Continue && n < r.maxSteps; n++ {
		out, err := st.askReasoner(r, input, false, nil)
		if err != nil {
			stepErr = err
			break
		}
		steps, err := reasoning.DecodeSteps(out.Content)
		if err != nil || len(steps) == 0 {
			stepErr = cmpErr(err, "the reasoning agent gave no steps")
			break
		}
		all = append(all, steps...)
		for _, step := range steps {
			st.addReasoningSteps(step)
			// agno's event text is the output's reasoning_content (this
			// step) followed by the step again; kept as agno's clients see it.
			st.sendOptional(&run.ReasoningStep{EventBase: st.base(), Content: step, ContentType: reasoning.StepContentType, ReasoningContent: st.out.ReasoningContent + step.Text()})
		}
		msgs = fromFirstAssistant(out.Messages)
		next = steps[len(steps)-1].Next()
	}
	st.addReasoningMessages(msgs...)
	framed := make([]model.Message, 0, len(msgs)+2)
	framed = append(framed, model.Message{ID: run.NewID(), Role: model.RoleAssistant, Content: reasoning.WorkedThrough, CreatedAt: run.Now()})
	framed = append(framed, msgs...)
	framed = append(framed, model.Message{ID: run.NewID(), Role: model.RoleAssistant, Content: reasoning.Summarize, CreatedAt: run.Now()})
	st.addUnstored(framed)
	if len(all) > 0 {
		st.sendOptional(&run.ReasoningCompleted{EventBase: st.base(), Content: reasoning.Completed{ReasoningSteps: all}, ContentType: reasoning.CompletedContentType})
	}
	return stepErr
}

// reasonNatively asks a native reasoning model once and keeps its
// thinking as one step and one assistant message in the main model's
// context. With stream_events the thinking streams as
// ReasoningContentDelta events.
func (st *runState) reasonNatively(r *reasoner, input []model.Message) error {
	stream := st.streamEvents && st.emit != nil
	var streamed strings.Builder
	var emit run.Emitter
	if stream {
		emit = func(e run.Event) bool {
			c, ok := e.(*run.RunContent)
			if !ok {
				return true
			}
			delta := c.ReasoningContent
			if delta == "" && r.native == model.ReasoningContent {
				delta, _ = c.Content.(string)
			}
			if delta != "" {
				streamed.WriteString(delta)
				st.send(&run.ReasoningContentDelta{EventBase: st.base(), ReasoningContent: delta})
			}
			return !st.consumerGone
		}
	}
	out, err := st.askReasoner(r, input, stream, emit)
	if err != nil {
		return err
	}
	thinking := streamed.String()
	if !stream {
		thinking = nativeThinking(r.native, out)
	} else if r.native == model.ReasoningContent && thinking != "" {
		thinking = reasoning.Thinking(thinking)
	}
	if stream && thinking == "" {
		return fmt.Errorf("no reasoning content")
	}
	msg := model.Message{ID: run.NewID(), Role: model.RoleAssistant, Content: reasoning.ThinkingMessage(thinking), ReasoningContent: thinking, CreatedAt: run.Now()}
	st.messages = append(st.messages, msg)
	step := reasoning.Step{Result: &msg.Content}
	st.addReasoningSteps(step)
	st.addReasoningMessages(msg)
	st.sendOptional(&run.ReasoningCompleted{EventBase: st.base(), Content: reasoning.Completed{ReasoningSteps: []reasoning.Step{step}}, ContentType: reasoning.CompletedContentType})
	return nil
}

// nativeThinking reads the thinking of a native reasoning model's
// answer: its messages' reasoning_content, or its content.
func nativeThinking(kind model.NativeReasoning, out *run.Output) string {
	if kind == model.ReasoningContent {
		return reasoning.Thinking(out.ContentString())
	}
	for _, m := range out.Messages {
		if m.ReasoningContent != "" {
			return m.ReasoningContent
		}
	}
	return ""
}

// addReasoningSteps records steps on the output; its reasoning_content
// becomes their text, replacing what was there, as agno's
// update_run_output_with_reasoning does (so after the chain-of-thought
// loop it holds the last step).
func (st *runState) addReasoningSteps(steps ...reasoning.Step) {
	st.out.ReasoningSteps = append(st.out.ReasoningSteps, steps...)
	st.out.ReasoningContent = reasoning.Text(steps)
}

func (st *runState) addReasoningMessages(msgs ...model.Message) {
	st.out.ReasoningMessages = append(st.out.ReasoningMessages, msgs...)
}

// addUnstored adds messages the model sees in this run but the stored
// run leaves out (agno's add_to_agent_memory=False).
func (st *runState) addUnstored(msgs []model.Message) {
	if st.unstored == nil {
		st.unstored = map[string]bool{}
	}
	for _, m := range msgs {
		st.unstored[m.ID] = true
	}
	st.messages = append(st.messages, msgs...)
}

// fromFirstAssistant are the messages from the first assistant message
// on: what the reasoning agent said and did, not its prompt.
func fromFirstAssistant(msgs []model.Message) []model.Message {
	for i, m := range msgs {
		if m.Role == model.RoleAssistant {
			return append([]model.Message(nil), msgs[i:]...)
		}
	}
	return nil
}

func cmpErr(err error, text string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s", text)
}

// recordToolReasoning turns a think or analyze tool call into a
// reasoning step, as agno does for ReasoningTools and its kin: the step
// joins the output's reasoning_steps and reasoning_content, and with
// stream_events a ReasoningStep event follows the call (ReasoningStarted
// before the first).
func (st *runState) recordToolReasoning(name string, args map[string]any) {
	step, text, ok := reasoning.FromToolCall(name, args)
	if !ok {
		return
	}
	st.out.ReasoningSteps = append(st.out.ReasoningSteps, step)
	st.toolReasoning = append(st.toolReasoning, text...)
	st.out.ReasoningContent += text
	if !st.toolReasoningStarted {
		st.toolReasoningStarted = true
		st.sendOptional(&run.ReasoningStarted{EventBase: st.base()})
	}
	st.sendOptional(&run.ReasoningStep{EventBase: st.base(), Content: step, ContentType: reasoning.StepContentType, ReasoningContent: st.out.ReasoningContent})
}

// completeToolReasoning closes the reasoning the run's tool calls did.
func (st *runState) completeToolReasoning() {
	if !st.toolReasoningStarted || len(st.out.ReasoningSteps) == 0 {
		return
	}
	st.sendOptional(&run.ReasoningCompleted{EventBase: st.base(), Content: reasoning.Completed{ReasoningSteps: st.out.ReasoningSteps}, ContentType: reasoning.CompletedContentType})
}
