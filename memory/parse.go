package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// summaryResponse is agno's SessionSummaryResponse.
type summaryResponse struct {
	Summary string
	Topics  []string
}

// parseSummary reads a SessionSummaryResponse out of a model's text the
// way agno's parse_response_model_str does: a <think> block is dropped,
// a fenced code block unwrapped, the whole text tried as JSON, then the
// JSON objects inside it — one is parsed, several are merged field by
// field (lists concatenated, other values the last one).
func parseSummary(content string) (*summaryResponse, error) {
	if i := strings.LastIndex(content, "</think>"); i >= 0 {
		content = content[i+len("</think>"):]
	}
	text := unfence(strings.TrimSpace(content))
	for _, candidate := range []string{text, flattenLines(text)} {
		if fields, err := decodeObject(candidate); err == nil {
			return summaryFrom(fields)
		}
	}
	objects := jsonObjects(text)
	if len(objects) == 0 {
		return nil, fmt.Errorf("%w: no JSON object in %q", ErrSummaryFormat, clip(content))
	}
	merged := map[string]json.RawMessage{}
	var topics []json.RawMessage
	for _, obj := range objects {
		fields, err := decodeObject(obj)
		if err != nil {
			if fields, err = decodeObject(flattenLines(obj)); err != nil {
				continue
			}
		}
		if len(objects) == 1 {
			return summaryFrom(fields)
		}
		for k, v := range fields {
			if k == "topics" && bytes.HasPrefix(bytes.TrimSpace(v), []byte("[")) {
				topics = append(topics, v)
				continue
			}
			merged[k] = v
		}
	}
	if len(topics) > 0 {
		var all []string
		for _, raw := range topics {
			var part []string
			if err := json.Unmarshal(raw, &part); err != nil {
				return nil, fmt.Errorf("%w: topics: %v", ErrSummaryFormat, err)
			}
			all = append(all, part...)
		}
		b, _ := json.Marshal(all)
		merged["topics"] = b
	}
	if len(merged) == 0 {
		return nil, fmt.Errorf("%w: no readable JSON object in %q", ErrSummaryFormat, clip(content))
	}
	return summaryFrom(merged)
}

// summaryFrom validates the fields as pydantic would: summary a string,
// topics a list of strings or null.
func summaryFrom(fields map[string]json.RawMessage) (*summaryResponse, error) {
	raw, ok := fields["summary"]
	if !ok {
		return nil, fmt.Errorf("%w: field summary is missing", ErrSummaryFormat)
	}
	var out summaryResponse
	if err := json.Unmarshal(raw, &out.Summary); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("%w: field summary is not a string: %s", ErrSummaryFormat, clip(string(raw)))
	}
	if t, ok := fields["topics"]; ok {
		if err := json.Unmarshal(t, &out.Topics); err != nil {
			return nil, fmt.Errorf("%w: field topics is not a list of strings: %s", ErrSummaryFormat, clip(string(t)))
		}
	}
	return &out, nil
}

func decodeObject(s string) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, fmt.Errorf("not an object")
	}
	return fields, nil
}

// unfence returns the inside of the first ``` code block (language tag
// dropped), or s when there is none.
func unfence(s string) string {
	i := strings.Index(s, "```")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 && !strings.ContainsAny(rest[:nl], "{[\"") {
		rest = rest[nl+1:] // language tag line
	} else {
		rest = strings.TrimPrefix(rest, "json")
	}
	if j := strings.Index(rest, "```"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// flattenLines removes raw line breaks, which models put inside JSON
// strings and JSON forbids (agno replaces them the same way).
func flattenLines(s string) string {
	return strings.NewReplacer("\r", "", "\n", " ").Replace(s)
}

// jsonObjects returns the top-level {...} spans of s, honouring strings.
func jsonObjects(s string) []string {
	var out []string
	depth, start := 0, -1
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			if depth > 0 {
				inString = true
			}
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case '}':
			if depth > 0 {
				depth--
				if depth == 0 {
					out = append(out, s[start:i+1])
				}
			}
		}
	}
	return out
}

func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
