package openai

import (
	"encoding/json"
	"strings"
	"testing"
)

func runThink(pieces ...string) (content, reasoning string) {
	var t thinkStream
	var c, r strings.Builder
	for _, p := range pieces {
		pc, pr := t.push(p)
		c.WriteString(pc)
		r.WriteString(pr)
	}
	fc, fr := t.flush()
	c.WriteString(fc)
	r.WriteString(fr)
	return c.String(), r.String()
}

func TestThinkStream(t *testing.T) {
	cases := []struct {
		name               string
		pieces             []string
		content, reasoning string
	}{
		{"plain", []string{"hello ", "world"}, "hello world", ""},
		{"whole tags", []string{"<think>plan</think>answer"}, "answer", "plan"},
		{"tag split at every byte", strings.Split("<think>ab</think>\n\ncd", ""), "cd", "ab"},
		{"lone < kept", []string{"a <", " b"}, "a < b", ""},
		{"partial tag at end is text", []string{"x <thi"}, "x <thi", ""},
		{"unclosed think stays reasoning", []string{"<think>still thinking", " <"}, "", "still thinking <"},
		{"text before think", []string{"Sure. <think>hm</think> Done"}, "Sure. Done", "hm"},
		{"html-like content", []string{"<b>bold</b> <thinking>"}, "<b>bold</b> <thinking>", ""},
		{"two blocks", []string{"<think>a</think>x<think>b</think>y"}, "xy", "ab"},
	}
	for _, tc := range cases {
		c, r := runThink(tc.pieces...)
		if c != tc.content || r != tc.reasoning {
			t.Errorf("%s: content %q reasoning %q, want %q %q", tc.name, c, r, tc.content, tc.reasoning)
		}
	}
}

func TestSplitThink(t *testing.T) {
	cases := []struct{ in, content, reasoning string }{
		{"no tags", "no tags", ""},
		{"<think>\nplan\n</think>\n\nanswer", "answer", "plan"},
		{"plan</think>answer", "answer", "plan"},
		{"intro <think>plan</think> answer", "intro answer", "plan"},
		{"<think>unclosed", "<think>unclosed", ""},
	}
	for _, tc := range cases {
		c, r := splitThink(tc.in)
		if c != tc.content || r != tc.reasoning {
			t.Errorf("splitThink(%q) = %q, %q; want %q, %q", tc.in, c, r, tc.content, tc.reasoning)
		}
	}
}

// The result must not depend on where the stream was cut into deltas.
func FuzzThinkStreamSplitInvariance(f *testing.F) {
	f.Add("<think>a</think>b", uint8(3))
	f.Add("x<thi<think>y</thin</think>\n z", uint8(1))
	f.Add("<<think>>", uint8(2))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		n := int(step%7) + 1
		var pieces []string
		for i := 0; i < len(s); i += n {
			pieces = append(pieces, s[i:min(i+n, len(s))])
		}
		wc, wr := runThink(s)
		gc, gr := runThink(pieces...)
		if gc != wc || gr != wr {
			t.Errorf("split by %d: %q/%q, whole: %q/%q", n, gc, gr, wc, wr)
		}
		if len(gc)+len(gr) > len(s) {
			t.Errorf("output longer than input")
		}
	})
}

func FuzzErrorMessage(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"m","code":"c"}}`, `{"error":"x"}`, `{"detail":[1]}`, `oops`, `{"error":{"code":400}}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, _ := errorMessage(b)
		if len(b) > 0 && len(strings.TrimSpace(string(b))) > 0 && msg == "" && !strings.Contains(string(b), "{") {
			t.Errorf("non-JSON body %q gave no message", b)
		}
	})
}

func FuzzParseChunk(f *testing.F) {
	for _, s := range []string{
		`{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"hi","tool_calls":[{"index":1,"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}]},"finish_reason":null}],"usage":null}`,
		`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_tokens_details":{"cached_tokens":1}}}`,
		`{"choices":[{"delta":{"reasoning":{"content":"r"},"reasoning_content":"x"}}]}`,
		`[1,2]`, `"s"`, `{"choices":"nope"}`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseChunk(data)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var m toolCallMerger
		for i := range c.Choices {
			for j := range c.Choices[i].ToolCalls {
				m.add(&c.Choices[i].ToolCalls[j])
			}
			_ = reasoningText(c.Choices[i].Reasoning)
			_ = reasoningText(c.Choices[i].ReasoningContent)
		}
		_ = m.result()
	})
}
