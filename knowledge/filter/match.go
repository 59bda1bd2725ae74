package filter

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
)

// Match reports whether metadata passes f. Dict filters use JSON
// containment (the Postgres meta_data @> filters that agno's PgVector
// runs); expressions use agno's matches_filter_expr semantics and are
// ANDed.
func Match(metadata map[string]any, f Filters) bool {
	if f.Dict != nil && !contains(metadata, f.Dict) {
		return false
	}
	for _, e := range f.Exprs {
		if !MatchExpr(metadata, e) {
			return false
		}
	}
	return true
}

// Value is agno's get_filter_value: the key itself if present, else the
// dotted path through nested objects.
func Value(data map[string]any, key string) (any, bool) {
	if v, ok := data[key]; ok {
		return v, true
	}
	var cur any = data
	for part := range strings.SplitSeq(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// MatchExpr evaluates one expression the way agno's matches_filter_expr
// does: comparisons between values Python cannot order are false, NEQ of
// a missing key is false, CONTAINS and STARTSWITH ignore case.
func MatchExpr(data map[string]any, e Expr) bool {
	switch x := e.(type) {
	case *Compare:
		v, found := Value(data, x.Key)
		switch x.Operator {
		case OpEQ:
			return found && Equal(v, x.Value) || !found && x.Value == nil
		case OpNEQ:
			return found && !Equal(v, x.Value)
		case OpGT:
			c, ok := order(v, x.Value)
			return found && ok && c > 0
		case OpGTE:
			c, ok := order(v, x.Value)
			return found && ok && c >= 0
		case OpLT:
			c, ok := order(v, x.Value)
			return found && ok && c < 0
		case OpLTE:
			c, ok := order(v, x.Value)
			return found && ok && c <= 0
		case OpCONTAINS:
			return containsValue(v, x.Value)
		case OpSTARTSWITH:
			s, ok := v.(string)
			want, okWant := x.Value.(string)
			return ok && okWant && strings.HasPrefix(strings.ToLower(s), strings.ToLower(want))
		}
		return false
	case *In:
		v, found := Value(data, x.Key)
		for _, want := range x.Values {
			if found && Equal(v, want) || !found && want == nil {
				return true
			}
		}
		return false
	case *And:
		for _, c := range x.Conditions {
			if !MatchExpr(data, c) {
				return false
			}
		}
		return true
	case *Or:
		for _, c := range x.Conditions {
			if MatchExpr(data, c) {
				return true
			}
		}
		return false
	case *Not:
		return x.Condition != nil && !MatchExpr(data, x.Condition)
	}
	return false
}

func containsValue(v, want any) bool {
	switch x := v.(type) {
	case string:
		w, ok := want.(string)
		return ok && strings.Contains(strings.ToLower(x), strings.ToLower(w))
	case []any:
		w, isString := want.(string)
		for _, item := range x {
			if s, ok := item.(string); ok && isString && strings.EqualFold(s, w) {
				return true
			}
			if Equal(item, want) {
				return true
			}
		}
	case []string:
		w, ok := want.(string)
		for _, item := range x {
			if ok && strings.EqualFold(item, w) {
				return true
			}
		}
	}
	return false
}

// contains is JSON containment: every key of want is in have with a
// contained value; an array contains another when each of its elements
// is contained in some element; scalars must be equal.
func contains(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok || !contains(hv, wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := asList(have)
		if !ok {
			return false
		}
		for _, wv := range w {
			found := false
			for _, hv := range h {
				if contains(hv, wv) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if _, ok := asList(want); ok {
		return contains(have, normalizeList(want))
	}
	return Equal(have, want)
}

func asList(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

func normalizeList(v any) []any {
	l, _ := asList(v)
	return l
}

// Equal is Python's == for JSON-like values: numbers compare by value
// whatever their Go type (1 == 1.0), strings and bools by value, lists
// and objects element by element. Unlike Python, true is not equal to 1.
func Equal(a, b any) bool {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		return ok && na.Cmp(nb) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	if la, ok := asList(a); ok {
		lb, ok := asList(b)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !Equal(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// order compares two numbers or two strings; ok is false for any other
// pair, where Python raises TypeError and agno answers false.
func order(a, b any) (int, bool) {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		if !ok {
			return 0, false
		}
		return na.Cmp(nb), true
	}
	sa, ok := a.(string)
	sb, okb := b.(string)
	if !ok || !okb {
		return 0, false
	}
	return strings.Compare(sa, sb), true
}

// number returns v as an exact rational when it is a Go number or a JSON
// number literal; big.Rat keeps large integers and floats comparable.
func number(v any) (*big.Rat, bool) {
	r := new(big.Rat)
	switch x := v.(type) {
	case json.Number:
		if _, ok := r.SetString(string(x)); ok {
			return r, true
		}
		return nil, false
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return r.SetFloat64(x), true
	case float32:
		return number(float64(x))
	case int:
		return r.SetInt64(int64(x)), true
	case int8:
		return r.SetInt64(int64(x)), true
	case int16:
		return r.SetInt64(int64(x)), true
	case int32:
		return r.SetInt64(int64(x)), true
	case int64:
		return r.SetInt64(x), true
	case uint:
		return r.SetUint64(uint64(x)), true
	case uint8:
		return r.SetUint64(uint64(x)), true
	case uint16:
		return r.SetUint64(uint64(x)), true
	case uint32:
		return r.SetUint64(uint64(x)), true
	case uint64:
		return r.SetUint64(x), true
	}
	return nil, false
}
