package filter

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
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
//
// A json.Number is the number Python's json.loads makes of its literal: an
// int for an integer literal, a float (the nearest double) for one with a
// fraction or an exponent, so json.Number("0.1") equals float64(0.1).
func Equal(a, b any) bool {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		if !ok {
			return false
		}
		c, ok := na.cmp(nb)
		return ok && c == 0
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
// pair, where Python raises TypeError and agno answers false, and for NaN,
// which Python orders against nothing.
func order(a, b any) (int, bool) {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		if !ok {
			return 0, false
		}
		return na.cmp(nb)
	}
	sa, ok := a.(string)
	sb, okb := b.(string)
	if !ok || !okb {
		return 0, false
	}
	return strings.Compare(sa, sb), true
}

// num is a number as Python holds it: an int (exact, in rat) or a float.
type num struct {
	isFloat bool
	f       float64
	rat     *big.Rat // exact value; nil for a float that is NaN or infinite
}

// cmp compares as Python does: two floats as doubles, an int and a float
// exactly (2**53 + 1 != 2.0**53), anything and NaN not at all.
func (a num) cmp(b num) (int, bool) {
	if a.isFloat && math.IsNaN(a.f) || b.isFloat && math.IsNaN(b.f) {
		return 0, false
	}
	if a.rat == nil || b.rat == nil {
		// At least one infinity: as doubles, where an int (exact in rat)
		// is finite and so orders below +Inf and above -Inf.
		fa, fb := a.f, b.f
		if a.rat != nil {
			fa = 0
		}
		if b.rat != nil {
			fb = 0
		}
		return cmpFloat(fa, fb), true
	}
	return a.rat.Cmp(b.rat), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func intNum(r *big.Rat) num { return num{rat: r} }

func floatNum(f float64) num {
	n := num{isFloat: true, f: f}
	if !math.IsNaN(f) && !math.IsInf(f, 0) {
		n.rat = new(big.Rat).SetFloat64(f)
	}
	return n
}

// number returns v as Python's int or float when it is a Go number or a
// JSON number literal.
func number(v any) (num, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return num{}, false
			}
			return floatNum(f), true // out of range: ±Inf or 0, as Python
		}
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return num{}, false
		}
		return intNum(new(big.Rat).SetInt(i)), true
	case float64:
		return floatNum(x), true
	case float32:
		return floatNum(float64(x)), true
	case int:
		return intNum(new(big.Rat).SetInt64(int64(x))), true
	case int8:
		return intNum(new(big.Rat).SetInt64(int64(x))), true
	case int16:
		return intNum(new(big.Rat).SetInt64(int64(x))), true
	case int32:
		return intNum(new(big.Rat).SetInt64(int64(x))), true
	case int64:
		return intNum(new(big.Rat).SetInt64(x)), true
	case uint:
		return intNum(new(big.Rat).SetUint64(uint64(x))), true
	case uint8:
		return intNum(new(big.Rat).SetUint64(uint64(x))), true
	case uint16:
		return intNum(new(big.Rat).SetUint64(uint64(x))), true
	case uint32:
		return intNum(new(big.Rat).SetUint64(uint64(x))), true
	case uint64:
		return intNum(new(big.Rat).SetUint64(x)), true
	}
	return num{}, false
}
