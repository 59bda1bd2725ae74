package slack

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/agno-go/agno/run"
	slackapi "github.com/slack-go/slack"
)

// agno's approval card protocol: Slack sends the block and action ids
// back with every click, so they carry what the handler needs.
//
//	row:<req_id>:<kind>:pending                 a requirement's row
//	row:<req_id>:confirmation:decided:<choice>  a clicked confirmation (approve|reject)
//	rowact:<req_id>:confirmation[...]           its Approve / Deny buttons
//	reject_reason:<req_id>                      the reason of a rejection
//	pause:<run_id>                              the Submit button
const (
	ActionApprove          = "row_approve"
	ActionReject           = "row_reject"
	ActionSubmit           = "submit_pause"
	ActionRejectReason     = "reject_reason"
	ActionFeedbackSelect   = "feedback_select"
	ActionExternalResult   = "external_result"
	ActionInputFieldPrefix = "input_field:"

	Approve = "approve"
	Reject  = "reject"
)

// Slack caps a message at 50 blocks; two stay free for the Submit button
// and the note that rows were left out.
const maxCardBlocks = 50 - 2

// Texts of the card messages (agno's).
const (
	CardText      = "Run paused — please resolve below"
	SubmittedText = "Submitted"
	noDecision    = "No decision made"
)

func rowBlockID(reqID string, kind run.PauseType) string {
	return "row:" + reqID + ":" + string(kind) + ":pending"
}

func decidedBlockID(reqID, choice string) string {
	return "row:" + reqID + ":confirmation:decided:" + choice
}

func rejectReasonBlockID(reqID string) string { return "reject_reason:" + reqID }

func pauseBlockID(runID string) string { return "pause:" + runID }

// rowButtonValue is agno's {req_id}|{run_id}|{awaiting_ts}.
func rowButtonValue(reqID, runID, awaitingTS string) string {
	return reqID + "|" + runID + "|" + awaitingTS
}

// submitValue is agno's {run_id}|{awaiting_ts}.
func submitValue(runID, awaitingTS string) string { return runID + "|" + awaitingTS }

// PauseLabels is agno's awaiting indicator: one line per requirement.
func PauseLabels(reqs []*run.Requirement) string {
	lines := make([]string, 0, len(reqs))
	for _, r := range reqs {
		tool := toolName(r)
		switch r.PauseType() {
		case run.PauseUserInput:
			lines = append(lines, "⏸ *Awaiting input for* `"+tool+"`…")
		case run.PauseUserFeedback:
			lines = append(lines, "⏸ *Awaiting feedback*…")
		case run.PauseExternalExecution:
			lines = append(lines, "⏸ *Awaiting output for* `"+tool+"`…")
		default:
			lines = append(lines, "⏸ *Awaiting approval of* `"+tool+"`…")
		}
	}
	return strings.Join(lines, "\n")
}

func toolName(r *run.Requirement) string {
	if r.ToolExecution != nil && r.ToolExecution.ToolName != "" {
		return r.ToolExecution.ToolName
	}
	return "tool"
}

func toolArgs(r *run.Requirement) map[string]any {
	if r.ToolExecution == nil {
		return nil
	}
	return r.ToolExecution.ToolArgs
}

// renderArg is agno's render_arg_value: strings as they are, the rest
// as JSON, cut for display.
func renderArg(v any) string {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			s = fmt.Sprint(v)
		} else {
			s = string(b)
		}
	}
	return truncate(s, 120)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// argLines renders a call's arguments, sorted, one bullet each.
func argLines(args map[string]any) string {
	if len(args) == 0 {
		return "_(no arguments)_"
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("• " + k + ": `" + renderArg(args[k]) + "`")
	}
	return truncate(b.String(), 2500)
}

// StateValue is one input's value in a click's state (Slack's
// state.values): the text typed, or the options selected.
type StateValue struct {
	Value    string
	Selected []string
}

// Card is the approval card of a paused run: a row per requirement, the
// confirmations decided so far, and the values typed so far (kept when
// the card is redrawn after a click).
type Card struct {
	RunID, AwaitingTS string
	Requirements      []*run.Requirement
	// Decisions: requirement id → Approve or Reject.
	Decisions map[string]string
	// Values: block id → action id → value.
	Values map[string]map[string]StateValue
}

func (c *Card) value(blockID, actionID string) (StateValue, bool) {
	v, ok := c.Values[blockID][actionID]
	return v, ok
}

// pending reports a confirmation row still without a decision.
func (c *Card) pending() bool {
	for _, r := range c.Requirements {
		if r.PauseType() == run.PauseConfirmation && c.Decisions[r.ID] == "" {
			return true
		}
	}
	return false
}

// hasForm reports rows that need typing (input, feedback, a result).
func (c *Card) hasForm() bool {
	for _, r := range c.Requirements {
		if r.PauseType() != run.PauseConfirmation {
			return true
		}
	}
	return false
}

func (c *Card) rejected() bool {
	for _, d := range c.Decisions {
		if d == Reject {
			return true
		}
	}
	return false
}

// AutoSubmit is agno's rule: a click that leaves no confirmation
// pending on a card without a Submit button answers the run at once.
func (c *Card) AutoSubmit() bool { return !c.pending() && !c.showSubmit() }

// showSubmit: a form always has Submit; a rejection gets one (for its
// reason) once every confirmation is decided.
func (c *Card) showSubmit() bool { return c.hasForm() || (c.rejected() && !c.pending()) }

func mrkdwn(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.MarkdownType, s, false, false)
}

func plain(s string) *slackapi.TextBlockObject {
	return slackapi.NewTextBlockObject(slackapi.PlainTextType, s, true, false)
}

func section(blockID, text string) *slackapi.SectionBlock {
	return slackapi.NewSectionBlock(mrkdwn(text), nil, nil, slackapi.SectionBlockOptionBlockID(blockID))
}

// Blocks is the card's Block Kit message.
func (c *Card) Blocks() []slackapi.Block {
	var blocks []slackapi.Block
	shown := 0
	for i, r := range c.Requirements {
		row := c.row(r)
		sep := 0
		if i > 0 {
			sep = 1
		}
		if len(blocks)+sep+len(row) > maxCardBlocks {
			break
		}
		if i > 0 {
			blocks = append(blocks, slackapi.NewDividerBlock())
		}
		blocks = append(blocks, row...)
		shown++
	}
	if left := len(c.Requirements) - shown; left > 0 {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(":warning: _"+strconv.Itoa(left)+
			" more pause row(s) omitted — Slack message cap. Resolve shown rows; remaining re-render after._")))
	}
	if c.showSubmit() {
		blocks = append(blocks, slackapi.NewActionBlock(pauseBlockID(c.RunID),
			slackapi.NewButtonBlockElement(ActionSubmit, submitValue(c.RunID, c.AwaitingTS), plain("Submit")).WithStyle(slackapi.StylePrimary)))
	}
	return blocks
}

func (c *Card) row(r *run.Requirement) []slackapi.Block {
	kind := r.PauseType()
	tool := toolName(r)
	switch kind {
	case run.PauseUserInput:
		out := []slackapi.Block{section(rowBlockID(r.ID, kind), "*Input required:* `"+tool+"`")}
		for _, f := range r.UserInputSchema {
			out = append(out, c.inputField(r.ID, f))
		}
		return out
	case run.PauseUserFeedback:
		out := []slackapi.Block{section(rowBlockID(r.ID, kind), "*Feedback needed:* `"+tool+"`")}
		for i, q := range r.UserFeedbackSchema {
			out = append(out, c.question(r.ID, i, q))
		}
		return out
	case run.PauseExternalExecution:
		bid := rowBlockID(r.ID, kind) + ":result"
		el := slackapi.NewPlainTextInputBlockElement(plain("Paste the execution output here"), ActionExternalResult)
		el.Multiline = true
		if v, ok := c.value(bid, ActionExternalResult); ok {
			el.InitialValue = v.Value
		}
		return []slackapi.Block{
			section(rowBlockID(r.ID, kind), "*Output required:* `"+tool+"`\n"+argLines(toolArgs(r))),
			slackapi.NewInputBlock(bid, plain("Result"), nil, el),
		}
	}
	value := rowButtonValue(r.ID, c.RunID, c.AwaitingTS)
	out := []slackapi.Block{section(rowBlockID(r.ID, kind), "*Approval required:* `"+tool+"`\n"+argLines(toolArgs(r)))}
	switch choice := c.Decisions[r.ID]; choice {
	case Approve, Reject:
		approve := slackapi.NewButtonBlockElement(ActionApprove, value, plain("Approve"))
		deny := slackapi.NewButtonBlockElement(ActionReject, value, plain("Deny"))
		marker := "✅ Approved"
		if choice == Approve {
			approve = slackapi.NewButtonBlockElement(ActionApprove, value, plain("Approved")).WithStyle(slackapi.StylePrimary)
		} else {
			deny = slackapi.NewButtonBlockElement(ActionReject, value, plain("Denied")).WithStyle(slackapi.StyleDanger)
			marker = "❌ Denied"
		}
		out = append(out, slackapi.NewActionBlock("rowact:"+r.ID+":confirmation:selected:"+choice, approve, deny),
			section(decidedBlockID(r.ID, choice), marker))
		if choice == Reject {
			el := slackapi.NewPlainTextInputBlockElement(plain("Why are you rejecting this action?"), ActionRejectReason)
			el.Multiline = true
			if v, ok := c.value(rejectReasonBlockID(r.ID), ActionRejectReason); ok {
				el.InitialValue = v.Value
			}
			in := slackapi.NewInputBlock(rejectReasonBlockID(r.ID), plain("Reason (optional)"), nil, el)
			in.Optional = true
			out = append(out, in)
		}
	default:
		out = append(out, slackapi.NewActionBlock("rowact:"+r.ID+":confirmation",
			slackapi.NewButtonBlockElement(ActionApprove, value, plain("Approve")).WithStyle(slackapi.StylePrimary),
			slackapi.NewButtonBlockElement(ActionReject, value, plain("Deny")).WithStyle(slackapi.StyleDanger)))
	}
	return out
}

var boolOptions = []*slackapi.OptionBlockObject{
	slackapi.NewOptionBlockObject("true", plain("True"), nil),
	slackapi.NewOptionBlockObject("false", plain("False"), nil),
}

// inputField is one user-input field: a True/False select for booleans,
// a text box otherwise (several lines for lists and objects, as JSON).
func (c *Card) inputField(reqID string, f run.UserInputField) slackapi.Block {
	bid := rowBlockID(reqID, run.PauseUserInput) + ":" + f.Name
	aid := ActionInputFieldPrefix + f.Name
	typed, has := c.value(bid, aid)
	var el slackapi.BlockElement
	if fieldKind(f.FieldType) == "bool" {
		sel := slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Select"), aid, boolOptions...)
		pick := ""
		if has && len(typed.Selected) > 0 {
			pick = typed.Selected[0]
		} else if b, ok := f.Value.(bool); ok {
			pick = strconv.FormatBool(b)
		}
		for _, o := range boolOptions {
			if o.Value == pick {
				sel.InitialOption = o
			}
		}
		el = sel
	} else {
		in := slackapi.NewPlainTextInputBlockElement(plain("Enter "+f.Name), aid)
		k := fieldKind(f.FieldType)
		in.Multiline = k == "list" || k == "dict"
		switch {
		case has:
			in.InitialValue = typed.Value
		case f.Value != nil:
			if s, ok := f.Value.(string); ok {
				in.InitialValue = s
			} else if b, err := json.Marshal(f.Value); err == nil {
				in.InitialValue = string(b)
			}
		}
		el = in
	}
	var hint *slackapi.TextBlockObject
	if f.Description != "" {
		hint = plain(f.Description)
	}
	return slackapi.NewInputBlock(bid, plain(f.Name), hint, el)
}

// question is one feedback question: checkboxes when several answers are
// allowed, a select otherwise; an option's label is its value.
func (c *Card) question(reqID string, i int, q run.FeedbackQuestion) slackapi.Block {
	bid := rowBlockID(reqID, run.PauseUserFeedback) + ":q" + strconv.Itoa(i)
	aid := ActionFeedbackSelect + ":" + strconv.Itoa(i)
	opts := make([]*slackapi.OptionBlockObject, 0, len(q.Options))
	for _, o := range q.Options {
		var desc *slackapi.TextBlockObject
		if o.Description != "" {
			desc = plain(o.Description)
		}
		opts = append(opts, slackapi.NewOptionBlockObject(o.Label, plain(o.Label), desc))
	}
	typed, _ := c.value(bid, aid)
	picked := func(o *slackapi.OptionBlockObject) bool {
		for _, s := range typed.Selected {
			if s == o.Value {
				return true
			}
		}
		return false
	}
	label := q.Question
	if label == "" {
		label = "Question " + strconv.Itoa(i+1)
	}
	var el slackapi.BlockElement
	if q.MultiSelect {
		cb := slackapi.NewCheckboxGroupsBlockElement(aid, opts...)
		for _, o := range opts {
			if picked(o) {
				cb.InitialOptions = append(cb.InitialOptions, o)
			}
		}
		el = cb
	} else {
		sel := slackapi.NewOptionsSelectBlockElement(slackapi.OptTypeStatic, plain("Select one"), aid, opts...)
		for _, o := range opts {
			if picked(o) {
				sel.InitialOption = o
			}
		}
		el = sel
	}
	return slackapi.NewInputBlock(bid, plain(label), nil, el)
}

// fieldKind is the Python type name of a user-input field ("str",
// "int", "float", "bool", "list", "dict"): tool schemas write them so.
func fieldKind(t string) string { return strings.ToLower(strings.TrimSpace(t)) }

// ParseError is one invalid answer on a submitted card.
type ParseError struct {
	RequirementID, Field, Message string
}

// FixText is agno's ephemeral message for invalid answers.
func FixText(errs []ParseError) string {
	lines := make([]string, 0, len(errs))
	for _, e := range errs {
		lines = append(lines, "* "+e.Field+": "+e.Message)
	}
	return "Please fix the following and submit again:\n" + strings.Join(lines, "\n")
}

// Apply is agno's parse_submit_payload + apply_decisions: it answers
// each requirement from the card (a confirmation never decided is
// rejected, as agno keeps runs safe) and returns the answers that do not
// parse; with any error nothing should be continued.
func (c *Card) Apply() []ParseError {
	var errs []ParseError
	bad := func(r *run.Requirement, field, msg string) {
		errs = append(errs, ParseError{RequirementID: r.ID, Field: field, Message: msg})
	}
	for _, r := range c.Requirements {
		switch r.PauseType() {
		case run.PauseConfirmation:
			switch c.Decisions[r.ID] {
			case Approve:
				_ = r.Confirm()
			case Reject:
				reason, _ := c.value(rejectReasonBlockID(r.ID), ActionRejectReason)
				_ = r.Reject(strings.TrimSpace(reason.Value))
			default:
				_ = r.Reject(noDecision)
			}
		case run.PauseUserInput:
			values := map[string]any{}
			for _, f := range r.UserInputSchema {
				bid := rowBlockID(r.ID, run.PauseUserInput) + ":" + f.Name
				v, _ := c.value(bid, ActionInputFieldPrefix+f.Name)
				raw := v.Value
				if len(v.Selected) > 0 {
					raw = v.Selected[0]
				}
				if strings.TrimSpace(raw) == "" {
					if f.Value != nil {
						continue // already given
					}
					bad(r, f.Name, "a value is required")
					continue
				}
				val, err := coerce(raw, f.FieldType)
				if err != nil {
					bad(r, f.Name, err.Error())
					continue
				}
				values[f.Name] = val
			}
			if err := r.ProvideUserInput(values); err != nil && len(values) > 0 {
				bad(r, toolName(r), err.Error())
			}
		case run.PauseUserFeedback:
			sel := map[string][]string{}
			for i, q := range r.UserFeedbackSchema {
				bid := rowBlockID(r.ID, run.PauseUserFeedback) + ":q" + strconv.Itoa(i)
				v, _ := c.value(bid, ActionFeedbackSelect+":"+strconv.Itoa(i))
				if len(v.Selected) == 0 {
					bad(r, q.Question, "No option selected")
					continue
				}
				sel[q.Question] = v.Selected
			}
			if err := r.ProvideUserFeedback(sel); err != nil {
				bad(r, toolName(r), err.Error())
			}
		case run.PauseExternalExecution:
			v, _ := c.value(rowBlockID(r.ID, run.PauseExternalExecution)+":result", ActionExternalResult)
			res := strings.TrimSpace(v.Value)
			if res == "" {
				bad(r, "result", "Result must be non-empty")
				continue
			}
			if err := r.SetExternalResult(res); err != nil {
				bad(r, "result", err.Error())
			}
		}
	}
	return errs
}

// coerce is agno's _coerce_input_value: the text typed as the field's
// declared type.
func coerce(raw, fieldType string) (any, error) {
	switch k := fieldKind(fieldType); k {
	case "int":
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("expected a whole number, got %q", raw)
		}
		return n, nil
	case "float":
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, fmt.Errorf("expected a number, got %q", raw)
		}
		return f, nil
	case "bool":
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true", "1", "yes", "y":
			return true, nil
		}
		return false, nil
	case "list", "dict":
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return nil, fmt.Errorf("expected JSON (%s): %v", k, err)
		}
		if _, ok := v.([]any); k == "list" && !ok {
			return nil, fmt.Errorf("expected a JSON list, got %s", raw)
		}
		if _, ok := v.(map[string]any); k == "dict" && !ok {
			return nil, fmt.Errorf("expected a JSON object, got %s", raw)
		}
		return v, nil
	}
	return raw, nil
}

// Answered is the read-only card once the run is answered (agno's
// response_blocks): a line per requirement saying how it was answered,
// and a note (who answered, or where).
func Answered(reqs []*run.Requirement, note string) []slackapi.Block {
	var blocks []slackapi.Block
	for i, r := range reqs {
		if len(blocks) >= maxCardBlocks {
			break
		}
		blocks = append(blocks, section("done:"+strconv.Itoa(i), "`"+toolName(r)+"` — "+answerText(r)))
	}
	if note != "" {
		blocks = append(blocks, slackapi.NewContextBlock("", mrkdwn(note)))
	}
	return blocks
}

func answerText(r *run.Requirement) string {
	t := r.ToolExecution
	switch r.PauseType() {
	case run.PauseConfirmation:
		switch {
		case r.Confirmation != nil && *r.Confirmation, t != nil && t.Confirmed != nil && *t.Confirmed:
			return "✅ Approved"
		case r.Confirmation != nil, t != nil && t.Confirmed != nil:
			if r.ConfirmationNote != nil && *r.ConfirmationNote != "" {
				return "❌ Denied: " + truncate(*r.ConfirmationNote, 200)
			}
			return "❌ Denied"
		}
	case run.PauseUserInput:
		if !r.NeedsUserInput() {
			parts := make([]string, 0, len(r.UserInputSchema))
			for _, f := range r.UserInputSchema {
				parts = append(parts, f.Name+"="+renderArg(f.Value))
			}
			return "✏️ " + strings.Join(parts, ", ")
		}
	case run.PauseUserFeedback:
		if !r.NeedsUserFeedback() {
			parts := make([]string, 0, len(r.UserFeedbackSchema))
			for _, q := range r.UserFeedbackSchema {
				parts = append(parts, q.Question+" → "+strings.Join(q.SelectedOptions, ", "))
			}
			return "💬 " + truncate(strings.Join(parts, "; "), 500)
		}
	case run.PauseExternalExecution:
		if r.ExternalExecutionResult != nil {
			return "📎 Result given"
		}
	}
	return "answered"
}

// DeniedTasks are agno's "Denied: tool(args)" task cards, streamed
// before a continued run's reply.
func DeniedTasks(reqs []*run.Requirement) []slackapi.StreamChunk {
	var out []slackapi.StreamChunk
	for _, r := range reqs {
		if r.PauseType() != run.PauseConfirmation || r.Confirmation == nil || *r.Confirmation {
			continue
		}
		args := toolArgs(r)
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+"="+truncate(fmt.Sprint(args[k]), 40))
		}
		title := "Denied: " + toolName(r)
		if len(parts) > 0 {
			title += "(" + strings.Join(parts, ", ") + ")"
		}
		out = append(out, NewTaskChunk("approval:"+r.ID, truncate(title, 120), TaskComplete, ""))
	}
	return out
}
