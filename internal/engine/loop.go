package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tracing"
)

// Tool-call texts agno gives the model.
const (
	unknownToolText   = "Error: The requested tool does not exist or is not available."
	toolLimitTextFmt  = "Tool call limit reached. Tool call %s not executed. Don't try to execute it again."
	rejectedToolText  = "Function call was rejected by the user"
	takeNoteOfContent = "Take note of the following content"
)

// loop is the model ↔ tool loop (agno's Model.response).
func (st *runState) loop() error {
	for {
		if err := st.ctx.Err(); err != nil {
			return context.Cause(st.ctx)
		}
		resp, err := st.callModel()
		if err != nil {
			return err
		}
		msg := model.Message{
			ID:               run.NewID(),
			Role:             model.RoleAssistant,
			Content:          resp.Content,
			ReasoningContent: resp.ReasoningContent,
			ToolCalls:        resp.ToolCalls,
			ProviderData:     resp.ProviderData,
			Metrics:          &resp.Usage,
			CreatedAt:        run.Now(),
		}
		st.messages = append(st.messages, msg)
		if len(resp.ToolCalls) == 0 {
			return nil
		}
		stop, err := st.runToolCalls(len(st.messages)-1, resp.ToolCalls)
		if err != nil {
			return err
		}
		if stop || st.pausedTools() || len(st.out.ActiveRequirements()) > 0 {
			return nil
		}
	}
}

// callModel asks the primary model, then fallbacks in agno's order.
func (st *runState) callModel() (*model.Response, error) {
	resp, err := st.invoke(st.spec.Model)
	if err == nil || st.ctx.Err() != nil {
		return resp, err
	}
	for _, m := range pickFallbacks(st.spec.fallbacks(), err) {
		st.spec.logger.Warn("model failed, trying fallback", "error", err, "fallback", m.Info().ID)
		if resp, ferr := st.invoke(m); ferr == nil {
			return resp, nil
		} else if st.ctx.Err() != nil {
			return nil, ferr
		}
	}
	return nil, err
}

func pickFallbacks(f Fallbacks, err error) []model.Model {
	pe, ok := model.AsProviderError(err)
	if !ok {
		return f.OnError
	}
	switch {
	case pe.ContextOverflow:
		// An overflow is a reason to fall back even without its own list
		// (agno's get_fallback_models): on_error then.
		if len(f.OnContextOverflow) > 0 {
			return f.OnContextOverflow
		}
		return f.OnError
	case pe.RateLimited():
		if len(f.OnRateLimit) > 0 {
			return f.OnRateLimit
		}
		return f.OnError
	case pe.StatusCode >= 400 && pe.StatusCode < 500:
		return nil
	}
	return f.OnError
}

// invoke sends one request to m and streams its content as events.
func (st *runState) invoke(m model.Model) (_ *model.Response, err error) {
	info := m.Info()
	structured := st.schema != nil && !off(st.spec.ParseResponse)
	msgs, err := st.media.Messages(st.ctx, st.messages)
	if err != nil {
		return nil, err
	}
	req := &model.Request{
		Messages:       msgs,
		Tools:          st.defs,
		ToolChoice:     st.spec.ToolChoice,
		ResponseFormat: st.responseFormat(info),
		Stream:         st.stream && !structured,
	}
	if len(req.Tools) == 0 {
		req.ToolChoice = nil
	}
	if st.wantsEvent() {
		st.sendOptional(&run.ModelRequestStarted{EventBase: st.base(), Model: info.ID, ModelProvider: info.Provider})
	}
	resp := &model.Response{}
	start := time.Now()
	gctx, span := tracing.StartModel(st.ctx, info, req)
	defer func() { span.EndModel(resp, err) }()
	var ds deltas
	for chunk, err := range m.Generate(gctx, req) {
		if err != nil {
			if st.ctx.Err() != nil {
				return nil, context.Cause(st.ctx)
			}
			return nil, err
		}
		resp.Append(chunk)
		if req.Stream && (chunk.Content != "" || chunk.ReasoningContent != "") {
			st.send(ds.next(st, start, chunk))
			if st.consumerGone {
				return nil, context.Cause(st.ctx)
			}
		}
	}
	if resp.Usage.TimeToFirstToken == 0 && req.Stream {
		resp.Usage.TimeToFirstToken = time.Since(start)
	}
	st.content = append(st.content, resp.Content...)
	st.reasoning = append(st.reasoning, resp.ReasoningContent...)
	if !req.Stream && !structured && resp.Content != "" && st.stream {
		b := st.base()
		st.send(&run.RunContent{EventBase: b, Content: resp.Content, ContentType: "str", ReasoningContent: resp.ReasoningContent, WorkflowAgent: run.ContentFlag(&b, false)})
	}
	addUsage(st.out.Metrics, "model", info, &resp.Usage)
	if st.wantsEvent() {
		ev := &run.ModelRequestCompleted{
			EventBase: st.base(), Model: info.ID, ModelProvider: info.Provider,
			InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens, TotalTokens: resp.Usage.TotalTokens,
			ReasoningTokens: resp.Usage.ReasoningTokens, CacheReadTokens: resp.Usage.CacheReadTokens, CacheWriteTokens: resp.Usage.CacheWriteTokens,
		}
		if resp.Usage.TimeToFirstToken > 0 {
			t := resp.Usage.TimeToFirstToken.Seconds()
			ev.TimeToFirstToken = &t
		}
		st.sendOptional(ev)
	}
	return resp, nil
}

// deltas makes the RunContent events of one streamed response, the most
// frequent event: the run's identity fields are built once and copied, the
// clock is read through the monotonic reading of the request's start, and
// events come from blocks (one allocation per block, not per token). A
// block is never reused, so a consumer may keep any event; one kept event
// keeps its block (at most 16 KiB) alive.
type deltas struct {
	base  run.EventBase
	wall  int64 // start, Unix nanoseconds
	block []run.RunContent
	grown int
}

// deltaBlocks are block lengths that fill the allocator's 2, 4, 8 and 16
// KiB size classes (a block of pointerful objects carries an 8-byte
// header), growing so a short answer does not pay for a long one.
var deltaBlocks = func() (n [4]int) {
	size := int(unsafe.Sizeof(run.RunContent{}))
	for i := range n {
		n[i] = max(1, (2048<<i-8)/size)
	}
	return n
}()

func (d *deltas) next(st *runState, start time.Time, c *model.Chunk) *run.RunContent {
	if d.wall == 0 {
		d.base = st.base()
		d.base.Event = (&run.RunContent{EventBase: d.base}).Kind()
		d.wall = start.UnixNano()
	}
	if len(d.block) == 0 {
		d.block = make([]run.RunContent, deltaBlocks[d.grown])
		d.grown = min(d.grown+1, len(deltaBlocks)-1)
	}
	e := &d.block[0]
	d.block = d.block[1:]
	e.EventBase = d.base
	// The second run.Now would give, without a wall-clock read per token.
	e.CreatedAt = (d.wall + int64(time.Since(start))) / int64(time.Second)
	e.Content, e.ContentType, e.ReasoningContent = c.Content, "str", c.ReasoningContent
	e.WorkflowAgent = run.ContentFlag(&d.base, false)
	return e
}

// call is one tool call of an assistant turn.
type call struct {
	tc     model.ToolCall
	fn     *tool.Function
	exec   *run.ToolExecution
	args   map[string]any
	raw    tool.Arguments
	result tool.Result
	err    error
	// text is the tool message content for calls that are not run.
	text    string
	skip    bool // no tool message (paused)
	runIt   bool
	elapsed time.Duration
}

// runToolCalls executes one assistant turn's tool calls: HITL-flagged
// calls pause (the others still run), unknown tools and bad arguments get
// agno's error messages, and runnable calls run concurrently with their
// results appended in call order. It reports whether the loop must stop.
func (st *runState) runToolCalls(assistantIdx int, calls []model.ToolCall) (bool, error) {
	batch := make([]*call, len(calls))
	// The required approvals of one pause share an id (agno stamps one
	// approval per pause); AgentOS records it.
	approvalID := ""
	for i, tc := range calls {
		c := &call{tc: tc}
		batch[i] = c
		st.toolCalls++
		c.fn = st.function(tc.Function.Name)
		if c.fn == nil {
			c.text = unknownToolText
			continue
		}
		args := c.fn.DecodeArguments(tc.Function.Arguments)
		if args.Normalized != tc.Function.Arguments {
			st.messages[assistantIdx].ToolCalls[i].Function.Arguments = args.Normalized
		}
		c.args, c.raw = args.Values, args
		c.exec = &run.ToolExecution{
			ToolCallID:        tc.ID,
			ToolName:          tc.Function.Name,
			ToolArgs:          args.Values,
			StopAfterToolCall: c.fn.StopAfterToolCall,
			CreatedAt:         run.Now(),
		}
		st.out.Tools = append(st.out.Tools, c.exec)
		switch {
		case st.spec.ToolCallLimit > 0 && st.toolCalls > st.spec.ToolCallLimit:
			c.text = sprintf(toolLimitTextFmt, tc.Function.Name)
			c.exec.ToolCallError = true
		case args.Error != "":
			c.text = args.Error
			c.exec.ToolCallError = true
		case c.fn.Interaction != nil && !st.asks(c):
			c.runIt = true
		case c.fn.RequiresConfirmation || c.fn.RequiresUserInput || c.fn.ExternalExecution:
			c.exec.RequiresConfirmation = c.fn.RequiresConfirmation
			c.exec.RequiresUserInput = c.fn.RequiresUserInput
			c.exec.ExternalExecutionRequired = c.fn.ExternalExecution
			c.exec.ExternalExecutionSilent = c.fn.ExternalExecutionSilent
			c.exec.ApprovalType = c.fn.ApprovalType
			if c.fn.ApprovalType == tool.ApprovalRequired {
				if approvalID == "" {
					approvalID = run.NewID()
				}
				c.exec.ApprovalID = approvalID
			}
			if c.fn.RequiresUserInput && c.fn.Interaction == nil {
				c.exec.UserInputSchema = c.fn.UserInputSchema(c.args)
			}
			st.out.Requirements = append(st.out.Requirements, run.NewRequirement(c.exec))
			c.skip = true
		default:
			c.runIt = true
		}
	}
	if err := st.execute(batch); err != nil {
		return false, err
	}
	return st.appendToolResults(batch), nil
}

// asks builds an interaction's form or questions onto the call's
// execution and reports whether there is anything to ask.
func (st *runState) asks(c *call) bool {
	fields, questions := c.fn.Interaction.Ask(c.args)
	c.exec.UserInputSchema, c.exec.UserFeedbackSchema = fields, questions
	return len(fields) > 0 || len(questions) > 0
}

// execute runs the runnable calls: inline when there is one, else
// concurrently, forwarding events of nested runs live and emitting
// completions in call order.
func (st *runState) execute(batch []*call) error {
	var runnable []*call
	events := st.wantsEvent()
	for _, c := range batch {
		if events && c.exec != nil && !c.skip {
			st.sendOptional(&run.ToolCallStarted{EventBase: st.base(), Tool: c.exec.Clone()})
		}
		if c.runIt {
			runnable = append(runnable, c)
		}
	}
	if len(runnable) == 1 {
		c := runnable[0]
		st.invokeTool(st.ctx, c, st.forward)
	} else if len(runnable) > 1 {
		st.invokeConcurrently(runnable)
	}
	if err := st.ctx.Err(); err != nil {
		// Nested runs the tools started are kept even when cancelled.
		for _, c := range runnable {
			for _, child := range c.result.ChildRuns {
				st.addChildRun(child)
			}
		}
		return context.Cause(st.ctx)
	}
	var crashed error
	for _, c := range batch {
		if c.exec == nil || c.skip {
			continue
		}
		st.completeTool(c)
		var pe *safe.PanicError
		if crashed == nil && errors.As(c.err, &pe) {
			crashed = pe
		}
	}
	// A panicking tool is a bug, not an answer for the model: the run
	// ends ERROR (the panic and its stack are in the log).
	return crashed
}

type toolItem struct {
	ev   run.Event
	done *call
}

func (st *runState) invokeConcurrently(calls []*call) {
	items := make(chan toolItem, 64)
	ctx := st.ctx
	for _, c := range calls {
		go func() {
			defer safe.Recover(st.spec.logger, "tool call "+c.tc.Function.Name, func(pe *safe.PanicError) {
				c.err = pe
				items <- toolItem{done: c}
			})
			emit := func(e run.Event) bool {
				select {
				case items <- toolItem{ev: e}:
					return true
				case <-ctx.Done():
					return false
				}
			}
			st.invokeTool(ctx, c, emit)
			items <- toolItem{done: c}
		}()
	}
	for pending := len(calls); pending > 0; {
		it := <-items
		if it.done != nil {
			pending--
			continue
		}
		st.forward(it.ev)
	}
}

// invokeTool runs one call with the run context and an emitter for
// nested-run events attached.
func (st *runState) invokeTool(ctx context.Context, c *call, emit run.Emitter) {
	ctx = run.WithEmitter(ctx, emit)
	ctx, span := tracing.StartTool(ctx, c.fn.Name, c.fn.Description, c.raw.Normalized)
	defer func() { span.EndTool(c.result.Content, c.err) }()
	start := time.Now()
	call := &tool.Call{Function: c.fn, ToolCallID: c.tc.ID}
	if c.raw.Values != nil {
		c.result, c.err = c.fn.InvokeArgs(ctx, call, c.raw, st.spec.ToolHooks...)
	} else {
		c.result, c.err = c.fn.Invoke(ctx, call, c.args, st.spec.ToolHooks...)
	}
	c.elapsed = time.Since(start)
}

// completeTool records a finished call and emits its completion.
func (st *runState) completeTool(c *call) {
	e := c.exec
	content := c.text
	if c.runIt {
		e.Metrics = &run.ToolMetrics{Duration: c.elapsed.Seconds()}
		if c.err != nil {
			content = c.err.Error()
			e.ToolCallError = true
		} else {
			content = c.result.Content
			e.ChildRunID = c.result.ChildRunID
			for _, child := range c.result.ChildRuns {
				st.addChildRun(child)
				if e.ChildRunID == "" {
					e.ChildRunID = child.RunID
				}
			}
			if len(c.result.Requirements) > 0 {
				st.out.Requirements = append(st.out.Requirements, c.result.Requirements...)
			}
		}
	}
	e.SetResult(content)
	if st.wantsEvent() {
		ev := &run.ToolCallCompleted{EventBase: st.base(), Tool: e.Clone(), Content: content}
		if c.runIt {
			// agno's event says what was called and how long it took; the
			// result is in the tool.
			args := c.raw
			if args.Values == nil {
				args.Values = c.args
			}
			ev.Content = fmt.Sprintf("%s completed in %.4fs. ", callString(c.tc.Function.Name, args), c.elapsed.Seconds())
		}
		st.sendOptional(ev)
		// Like ToolCallCompleted, agno emits ToolCallError only with
		// stream_events; the error is in the tool message either way.
		if e.ToolCallError {
			st.sendOptional(&run.ToolCallError{EventBase: st.base(), Tool: e.Clone(), Error: content})
		}
	}
	if c.runIt {
		st.recordToolReasoning(e.ToolName, e.ToolArgs)
	}
}

// appendToolResults adds tool messages in call order, applies
// show_result, and reports whether the loop stops after this batch.
func (st *runState) appendToolResults(batch []*call) bool {
	stop := false
	var images []model.Image
	for _, c := range batch {
		if c.skip {
			continue
		}
		msg := model.Message{ID: run.NewID(), Role: model.RoleTool, ToolCallID: c.tc.ID, ToolName: c.tc.Function.Name, CreatedAt: run.Now()}
		if c.exec != nil {
			msg.Content = c.exec.ResultText()
			msg.ToolCallError = c.exec.ToolCallError
			msg.StopAfterToolCall = c.exec.StopAfterToolCall
			if c.raw.Exact {
				msg.ToolArgs = json.RawMessage(c.raw.Normalized)
			} else if b, err := json.Marshal(c.exec.ToolArgs); err == nil && c.exec.ToolArgs != nil {
				msg.ToolArgs = b
			}
		} else {
			msg.Content = c.text
			msg.ToolCallError = true
		}
		st.messages = append(st.messages, msg)
		if c.runIt && c.err == nil {
			images = append(images, c.result.Images...)
			st.out.Files = append(st.out.Files, c.result.Files...)
			if c.fn.ShowResult && c.result.Content != "" {
				st.content = append(st.content, c.result.Content...)
				if st.stream {
					b := st.base()
					st.send(&run.RunContent{EventBase: b, Content: c.result.Content, ContentType: "str", WorkflowAgent: run.ContentFlag(&b, false)})
				}
			}
			if c.fn.StopAfterToolCall || c.result.Stop {
				stop = true
			}
		}
	}
	if len(images) > 0 {
		st.out.Images = append(st.out.Images, images...)
		st.messages = append(st.messages, model.Message{ID: run.NewID(), Role: model.RoleUser, Content: takeNoteOfContent, Images: images, CreatedAt: run.Now()})
	}
	return stop
}

// callString is agno's FunctionCall.get_call_str: name(k=v, ...) in the
// model's argument order, with Python's str of each value, a long string
// argument as "...", and name(...) when the whole is too long (agno
// measures against the terminal width, 80 without one).
func callString(name string, args tool.Arguments) string {
	const width = 80
	if args.Values == nil {
		return name + "()"
	}
	maxArg := max(20, (width-len(name)-4)/2)
	parts := make([]string, 0, len(args.Values))
	for _, k := range topLevelKeys(args.Normalized, args.Values) {
		v := args.Values[k]
		text := pythonStr(v)
		if s, ok := v.(string); ok && len([]rune(s)) > maxArg {
			text = "..."
		}
		parts = append(parts, k+"="+text)
	}
	out := name + "(" + strings.Join(parts, ", ") + ")"
	if len([]rune(out)) > width {
		return name + "(...)"
	}
	return out
}

// topLevelKeys are the keys of a JSON object in their written order,
// falling back to sorted keys of values when the text is not that object.
func topLevelKeys(text string, values map[string]any) []string {
	dec := json.NewDecoder(strings.NewReader(text))
	var keys []string
	if t, err := dec.Token(); err == nil && t == json.Delim('{') {
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				break
			}
			k, _ := t.(string)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			if _, ok := values[k]; ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == len(values) {
		return keys
	}
	keys = keys[:0]
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
