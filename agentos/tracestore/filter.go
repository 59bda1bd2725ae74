package tracestore

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Filter is agno's FilterExpr over trace columns: a comparison
// ({"op": "EQ", "key": "status", "value": "OK"}), an inclusion
// ({"op": "IN", "key": ..., "values": [...]}) or a logical node
// ({"op": "AND"|"OR", "conditions": [...]}, {"op": "NOT", "condition": {...}}).
type Filter struct {
	Op         string
	Key        string
	Value      any
	Values     []any
	Conditions []*Filter
	Condition  *Filter
}

// MaxFilterDepth bounds nesting, as agno's MAX_FILTER_DEPTH.
const MaxFilterDepth = 10

// FilterError is a filter that is malformed or names an unknown field.
type FilterError struct{ Msg string }

func (e *FilterError) Error() string { return e.Msg }

// columnType is the type of each filterable column (agno's TRACE_COLUMNS).
var columnType = map[string]string{
	"trace_id": "string", "name": "string", "status": "string", "run_id": "string", "session_id": "string",
	"user_id": "string", "agent_id": "string", "team_id": "string", "workflow_id": "string",
	"start_time": "datetime", "end_time": "datetime", "created_at": "datetime", "duration_ms": "number",
}

// allowedList is the column list as agno's message prints it.
func allowedList() string {
	keys := make([]string, 0, len(columnType))
	for k := range columnType {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "['" + strings.Join(keys, "', '") + "']"
}

func got(raw any) string {
	b, _ := json.Marshal(raw)
	return string(b)
}

// ParseFilter reads a FilterExpr JSON document, checking its structure
// and fields the way agno's from_dict and filter converter do.
func ParseFilter(raw any) (*Filter, error) { return parse(raw, 0) }

func parse(raw any, depth int) (*Filter, error) {
	if depth > MaxFilterDepth {
		return nil, &FilterError{fmt.Sprintf("Filter expression exceeds maximum nesting depth of %d", MaxFilterDepth)}
	}
	m, ok := raw.(map[string]any)
	opv, hasOp := m["op"]
	if !ok || !hasOp {
		return nil, &FilterError{"Invalid filter dictionary: must contain 'op' key. Got: " + got(raw)}
	}
	op, _ := opv.(string)
	f := &Filter{Op: op}
	switch op {
	case "EQ", "NEQ", "GT", "GTE", "LT", "LTE", "CONTAINS", "STARTSWITH":
		key, hasKey := m["key"]
		value, hasValue := m["value"]
		if !hasKey || !hasValue || key == nil || value == nil {
			return nil, &FilterError{fmt.Sprintf("%s filter requires 'key' and 'value' fields. Got: %s", op, got(raw))}
		}
		f.Value = value
		return f, f.setKey(key)
	case "IN":
		key, hasKey := m["key"]
		values, hasValues := m["values"]
		if !hasKey || !hasValues || key == nil || values == nil {
			return nil, &FilterError{fmt.Sprintf("IN filter requires 'key' and 'values' fields. Got: %s", got(raw))}
		}
		list, ok := values.([]any)
		if !ok {
			return nil, &FilterError{fmt.Sprintf("IN filter 'values' must be a list. Got: %s", got(raw))}
		}
		f.Values = list
		return f, f.setKey(key)
	case "AND", "OR":
		conds, ok := m["conditions"].([]any)
		if !ok || len(conds) == 0 {
			return nil, &FilterError{fmt.Sprintf("%s filter requires 'conditions' field. Got: %s", op, got(raw))}
		}
		for _, c := range conds {
			sub, err := parse(c, depth+1)
			if err != nil {
				return nil, err
			}
			f.Conditions = append(f.Conditions, sub)
		}
		return f, nil
	case "NOT":
		c, ok := m["condition"]
		if !ok || c == nil {
			return nil, &FilterError{fmt.Sprintf("NOT filter requires 'condition' field. Got: %s", got(raw))}
		}
		sub, err := parse(c, depth+1)
		if err != nil {
			return nil, err
		}
		f.Condition = sub
		return f, nil
	}
	return nil, &FilterError{fmt.Sprintf("Unknown filter operator: %v", opv)}
}

func (f *Filter) setKey(key any) error {
	k, _ := key.(string)
	if _, ok := columnType[k]; !ok {
		return &FilterError{fmt.Sprintf("Invalid filter field: '%v'. Allowed: %s", key, allowedList())}
	}
	f.Key = k
	return nil
}

// operand converts a filter value for the column's type.
func (f *Filter) operand(v any) (any, error) {
	if columnType[f.Key] == "number" {
		switch n := v.(type) {
		case float64:
			if n == math.Trunc(n) && math.Abs(n) < 1<<62 {
				return int64(n), nil
			}
			return n, nil
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return i, nil
			}
			return n.Float64()
		case string:
			if i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64); err == nil {
				return i, nil
			}
		}
		return nil, &FilterError{fmt.Sprintf("Invalid filter value for '%s': %s is not a number", f.Key, got(v))}
	}
	switch s := v.(type) {
	case string:
		if columnType[f.Key] == "datetime" { // compare as stored: UTC, fixed fraction
			if t := parseTime(strings.TrimSpace(s)); !t.IsZero() {
				return formatTime(t), nil
			}
		}
		return s, nil
	case float64, bool, json.Number:
		return got(s), nil
	}
	return nil, &FilterError{fmt.Sprintf("Invalid filter value for '%s': %s is not a string", f.Key, got(v))}
}

// likeEscape escapes LIKE's wildcards so that the text matches literally.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// sql renders the filter as a WHERE condition over agno_traces columns.
func (f *Filter) sql() (string, []any, error) {
	switch f.Op {
	case "AND", "OR":
		parts := make([]string, 0, len(f.Conditions))
		var args []any
		for _, c := range f.Conditions {
			p, a, err := c.sql()
			if err != nil {
				return "", nil, err
			}
			parts = append(parts, p)
			args = append(args, a...)
		}
		return "(" + strings.Join(parts, " "+f.Op+" ") + ")", args, nil
	case "NOT":
		p, a, err := f.Condition.sql()
		if err != nil {
			return "", nil, err
		}
		return "(NOT " + p + ")", a, nil
	case "IN":
		if len(f.Values) == 0 {
			return "(1 = 0)", nil, nil
		}
		args := make([]any, len(f.Values))
		for i, v := range f.Values {
			o, err := f.operand(v)
			if err != nil {
				return "", nil, err
			}
			args[i] = o
		}
		return f.Key + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ") + ")", args, nil
	}
	v, err := f.operand(f.Value)
	if err != nil {
		return "", nil, err
	}
	switch f.Op {
	case "EQ":
		return f.Key + " = ?", []any{v}, nil
	case "NEQ":
		return f.Key + " <> ?", []any{v}, nil
	case "GT":
		return f.Key + " > ?", []any{v}, nil
	case "GTE":
		return f.Key + " >= ?", []any{v}, nil
	case "LT":
		return f.Key + " < ?", []any{v}, nil
	case "LTE":
		return f.Key + " <= ?", []any{v}, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", nil, &FilterError{fmt.Sprintf("%s needs a text field; '%s' is a number", f.Op, f.Key)}
	}
	if f.Op == "CONTAINS" { // case-insensitive, as agno's
		return "LOWER(" + f.Key + `) LIKE ? ESCAPE '\'`, []any{"%" + likeEscape(strings.ToLower(s)) + "%"}, nil
	}
	// STARTSWITH is case-sensitive on both backends (SQLite's LIKE is not).
	return "SUBSTR(" + f.Key + ", 1, ?) = ?", []any{utf8.RuneCountInString(s), s}, nil
}

// Validate reports a filter whose values do not fit their columns.
func (f *Filter) Validate() error {
	_, _, err := f.sql()
	return err
}
