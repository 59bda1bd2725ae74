// Package reasoning is agno's reasoning vocabulary: the reasoning step
// (agno's ReasoningStep and NextAction), the default chain-of-thought
// reasoning agent's prompt and output schema, how steps read as text, how
// a native reasoning model's thinking is kept, and how think/analyze tool
// calls become steps. The run engine does the reasoning; this package
// only says what it is made of.
package reasoning

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
)

// NextAction is what a step asks for next (agno's NextAction).
type NextAction string

// agno's next actions.
const (
	Continue    NextAction = "continue"
	Validate    NextAction = "validate"
	FinalAnswer NextAction = "final_answer"
	Reset       NextAction = "reset"
)

// Confidence is a step's confidence, 0.0 to 1.0. It is written as
// Python writes a float (1.0, not 1), as agno's stored steps read.
type Confidence float64

// MarshalJSON writes the Python float form.
func (c Confidence) MarshalJSON() ([]byte, error) {
	s, err := pyjson.FloatRepr(float64(c))
	return []byte(s), err
}

// Step is one reasoning step (agno's ReasoningStep). Its JSON leaves out
// unset fields, as agno's events carry it; Steps writes the stored form.
type Step struct {
	Title      *string     `json:"title,omitempty"`
	Action     *string     `json:"action,omitempty"`
	Result     *string     `json:"result,omitempty"`
	Reasoning  *string     `json:"reasoning,omitempty"`
	NextAction *NextAction `json:"next_action,omitempty"`
	Confidence *Confidence `json:"confidence,omitempty"`
}

// Steps are a run's reasoning steps as its output stores them: every
// field present, null when unset (pydantic's model_dump).
type Steps []Step

// stored is a Step with every field written, null when unset.
type stored struct {
	Title      *string     `json:"title"`
	Action     *string     `json:"action"`
	Result     *string     `json:"result"`
	Reasoning  *string     `json:"reasoning"`
	NextAction *NextAction `json:"next_action"`
	Confidence *Confidence `json:"confidence"`
}

// MarshalJSON writes each step with all its fields.
func (s Steps) MarshalJSON() ([]byte, error) {
	out := make([]stored, len(s))
	for i, st := range s {
		out[i] = stored(st)
	}
	return json.Marshal(out)
}

// StoredJSON is the step as pydantic's model_dump_json writes it: every
// field, in agno's order, null when unset.
func (s Step) StoredJSON() ([]byte, error) { return json.Marshal(stored(s)) }

// Completed is the content of a ReasoningCompleted event: agno's
// ReasoningSteps.
type Completed struct {
	ReasoningSteps []Step `json:"reasoning_steps"`
}

// ContentType names Step and Completed in an event's content_type.
const (
	StepContentType      = "ReasoningStep"
	CompletedContentType = "ReasoningSteps"
)

// Next is the step's next action, final_answer when it has none or an
// unknown one (agno's get_next_action).
func (s Step) Next() NextAction {
	if s.NextAction == nil {
		return FinalAnswer
	}
	switch a := *s.NextAction; a {
	case Continue, Validate, FinalAnswer, Reset:
		return a
	}
	return FinalAnswer
}

// Text is the step as agno writes it into reasoning_content: a title
// heading, the reasoning, the action and the result, then a blank line.
func (s Step) Text() string {
	var b strings.Builder
	if s.Title != nil && *s.Title != "" {
		b.WriteString("## " + *s.Title + "\n")
	}
	if s.Reasoning != nil && *s.Reasoning != "" {
		b.WriteString(*s.Reasoning + "\n")
	}
	if s.Action != nil && *s.Action != "" {
		b.WriteString("Action: " + *s.Action + "\n")
	}
	if s.Result != nil && *s.Result != "" {
		b.WriteString("Result: " + *s.Result + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// Text is the steps' reasoning_content.
func Text(steps []Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.Text())
	}
	return b.String()
}

// StepOf reads a ReasoningStep event's content: a Step, or its JSON form
// (an event decoded from a stream).
func StepOf(content any) (Step, bool) {
	switch c := content.(type) {
	case Step:
		return c, true
	case *Step:
		return *c, c != nil
	case nil:
		return Step{}, false
	}
	b, err := json.Marshal(content)
	var st Step
	if err != nil || json.Unmarshal(b, &st) != nil {
		return Step{}, false
	}
	return st, true
}

// Instructions are the default reasoning agent's instructions for a run
// of minSteps to maxSteps steps.
func Instructions(minSteps, maxSteps int) string {
	return instructionsHead + strconv.Itoa(minSteps) + instructionsMid + strconv.Itoa(maxSteps) + instructionsTail
}

// Texts of the assistant messages around the reasoning messages in the
// main model's context (agno's update_messages_with_reasoning).
const (
	WorkedThrough = "I have worked through this problem in-depth, running all necessary tools and have included my raw, step by step research. "
	Summarize     = "Now I will summarize my reasoning and provide a final answer. I will skip any tool calls already executed and steps that are not relevant to the final answer."
)

// DecodeSteps reads a reasoning agent's structured output (ReasoningSteps
// as a map or JSON) into steps.
func DecodeSteps(content any) ([]Step, error) {
	var raw []byte
	switch c := content.(type) {
	case Completed:
		return c.ReasoningSteps, nil
	case *Completed:
		if c != nil {
			return c.ReasoningSteps, nil
		}
		return nil, fmt.Errorf("reasoning: the reasoning agent gave no output")
	case nil:
		return nil, fmt.Errorf("reasoning: the reasoning agent gave no output")
	case string:
		raw = []byte(c)
	case json.RawMessage:
		raw = c
	default:
		var err error
		if raw, err = json.Marshal(c); err != nil {
			return nil, err
		}
	}
	var out Completed
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("reasoning: the reasoning agent's output is not ReasoningSteps: %w", err)
	}
	return out.ReasoningSteps, nil
}

// Thinking is the reasoning of a native reasoning model's answer that
// reasons in its content: the text between <think> tags, else all of it
// (agno's OpenAI, Groq, Ollama and Azure AI Foundry modules).
func Thinking(content string) string {
	start, end := strings.Index(content, "<think>"), strings.Index(content, "</think>")
	if start >= 0 && end >= 0 && end > start {
		return strings.TrimSpace(content[start+len("<think>") : end])
	}
	return content
}

// ThinkingMessage is the content of the assistant message that carries a
// native reasoning model's thinking into the main model's context.
func ThinkingMessage(thinking string) string {
	return "<thinking>\n" + thinking + "\n</thinking>"
}

// FromToolCall is the step a think or analyze tool call records, and the
// text it adds to reasoning_content (agno's
// update_reasoning_content_from_tool_call); ok is false for other calls.
func FromToolCall(name string, args map[string]any) (step Step, text string, ok bool) {
	str := func(k string) string { s, _ := args[k].(string); return s }
	conf := func() *Confidence {
		switch v := args["confidence"].(type) {
		case float64:
			c := Confidence(v)
			return &c
		case json.Number:
			if f, err := v.Float64(); err == nil {
				c := Confidence(f)
				return &c
			}
		}
		return nil
	}
	confText := func(c *Confidence) string {
		if c == nil {
			return ""
		}
		s, _ := pyjson.FloatRepr(float64(*c))
		return "Confidence: " + s + "\n"
	}
	_, hasTitle := args["title"]
	_, hasThought := args["thought"]
	switch lower := strings.ToLower(name); {
	case lower == "think" && hasTitle && hasThought:
		title, thought, action, c := str("title"), str("thought"), str("action"), conf()
		next := Continue
		step = Step{Title: &title, Reasoning: &thought, Action: &action, NextAction: &next, Confidence: c}
		text = "## " + title + "\n" + thought + "\n"
		if action != "" {
			text += "Action: " + action + "\n"
		}
		return step, text + confText(c) + "\n", true
	case lower == "analyze" && hasTitle:
		title, result, analysis, nextText, c := str("title"), str("result"), str("analysis"), str("next_action"), conf()
		next := Continue
		switch strings.ToLower(nextText) {
		case "validate":
			next = Validate
		case "final", "final_answer", "finalize":
			next = FinalAnswer
		}
		step = Step{Title: &title, Result: &result, Reasoning: &analysis, NextAction: &next, Confidence: c}
		text = "## " + title + "\n"
		if result != "" {
			text += "Result: " + result + "\n"
		}
		if analysis != "" {
			text += analysis + "\n"
		}
		if nextText != "" && strings.ToLower(nextText) != "continue" {
			text += "Next Action: " + nextText + "\n"
		}
		return step, text + confText(c) + "\n", true
	case lower == "think" && hasThought:
		title, thought := "Thinking", str("thought")
		return Step{Title: &title, Reasoning: &thought}, "## Thinking\n" + thought + "\n\n", true
	}
	return Step{}, "", false
}
