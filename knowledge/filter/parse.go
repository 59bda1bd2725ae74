package filter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInvalid is returned for filters that are not agno's dict or list
// form, or an expression with a missing field or unknown operator.
var ErrInvalid = errors.New("filter: invalid filter")

// Parse reads filters in agno's JSON forms: an object without "op" is a
// dict of exact matches; an object with "op" is one expression; an array
// is a list of expressions. null or empty input is no filter. Numbers
// keep their literal (json.Number), so 1 and 1.0 stay apart as in Python.
func Parse(data []byte) (Filters, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return Filters{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Filters{}, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if dec.More() {
		return Filters{}, fmt.Errorf("%w: trailing data after the filters", ErrInvalid)
	}
	return FromValue(v)
}

// FromValue converts decoded JSON (map[string]any, []any or nil) into
// Filters, with the rules of Parse.
func FromValue(v any) (Filters, error) {
	switch x := v.(type) {
	case nil:
		return Filters{}, nil
	case map[string]any:
		if _, ok := x["op"]; ok {
			e, err := FromDict(x)
			if err != nil {
				return Filters{}, err
			}
			return Filters{Exprs: []Expr{e}}, nil
		}
		return Filters{Dict: x}, nil
	case []any:
		exprs := make([]Expr, 0, len(x))
		for i, item := range x {
			m, ok := item.(map[string]any)
			if !ok {
				return Filters{}, fmt.Errorf("%w: filters[%d] is %T; each list item must be an expression object like {\"op\": \"EQ\", \"key\": \"k\", \"value\": \"v\"}", ErrInvalid, i, item)
			}
			e, err := FromDict(m)
			if err != nil {
				return Filters{}, fmt.Errorf("filters[%d]: %w", i, err)
			}
			exprs = append(exprs, e)
		}
		return Filters{Exprs: exprs}, nil
	}
	return Filters{}, fmt.Errorf("%w: filters must be an object or a list, got %T", ErrInvalid, v)
}

// FromDict is agno's filters.from_dict: it rebuilds an expression from
// its to_dict form.
func FromDict(m map[string]any) (Expr, error) { return fromDict(m, 0) }

func fromDict(m map[string]any, depth int) (Expr, error) {
	if depth >= MaxDepth {
		return nil, fmt.Errorf("%w: filter expression exceeds maximum nesting depth of %d", ErrInvalid, MaxDepth)
	}
	op, ok := m["op"].(string)
	if !ok {
		return nil, fmt.Errorf("%w: filter dictionary must contain a string 'op' key, got %v", ErrInvalid, m)
	}
	switch op {
	case OpEQ, OpNEQ, OpGT, OpGTE, OpLT, OpLTE, OpCONTAINS, OpSTARTSWITH:
		key, okKey := m["key"].(string)
		value, okValue := m["value"]
		if !okKey || !okValue {
			return nil, fmt.Errorf("%w: %s filter requires 'key' and 'value' fields, got %v", ErrInvalid, op, m)
		}
		if op == OpCONTAINS || op == OpSTARTSWITH {
			if _, isString := value.(string); !isString {
				return nil, fmt.Errorf("%w: %s filter needs a string 'value', got %T", ErrInvalid, op, value)
			}
		}
		return &Compare{Operator: op, Key: key, Value: value}, nil
	case OpIN:
		key, okKey := m["key"].(string)
		values, okValues := m["values"].([]any)
		if !okKey || !okValues {
			return nil, fmt.Errorf("%w: IN filter requires 'key' and a list 'values', got %v", ErrInvalid, m)
		}
		return &In{Key: key, Values: values}, nil
	case OpAND, OpOR:
		raw, ok := m["conditions"].([]any)
		if !ok {
			return nil, fmt.Errorf("%w: %s filter requires a list 'conditions' field, got %v", ErrInvalid, op, m)
		}
		conds := make([]Expr, 0, len(raw))
		for _, c := range raw {
			cm, ok := c.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: %s condition must be an object, got %T", ErrInvalid, op, c)
			}
			e, err := fromDict(cm, depth+1)
			if err != nil {
				return nil, err
			}
			conds = append(conds, e)
		}
		if op == OpAND {
			return &And{Conditions: conds}, nil
		}
		return &Or{Conditions: conds}, nil
	case OpNOT:
		cm, ok := m["condition"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%w: NOT filter requires a 'condition' object, got %v", ErrInvalid, m)
		}
		e, err := fromDict(cm, depth+1)
		if err != nil {
			return nil, err
		}
		return &Not{Condition: e}, nil
	}
	return nil, fmt.Errorf("%w: unknown filter operator %q", ErrInvalid, op)
}
