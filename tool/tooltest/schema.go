package tooltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// params is a function's parameters schema as the suite reads it.
type params struct {
	// names are the properties in the schema's order.
	names    []string
	props    map[string]map[string]any
	required []string
}

func parseParams(raw json.RawMessage) (params, error) {
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return params{}, err
	}
	ps := params{required: top.Required, props: map[string]map[string]any{}}
	if len(top.Properties) == 0 {
		return ps, nil
	}
	keys, err := objectKeys(top.Properties)
	if err != nil {
		return params{}, err
	}
	ps.names = keys
	if err := json.Unmarshal(top.Properties, &ps.props); err != nil {
		return params{}, fmt.Errorf("properties: %w", err)
	}
	return ps, nil
}

// objectKeys lists a JSON object's keys in order, which a map loses.
func objectKeys(raw json.RawMessage) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// types lists the JSON types a schema admits; ok is false when that
// cannot be told (no type, a $ref): then it may admit anything.
func types(s map[string]any) (out []string, ok bool) {
	switch t := s["type"].(type) {
	case string:
		return []string{t}, true
	case []any:
		for _, e := range t {
			if n, isStr := e.(string); isStr {
				out = append(out, n)
			}
		}
		return out, len(out) > 0
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, isList := s[key].([]any)
		if !isList {
			continue
		}
		for _, a := range alts {
			m, isObj := a.(map[string]any)
			if !isObj {
				return nil, false
			}
			ts, known := types(m)
			if !known {
				return nil, false
			}
			out = append(out, ts...)
		}
		return out, len(out) > 0
	}
	return nil, false
}

// valid is a value the parameter's schema admits, as far as a schema's
// type and enum tell; it only needs to let the call reach the check of
// another parameter.
func valid(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	ts, _ := types(s)
	if len(ts) == 0 {
		return "tooltest"
	}
	switch ts[0] {
	case "integer", "number":
		return 1
	case "boolean":
		return true
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	case "null":
		return nil
	}
	return "tooltest"
}

// wrongValue is a value of a type the parameter does not admit and that
// pydantic's lax mode does not convert (an object is never a string, a
// number or a list; a word is never a number, a boolean or an object).
func (ps params) wrongValue(name string) (any, bool) {
	ts, ok := types(ps.props[name])
	if !ok {
		return nil, false
	}
	switch {
	case !slices.Contains(ts, "object"):
		return map[string]any{"tooltest": "of the wrong type"}, true
	case !slices.Contains(ts, "string"):
		return "tooltest: of the wrong type", true
	case !slices.Contains(ts, "array"):
		return []any{"tooltest"}, true
	}
	return nil, false
}

// sample is the arguments object with a valid value for each required
// parameter keep accepts, then set's values over them, as JSON.
func (ps params) sample(keep func(string) bool, set map[string]any) string {
	args := map[string]any{}
	for _, n := range ps.required {
		if keep(n) {
			args[n] = valid(ps.props[n])
		}
	}
	for k, v := range set {
		args[k] = v
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(err) // built from JSON values only
	}
	return string(b)
}
