package openai

import (
	"strings"
	"unicode"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// splitThink separates a whole response's <think>…</think> block (DeepSeek
// R1, Qwen3, QwQ served raw) from its answer. Some servers strip the
// opening tag, so text before a lone </think> is reasoning too.
func splitThink(s string) (content, reasoning string) {
	end := strings.Index(s, thinkClose)
	if end < 0 {
		return s, ""
	}
	before := ""
	start := strings.Index(s[:end], thinkOpen)
	if start >= 0 {
		before = s[:start]
		reasoning = s[start+len(thinkOpen) : end]
	} else {
		reasoning = s[:end]
	}
	after := strings.TrimLeftFunc(s[end+len(thinkClose):], unicode.IsSpace)
	return before + after, strings.TrimSpace(reasoning)
}

// thinkStream routes streamed content inside <think>…</think> to reasoning.
// Tags may be split across deltas, so a tail that could be the start of a
// tag is held back until the next delta decides it.
type thinkStream struct {
	inside bool
	// held is a possible partial tag from the previous delta.
	held string
	// trim drops the whitespace models put between </think> and the answer.
	trim bool
}

func (t *thinkStream) push(delta string) (content, reasoning string) {
	s := delta
	if t.held != "" {
		s = t.held + delta
		t.held = ""
	} else if !t.inside && !t.trim && strings.IndexByte(delta, '<') < 0 {
		return delta, "" // the common case: plain text
	}
	var c, r strings.Builder
	for s != "" {
		tag := thinkOpen
		if t.inside {
			tag = thinkClose
		}
		i := strings.Index(s, tag)
		var text string
		if i >= 0 {
			text, s = s[:i], s[i+len(tag):]
		} else {
			k := partialSuffix(s, tag)
			text, t.held, s = s[:len(s)-k], s[len(s)-k:], ""
		}
		if t.inside {
			r.WriteString(text)
		} else {
			c.WriteString(t.trimmed(text))
		}
		if i >= 0 {
			t.inside = !t.inside
			t.trim = !t.inside
		}
	}
	return c.String(), r.String()
}

// flush returns a held tail once the stream has ended: it was not a tag.
func (t *thinkStream) flush() (content, reasoning string) {
	s := t.held
	t.held = ""
	if t.inside {
		return "", s
	}
	return t.trimmed(s), ""
}

func (t *thinkStream) trimmed(s string) string {
	if !t.trim {
		return s
	}
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if s != "" {
		t.trim = false
	}
	return s
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
