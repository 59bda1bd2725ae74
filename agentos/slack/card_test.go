package slack

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
)

func feedbackReq() *run.Requirement {
	return run.NewRequirement(&run.ToolExecution{ToolCallID: "c2", ToolName: "ask_user", UserFeedbackSchema: []run.FeedbackQuestion{
		{Question: "Which colours?", MultiSelect: true, Options: []run.FeedbackOption{{Label: "red"}, {Label: "blue"}}},
		{Question: "Size?", Options: []run.FeedbackOption{{Label: "S"}, {Label: "L"}}},
	}})
}

func externalReq() *run.Requirement {
	return run.NewRequirement(&run.ToolExecution{ToolCallID: "c3", ToolName: "deploy", ToolArgs: map[string]any{"env": "prod"}, ExternalExecutionRequired: true})
}

func cardJSON(t *testing.T, c *Card) string {
	t.Helper()
	b, err := json.Marshal(c.Blocks())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Feedback and external rows carry agno's block and action ids, with
// one Submit for the card.
func TestCardFormRows(t *testing.T) {
	fb, ex := feedbackReq(), externalReq()
	c := &Card{RunID: "run-1", AwaitingTS: "9.1", Requirements: []*run.Requirement{fb, ex}}
	js := cardJSON(t, c)
	for _, want := range []string{
		`"block_id":"row:` + fb.ID + `:user_feedback:pending"`,
		`"block_id":"row:` + fb.ID + `:user_feedback:pending:q0"`, `"type":"checkboxes","action_id":"feedback_select:0"`,
		`"block_id":"row:` + fb.ID + `:user_feedback:pending:q1"`, `"action_id":"feedback_select:1"`,
		`"block_id":"row:` + ex.ID + `:external_execution:pending:result"`, `"action_id":"external_result"`,
		`"block_id":"pause:run-1"`, `"action_id":"submit_pause"`, `"value":"run-1|9.1"`, "env",
	} {
		if !strings.Contains(js, want) {
			t.Errorf("card lacks %s:\n%s", want, js)
		}
	}
	if c.AutoSubmit() {
		t.Fatal("a form card is submitted with its button")
	}
	errs := c.Apply()
	if len(errs) != 3 || errs[0].Field != "Which colours?" || errs[1].Field != "Size?" || errs[2].Message != "Result must be non-empty" {
		t.Fatalf("errors %+v", errs)
	}
	if text := FixText(errs); !strings.HasPrefix(text, "Please fix the following and submit again:\n* Which colours?: No option selected") {
		t.Fatal(text)
	}

	fb, ex = feedbackReq(), externalReq()
	c = &Card{RunID: "run-1", Requirements: []*run.Requirement{fb, ex}, Values: map[string]map[string]StateValue{
		"row:" + fb.ID + ":user_feedback:pending:q0":          {"feedback_select:0": {Selected: []string{"red", "blue"}}},
		"row:" + fb.ID + ":user_feedback:pending:q1":          {"feedback_select:1": {Selected: []string{"L"}}},
		"row:" + ex.ID + ":external_execution:pending:result": {"external_result": {Value: " deployed v2 "}},
	}}
	if errs := c.Apply(); len(errs) != 0 {
		t.Fatal(errs)
	}
	if !fb.Resolved() || !ex.Resolved() || *ex.ExternalExecutionResult != "deployed v2" ||
		!slices.Equal(fb.UserFeedbackSchema[0].SelectedOptions, []string{"red", "blue"}) {
		t.Fatalf("answers not applied: %+v %+v", fb, ex)
	}
	// The values typed are kept when the card is redrawn.
	if js := cardJSON(t, c); !strings.Contains(js, `"initial_value":" deployed v2 "`) || !strings.Contains(js, `"initial_options"`) {
		t.Fatalf("typed values lost: %s", js)
	}
	if got := Answered(c.Requirements, "note"); len(got) != 3 {
		t.Fatalf("answered blocks %d", len(got))
	}
}

// Confirmations: undecided rows are rejected with agno's note; two
// rows auto-submit only once both are decided, and a rejection brings
// Submit.
func TestCardConfirmations(t *testing.T) {
	a := run.NewRequirement(&run.ToolExecution{ToolCallID: "c1", ToolName: "pay", RequiresConfirmation: true})
	b := run.NewRequirement(&run.ToolExecution{ToolCallID: "c2", ToolName: "refund", RequiresConfirmation: true})
	c := &Card{RunID: "r", Requirements: []*run.Requirement{a, b}, Decisions: map[string]string{a.ID: Approve}}
	if c.AutoSubmit() || strings.Contains(cardJSON(t, c), "submit_pause") {
		t.Fatal("one row is still pending")
	}
	c.Decisions[b.ID] = Approve
	if !c.AutoSubmit() {
		t.Fatal("all approved: submit at once")
	}
	c.Decisions[b.ID] = Reject
	js := cardJSON(t, c)
	if c.AutoSubmit() || !strings.Contains(js, `"block_id":"reject_reason:`+b.ID+`"`) || !strings.Contains(js, "submit_pause") ||
		!strings.Contains(js, `"block_id":"row:`+b.ID+`:confirmation:decided:reject"`) {
		t.Fatalf("rejected card %s", js)
	}
	c.Values = map[string]map[string]StateValue{"reject_reason:" + b.ID: {ActionRejectReason: {Value: "duplicate"}}}
	if errs := c.Apply(); len(errs) != 0 {
		t.Fatal(errs)
	}
	if !*a.Confirmation || *b.Confirmation || *b.ConfirmationNote != "duplicate" {
		t.Fatal("decisions not applied")
	}
	if d := DeniedTasks(c.Requirements); len(d) != 1 || d[0].(TaskChunk).Title != "Denied: refund" {
		t.Fatalf("denied %+v", d)
	}
	x := run.NewRequirement(&run.ToolExecution{ToolCallID: "c3", ToolName: "wipe", RequiresConfirmation: true})
	(&Card{Requirements: []*run.Requirement{x}}).Apply()
	if *x.Confirmation || *x.ConfirmationNote != "No decision made" {
		t.Fatal("an undecided confirmation is rejected")
	}
}

func TestParseAction(t *testing.T) {
	payload := `{"type":"block_actions","user":{"id":"U1"},"team":{"id":"T1"},"channel":{"id":"C1"},
		"message":{"ts":"5.5","thread_ts":"1.1","blocks":[{"block_id":"row:a:b:confirmation:decided:reject"},{"block_id":"row:x:confirmation:pending"}]},
		"state":{"values":{"reject_reason:a:b":{"reject_reason":{"type":"plain_text_input","value":"no"}},
			"q":{"feedback_select:0":{"type":"static_select","selected_option":{"value":"L"}}}}},
		"actions":[{"action_id":"row_approve","block_id":"rowact:x:confirmation","value":"x|run-9|4.4"}]}`
	a, ok, err := ParseAction([]byte(payload))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if a.RunID != "run-9" || a.RequirementID != "x" || a.AwaitingTS != "4.4" || a.Channel != "C1" || a.MessageTS != "5.5" || a.ThreadTS != "1.1" ||
		a.Decisions["a:b"] != Reject || a.Decisions["x"] != Approve || a.Values["reject_reason:a:b"]["reject_reason"].Value != "no" ||
		!slices.Equal(a.Values["q"]["feedback_select:0"].Selected, []string{"L"}) {
		t.Fatalf("%+v", a)
	}
	for _, p := range []string{`{"type":"view_submission"}`, `{"type":"block_actions","actions":[{"action_id":"input_field:x"}]}`} {
		if _, ok, err := ParseAction([]byte(p)); ok || err != nil {
			t.Fatalf("%s: ok=%v err=%v", p, ok, err)
		}
	}
	for _, p := range []string{`{"type":"block_actions","actions":[{"action_id":"row_approve","value":"only-one"}]}`,
		`{"type":"block_actions","actions":[{"action_id":"submit_pause","value":"r|1"}]}`, `{`} {
		if _, _, err := ParseAction([]byte(p)); err == nil {
			t.Fatalf("%s: no error", p)
		}
	}
}

func TestTasksReasoningAndSettle(t *testing.T) {
	ts := NewTasks("Helper")
	if len(ts.Update(&run.RunContent{ReasoningContent: "think"})) != 1 || len(ts.Update(&run.RunContent{ReasoningContent: " more"})) != 0 {
		t.Fatal("one reasoning card while it streams")
	}
	got := ts.Update(&run.RunContent{Content: "answer"})
	if len(got) != 1 || got[0].(TaskChunk).Status != TaskComplete || got[0].(TaskChunk).Output.Elements[0].Elements[0].Text != "think more" {
		t.Fatalf("reasoning closed %+v", got)
	}
	ts.Update(&run.ToolCallStarted{Tool: &run.ToolExecution{ToolCallID: "c1", ToolName: "search"}})
	ts.Update(&run.ToolCallStarted{EventBase: run.EventBase{AgentName: "Web Researcher"}, Tool: &run.ToolExecution{ToolCallID: "c2", ToolName: "fetch"}})
	got = ts.Settle(TaskError)
	if len(got) != 2 || got[1].(TaskChunk).ID != "web_researcher_c2" || got[1].(TaskChunk).Title != "Web Researcher: fetch" || got[1].(TaskChunk).Status != TaskError {
		t.Fatalf("settled %+v", got)
	}
	if len(ts.Settle(TaskComplete)) != 0 {
		t.Fatal("settled twice")
	}
}

// agno's Reasoning card: opened by ReasoningStarted, completed by
// ReasoningCompleted, one card per round (reasoning_0, reasoning_1).
func TestTasksReasoningEvents(t *testing.T) {
	ts := NewTasks("Helper")
	title, text := "Plan", "Multiply."
	got := ts.Update(&run.ReasoningStarted{})
	if len(got) != 1 || got[0].(TaskChunk).ID != "reasoning_0" || got[0].(TaskChunk).Status != TaskInProgress {
		t.Fatalf("started %+v", got)
	}
	if len(ts.Update(&run.ReasoningStep{Content: reasoning.Step{Title: &title, Reasoning: &text}})) != 0 {
		t.Fatal("a step opened a second card")
	}
	got = ts.Update(&run.ReasoningCompleted{})
	if len(got) != 1 || got[0].(TaskChunk).Status != TaskComplete || got[0].(TaskChunk).Output.Elements[0].Elements[0].Text != "## Plan\nMultiply." {
		t.Fatalf("completed %+v", got)
	}
	if got := ts.Update(&run.ReasoningStarted{}); got[0].(TaskChunk).ID != "reasoning_1" {
		t.Fatalf("second round %+v", got)
	}
	ts.Update(&run.ReasoningContentDelta{ReasoningContent: "6 times 7"})
	if got := ts.Settle(TaskComplete); len(got) != 1 || got[0].(TaskChunk).Output.Elements[0].Elements[0].Text != "6 times 7" {
		t.Fatalf("settled %+v", got)
	}
}
