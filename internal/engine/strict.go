package engine

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agno-go/agno/run"
)

// Strict rewrites a JSON schema for strict structured output, as agno's
// process_schema_for_strict does: every object gets
// additionalProperties:false and lists all its properties as required.
func Strict(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := run.DecodeJSON(raw, &v); err != nil {
		return nil, err
	}
	strictify(v)
	return json.Marshal(v)
}

func strictify(v any) {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			x["additionalProperties"] = false
			req := make([]any, 0, len(props))
			for _, k := range orderedProps(x, props) {
				req = append(req, k)
			}
			x["required"] = req
		}
		for _, child := range x {
			strictify(child)
		}
	case []any:
		for _, e := range x {
			strictify(e)
		}
	}
}

// orderedProps keeps an existing required order and appends the rest
// sorted, so output is deterministic.
func orderedProps(obj, props map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	if req, ok := obj["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok && props[s] != nil && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	var rest []string
	for k := range props {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sortStrings(rest)
	return append(out, rest...)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// RequestSchema builds a run's output schema from a JSON schema sent with
// the request (agno turns it into a model class, whose schema goes out
// strict): named after its title, or "Output".
func RequestSchema(raw json.RawMessage) (*OutputSchema, error) {
	var probe map[string]any
	if err := run.DecodeJSON(raw, &probe); err != nil || probe == nil {
		return nil, errors.New("output_schema must be a JSON object (a JSON schema)")
	}
	name := "Output"
	if t, ok := probe["title"].(string); ok && t != "" {
		name = schemaName(t)
	}
	strict, err := Strict(raw)
	if err != nil {
		return nil, fmt.Errorf("output_schema: %w", err)
	}
	return &OutputSchema{Name: name, Schema: strict, Strict: true}, nil
}

// schemaName keeps what providers accept in a schema name:
// [a-zA-Z0-9_-], at most 64 characters.
func schemaName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 64)])
}
