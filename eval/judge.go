package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// A judge is an agent whose answer is a JSON object (agno's evaluator
// agents with an output_schema): the schema goes to the model as a strict
// structured output, and the answer is decoded here whatever the engine
// made of it, so a loose answer (fenced, a score as a string) still counts
// and a wrong one gets an error saying what was asked for.

func newJudge(m model.Model, schemaName string, schema string, description string, instructions []string, log *slog.Logger) (*agent.Agent, error) {
	if m == nil {
		return nil, fmt.Errorf("eval: no judge model: set Model (or Evaluator), or evaluate an agent or team that has a model")
	}
	return agent.New(agent.Config{
		Name:         "", // a fresh id: judge runs are not stored
		Model:        m,
		Description:  description,
		Instructions: instructions,
		OutputSchema: &agent.OutputSchema{Name: schemaName, Schema: json.RawMessage(schema), Strict: true},
		Logger:       log,
	})
}

// askJudge runs the judge on prompt and decodes its JSON object answer;
// want describes the expected answer for the error.
func askJudge(ctx context.Context, judge *agent.Agent, prompt, want string) (*judgeAnswer, error) {
	out, err := judge.Run(ctx, prompt)
	if err != nil {
		return nil, fmt.Errorf("the judge model failed: %w", err)
	}
	if out.Status == run.StatusError {
		return nil, fmt.Errorf("the judge model failed: %s", out.ContentString())
	}
	if m, ok := out.Content.(map[string]any); ok {
		return &judgeAnswer{fields: m, text: out.ContentString(), want: want}, nil
	}
	text := out.ContentString()
	var m map[string]any
	if err := json.Unmarshal([]byte(jsonObject(text)), &m); err != nil || m == nil {
		return nil, fmt.Errorf("the judge's answer is not the JSON object %s it was asked for (answer: %q)", want, clip(text))
	}
	return &judgeAnswer{fields: m, text: text, want: want}, nil
}

// jsonObject finds the JSON object in a model's text: a fenced block or
// the span from the first '{' to the last '}'.
func jsonObject(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := strings.TrimPrefix(s[i+3:], "json")
		if j := strings.Index(rest, "```"); j >= 0 {
			s = strings.TrimSpace(rest[:j])
		}
	}
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start >= 0 && end > start {
		return s[start : end+1]
	}
	return s
}

func clip(s string) string {
	const n = 300
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

type judgeAnswer struct {
	fields map[string]any
	text   string
	want   string
}

func (a *judgeAnswer) bad(field, problem string) error {
	return fmt.Errorf("the judge's answer is not the JSON object %s it was asked for: %s %s (answer: %q)", a.want, field, problem, clip(a.text))
}

// integer reads a whole number (a JSON number, or a string of one).
func (a *judgeAnswer) integer(field string) (int, error) {
	v, ok := a.fields[field]
	if !ok || v == nil {
		return 0, a.bad(field, "is missing")
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		p, err := x.Float64()
		if err != nil {
			return 0, a.bad(field, "is not a number")
		}
		f = p
	case string:
		p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, a.bad(field, "is not a number")
		}
		f = p
	default:
		return 0, a.bad(field, "is not a number")
	}
	if f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, a.bad(field, "is not a whole number")
	}
	return int(f), nil
}

func (a *judgeAnswer) str(field string) (string, error) {
	v, ok := a.fields[field]
	if !ok || v == nil {
		return "", a.bad(field, "is missing")
	}
	s, ok := v.(string)
	if !ok {
		return "", a.bad(field, "is not a string")
	}
	return s, nil
}

func (a *judgeAnswer) boolean(field string) (bool, error) {
	v, ok := a.fields[field]
	if !ok || v == nil {
		return false, a.bad(field, "is missing")
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "pass", "passed":
			return true, nil
		case "false", "fail", "failed":
			return false, nil
		}
	}
	return false, a.bad(field, "is not true or false")
}
