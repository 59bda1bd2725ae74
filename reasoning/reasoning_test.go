package reasoning

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStepForms(t *testing.T) {
	title, next, c := "Plan", FinalAnswer, Confidence(1)
	s := Step{Title: &title, NextAction: &next, Confidence: &c}
	ev, _ := json.Marshal(s)
	stored, _ := s.StoredJSON()
	list, _ := json.Marshal(Steps{s})
	// agno's events drop None (exclude_none); its stored steps keep every
	// field (model_dump); both write the float as Python does.
	if string(ev) != `{"title":"Plan","next_action":"final_answer","confidence":1.0}` {
		t.Errorf("event form %s", ev)
	}
	if string(stored) != `{"title":"Plan","action":null,"result":null,"reasoning":null,"next_action":"final_answer","confidence":1.0}` || string(list) != "["+string(stored)+"]" {
		t.Errorf("stored form %s %s", stored, list)
	}
	if s.Text() != "## Plan\n\n" {
		t.Errorf("text %q", s.Text())
	}
}

func TestNextAction(t *testing.T) {
	odd := NextAction("ponder")
	for _, c := range []struct {
		step Step
		want NextAction
	}{{Step{}, FinalAnswer}, {Step{NextAction: &odd}, FinalAnswer}, {Step{NextAction: ptr(Reset)}, Reset}, {Step{NextAction: ptr(Continue)}, Continue}} {
		if got := c.step.Next(); got != c.want {
			t.Errorf("Next() = %s, want %s", got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeSteps(t *testing.T) {
	steps, err := DecodeSteps(`{"reasoning_steps":[{"title":"a","confidence":0.5},{"title":"b"}]}`)
	if err != nil || len(steps) != 2 || *steps[1].Title != "b" || float64(*steps[0].Confidence) != 0.5 {
		t.Fatalf("%v %v", steps, err)
	}
	if _, err := DecodeSteps("not json"); err == nil {
		t.Fatal("bad output decoded")
	}
	if _, err := DecodeSteps(nil); err == nil {
		t.Fatal("no output decoded")
	}
	if steps, err := DecodeSteps(map[string]any{"reasoning_steps": []any{map[string]any{"result": "r"}}}); err != nil || *steps[0].Result != "r" {
		t.Fatalf("map: %v %v", steps, err)
	}
}

func TestThinking(t *testing.T) {
	if got := Thinking("pre <think> inner </think> answer"); got != "inner" {
		t.Errorf("tags: %q", got)
	}
	if got := Thinking("no tags"); got != "no tags" {
		t.Errorf("plain: %q", got)
	}
	if got := Thinking("</think> reversed <think>"); got != "</think> reversed <think>" {
		t.Errorf("reversed: %q", got)
	}
}

// agno's update_reasoning_content_from_tool_call, case by case.
func TestFromToolCall(t *testing.T) {
	s, text, ok := FromToolCall("think", map[string]any{"title": "Plan", "thought": "Multiply.", "action": "compute", "confidence": 0.8})
	if !ok || text != "## Plan\nMultiply.\nAction: compute\nConfidence: 0.8\n\n" || *s.NextAction != Continue || s.Result != nil {
		t.Errorf("think: %q %+v", text, s)
	}
	s, text, ok = FromToolCall("Analyze", map[string]any{"title": "Check", "result": "42", "analysis": "Correct.", "next_action": "finalize", "confidence": 1.0})
	if !ok || text != "## Check\nResult: 42\nCorrect.\nNext Action: finalize\nConfidence: 1.0\n\n" || *s.NextAction != FinalAnswer || s.Action != nil {
		t.Errorf("analyze: %q %+v", text, s)
	}
	s, text, ok = FromToolCall("think", map[string]any{"thought": "Hmm."})
	if !ok || text != "## Thinking\nHmm.\n\n" || *s.Title != "Thinking" || s.NextAction != nil {
		t.Errorf("simple think: %q %+v", text, s)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{{"search", map[string]any{"title": "x", "thought": "y"}}, {"analyze", map[string]any{"analysis": "no title"}}, {"think", map[string]any{"title": "no thought"}}} {
		if _, _, ok := FromToolCall(c.name, c.args); ok {
			t.Errorf("%s %v made a step", c.name, c.args)
		}
	}
}

func TestInstructionsBounds(t *testing.T) {
	got := Instructions(2, 7)
	if want := "Adhere strictly to a minimum of 2 and maximum of 7 steps"; !strings.Contains(got, want) {
		t.Errorf("instructions lack %q", want)
	}
}
