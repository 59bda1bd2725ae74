package engine

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/agno-go/agno/run"
)

// parseStructured turns JSON content into the output schema's value:
// the Go type when known, else a map (content_type "dict"). A parse
// failure only logs; content stays text (agno §1.9).
func (st *runState) parseStructured() {
	os := st.schema
	if os == nil || off(st.spec.ParseResponse) {
		return
	}
	text := extractJSON(st.out.ContentString())
	var value any
	if os.Type != nil {
		ptr := reflect.New(os.Type)
		if err := json.Unmarshal([]byte(text), ptr.Interface()); err != nil {
			st.spec.logger.Warn("structured output did not parse", "schema", os.Name, "error", err)
			return
		}
		value = ptr.Elem().Interface()
		st.out.ContentType = os.Name
	} else {
		var m map[string]any
		if err := run.DecodeJSON([]byte(text), &m); err != nil {
			st.spec.logger.Warn("structured output did not parse", "schema", os.Name, "error", err)
			return
		}
		value = m
		st.out.ContentType = "dict"
	}
	st.out.Content = value
	if st.stream {
		b := st.base()
		st.send(&run.RunContent{EventBase: b, Content: value, ContentType: st.out.ContentType, WorkflowAgent: run.ContentFlag(&b, false)})
	}
}

// extractJSON finds the JSON object in a model's text: fenced blocks and
// surrounding prose are tolerated.
func extractJSON(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		rest = strings.TrimPrefix(rest, "json")
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
