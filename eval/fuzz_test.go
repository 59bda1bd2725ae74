package eval

import (
	"encoding/json"
	"testing"
)

// The judge's answer is model output: any text must give a value or an
// error, never a panic.
func FuzzJudgeAnswer(f *testing.F) {
	for _, s := range []string{`{"accuracy_score": 8, "accuracy_reason": "ok"}`, "```json\n{\"score\": \"7\"}\n```", `}{`, `{"passed": "PASS"}`, ``, `{"accuracy_score": 1e300}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var m map[string]any
		if json.Unmarshal([]byte(jsonObject(text)), &m) != nil || m == nil {
			return
		}
		a := &judgeAnswer{fields: m, text: text, want: "x"}
		_, _ = a.integer("accuracy_score")
		_, _ = a.str("accuracy_reason")
		_, _ = a.boolean("passed")
	})
}

// expected_tool_call_arguments comes from request bodies.
func FuzzArgSpecs(f *testing.F) {
	for _, s := range []string{`{"a": 1}`, `[{"a": 1}, {"b": [2]}]`, `[]`, `null`, `"x"`, `[1]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a ArgSpecs
		if json.Unmarshal([]byte(s), &a) != nil {
			return
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var again ArgSpecs
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("%q -> %s does not decode: %v", s, b, err)
		}
		_ = allMatched(a.Specs, []map[string]any{{"a": 1.0}})
	})
}
