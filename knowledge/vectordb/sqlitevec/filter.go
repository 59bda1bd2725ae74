package sqlitevec

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlcond"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	sqlitedrv "modernc.org/sqlite"

	"github.com/agno-go/agno/knowledge/filter"
)

// Metadata filters become SQL over the stored JSON. Each part of a filter
// translates to a condition every matching record meets; where SQLite's
// JSON functions give exactly filter.Match's answer (equality and order of
// strings, numbers, booleans and null, IN, AND, OR, NOT, dotted keys) the
// condition is the filter itself. What they cannot (CONTAINS and
// STARTSWITH, which fold case the Unicode way, list and object values) is
// left to filter.Match, which the query calls as the SQL function
// agno_knowledge_match(meta_data, handle) after the cheap conditions. Either
// way the filter is applied before ORDER BY ... LIMIT, so a search returns
// up to limit records that match.

// cond is a filter, or part of one, as SQL.
type cond = sqlcond.Cond

var (
	dialect = sqlcond.Dialect{False: "0"}
	always  = dialect.Always()
	never   = dialect.Never()
	unknown = dialect.Unknown()
)

func and(cs ...cond) cond { return dialect.And(cs...) }

func or(cs ...cond) cond { return dialect.Or(cs...) }

func not(c cond) cond { return dialect.Not(c) }

// compileFilters translates f over the JSON column col.
func compileFilters(col string, f filter.Filters) cond {
	var cs []cond
	if f.Dict != nil {
		keys := make([]string, 0, len(f.Dict))
		for k := range f.Dict {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			cs = append(cs, dictEntry(col, k, f.Dict[k]))
		}
	}
	for _, e := range f.Exprs {
		cs = append(cs, compileExpr(col, e))
	}
	return and(cs...)
}

// key is a metadata key as SQL: p1 is the JSON path of the key itself, p2
// (dotted keys only) the path through nested objects, which
// filter.Value follows when the key itself is missing.
type key struct {
	col, p1, p2 string
}

// typ is the SQL expression of the value's json_type, "" when missing;
// it is never NULL.
func (k key) typ() cond {
	if k.p2 == "" {
		return cond{SQL: "COALESCE(json_type(" + k.col + ", ?), '')", Args: []any{k.p1}}
	}
	return cond{SQL: "COALESCE(json_type(" + k.col + ", ?), json_type(" + k.col + ", ?), '')", Args: []any{k.p1, k.p2}}
}

// val is the SQL expression of the value (json_extract).
func (k key) val() cond {
	if k.p2 == "" {
		return cond{SQL: "json_extract(" + k.col + ", ?)", Args: []any{k.p1}}
	}
	return cond{
		SQL:  "CASE WHEN json_type(" + k.col + ", ?) IS NOT NULL THEN json_extract(" + k.col + ", ?) ELSE json_extract(" + k.col + ", ?) END",
		Args: []any{k.p1, k.p1, k.p2},
	}
}

// label reports whether s can be a quoted label of an SQLite JSON path
// that matches the key as Go's encoder wrote it.
func label(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == '"' || r == '\\' || r == '\u2028' || r == '\u2029' || unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// dictKey is a key of a dict filter: always the key itself.
func dictKey(col, k string) (key, bool) {
	if !label(k) {
		return key{}, false
	}
	return key{col: col, p1: `$."` + k + `"`}, true
}

// exprKey is a key of an expression: the key itself, else (when dotted)
// the path through nested objects, as filter.Value.
func exprKey(col, k string) (key, bool) {
	ref, ok := dictKey(col, k)
	if !ok || !strings.Contains(k, ".") {
		return ref, ok
	}
	var b strings.Builder
	b.WriteString("$")
	for part := range strings.SplitSeq(k, ".") {
		if !label(part) {
			return key{}, false
		}
		b.WriteString(`."` + part + `"`)
	}
	ref.p2 = b.String()
	return ref, true
}

// Kinds of filter values.
type kind int

const (
	kOther kind = iota
	kString
	kNumber
	kBool
	kNull
	kList
	kObject
)

// classify sorts a filter value and returns what to bind for it. exact
// is false when SQLite's comparison of the bound value could disagree
// with filter.Equal's: strings holding NUL, integers beyond int64 and
// numbers that are not finite. Stored numbers are written in Go's
// shortest form (see normalizeMeta), which SQLite reads back as the same
// double, so comparing doubles in SQL is filter.Equal's comparison.
func classify(v any) (k kind, bind any, exact bool) {
	switch x := v.(type) {
	case nil:
		return kNull, nil, true
	case string:
		return kString, x, !strings.ContainsRune(x, 0)
	case bool:
		return kBool, x, true
	case int:
		return kNumber, int64(x), true
	case int8:
		return kNumber, int64(x), true
	case int16:
		return kNumber, int64(x), true
	case int32:
		return kNumber, int64(x), true
	case int64:
		return kNumber, x, true
	case uint:
		return unsigned(uint64(x))
	case uint8:
		return kNumber, int64(x), true
	case uint16:
		return kNumber, int64(x), true
	case uint32:
		return kNumber, int64(x), true
	case uint64:
		return unsigned(x)
	case float32:
		return float(float64(x))
	case float64:
		return float(x)
	case json.Number:
		// As filter.Equal reads it: an integer literal is an int, any
		// other number the nearest double (Python's json.loads).
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return kNumber, n, true
			}
			if _, ok := new(big.Int).SetString(s, 10); ok {
				return kNumber, nil, false // beyond int64: the match function compares
			}
			return kOther, nil, false
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil:
			return float(f)
		case errors.Is(err, strconv.ErrRange):
			return kNumber, nil, false // ±Inf or an underflow to 0
		}
		return kOther, nil, false
	case map[string]any:
		return kObject, nil, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return kList, nil, false
	}
	return kOther, nil, false
}

func unsigned(x uint64) (kind, any, bool) {
	if x <= math.MaxInt64 {
		return kNumber, int64(x), true
	}
	return kNumber, nil, false
}

func float(f float64) (kind, any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return kOther, nil, false // not a number to filter.Equal
	}
	return kNumber, f, true
}

func seq(parts ...any) cond {
	var c cond
	var b strings.Builder
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			b.WriteString(x)
		case cond:
			b.WriteString(x.SQL)
			c.Args = append(c.Args, x.Args...)
		}
	}
	c.SQL = b.String()
	return c
}

func exact(c cond) cond { c.Exact = true; return c }

// param is a bound value. Value comparisons come before type checks in
// the conditions: SQLite stops at the first false term of an AND, and the
// comparison fails for most records.
func param(v any) cond { return cond{SQL: "?", Args: []any{v}} }

// equal is filter.Equal(value, v) for a present value; missingIsNull
// also matches a missing key when v is nil (EQ's rule).
func equal(k key, v any, missingIsNull bool) cond {
	typ := k.typ()
	kd, bind, ok := classify(v)
	switch kd {
	case kString:
		if !ok {
			return seq("(", typ, " = 'text')")
		}
		return exact(seq("(", k.val(), " = ", param(bind), " AND ", typ, " = 'text')"))
	case kNumber:
		if !ok || bind == nil {
			return seq("(", typ, " IN ('integer', 'real'))")
		}
		return exact(seq("(", k.val(), " = ", param(bind), " AND ", typ, " IN ('integer', 'real'))"))
	case kBool:
		if v.(bool) {
			return exact(seq("(", typ, " = 'true')"))
		}
		return exact(seq("(", typ, " = 'false')"))
	case kNull:
		if missingIsNull {
			return exact(seq("(", typ, " IN ('', 'null'))"))
		}
		return exact(seq("(", typ, " = 'null')"))
	case kList:
		return seq("(", typ, " = 'array')")
	case kObject:
		return seq("(", typ, " = 'object')")
	}
	return unknown
}

// dictEntry is one key of a dict filter: JSON containment, which for a
// scalar is equality of a present value.
func dictEntry(col, k string, v any) cond {
	ref, ok := dictKey(col, k)
	if !ok {
		return unknown
	}
	return equal(ref, v, false)
}

func compileExpr(col string, e filter.Expr) cond {
	switch x := e.(type) {
	case *filter.Compare:
		if x == nil {
			return never
		}
		return compare(col, x)
	case *filter.In:
		if x == nil {
			return never
		}
		ref, ok := exprKey(col, x.Key)
		if !ok {
			if len(x.Values) == 0 {
				return never
			}
			return unknown
		}
		cs := make([]cond, len(x.Values))
		for i, v := range x.Values {
			cs[i] = equal(ref, v, true)
		}
		return or(cs...)
	case *filter.And:
		if x == nil {
			return never
		}
		cs := make([]cond, len(x.Conditions))
		for i, c := range x.Conditions {
			cs[i] = compileExpr(col, c)
		}
		return and(cs...)
	case *filter.Or:
		if x == nil {
			return never
		}
		cs := make([]cond, len(x.Conditions))
		for i, c := range x.Conditions {
			cs[i] = compileExpr(col, c)
		}
		return or(cs...)
	case *filter.Not:
		if x == nil || x.Condition == nil {
			return never
		}
		return not(compileExpr(col, x.Condition))
	}
	// filter.MatchExpr is false for anything else, nil included.
	return never
}

func compare(col string, c *filter.Compare) cond {
	switch c.Operator {
	case filter.OpEQ, filter.OpNEQ, filter.OpGT, filter.OpGTE, filter.OpLT, filter.OpLTE, filter.OpCONTAINS:
	case filter.OpSTARTSWITH:
		if _, ok := c.Value.(string); !ok {
			return never
		}
	default:
		return never
	}
	ref, ok := exprKey(col, c.Key)
	if !ok {
		return unknown
	}
	typ := ref.typ()
	switch c.Operator {
	case filter.OpEQ:
		return equal(ref, c.Value, true)
	case filter.OpNEQ:
		eq := equal(ref, c.Value, false)
		present := seq("(", typ, " <> '')")
		if !eq.Exact {
			return present
		}
		return exact(seq("(", present, " AND NOT ", eq, ")"))
	case filter.OpCONTAINS:
		return seq("(", typ, " IN ('text', 'array'))")
	case filter.OpSTARTSWITH:
		return seq("(", typ, " = 'text')")
	}
	op := map[string]string{filter.OpGT: ">", filter.OpGTE: ">=", filter.OpLT: "<", filter.OpLTE: "<="}[c.Operator]
	kd, bind, ok := classify(c.Value)
	switch {
	case kd == kNumber && ok && bind != nil:
		return exact(seq("(", ref.val(), " "+op+" ", param(bind), " AND ", typ, " IN ('integer', 'real'))"))
	case kd == kNumber:
		return seq("(", typ, " IN ('integer', 'real'))")
	case kd == kString && ok:
		return exact(seq("(", ref.val(), " "+op+" ", param(bind), " AND ", typ, " = 'text')"))
	case kd == kString:
		return seq("(", typ, " = 'text')")
	}
	// Only two numbers or two strings are ordered.
	return never
}

// The match function: handles name the filters of running queries.
var (
	matchers = struct {
		sync.RWMutex
		next int64
		m    map[int64]filter.Filters
	}{m: map[int64]filter.Filters{}}
	// matchCalls counts calls of the match function (tests read it).
	matchCalls atomic.Int64
)

// addMatcher makes f available to the match function under the returned
// handle until release is called.
func addMatcher(f filter.Filters) (handle int64, release func()) {
	matchers.Lock()
	matchers.next++
	handle = matchers.next
	matchers.m[handle] = f
	matchers.Unlock()
	return handle, func() {
		matchers.Lock()
		delete(matchers.m, handle)
		matchers.Unlock()
	}
}

var registerMatch = sync.OnceValue(func() error {
	return sqlitedrv.RegisterScalarFunction(matchFunc, 2, func(_ *sqlitedrv.FunctionContext, args []driver.Value) (driver.Value, error) {
		matchCalls.Add(1)
		var meta string
		switch x := args[0].(type) {
		case string:
			meta = x
		case []byte:
			meta = string(x)
		default:
			return nil, fmt.Errorf("%s: metadata is %T, not JSON text", matchFunc, args[0])
		}
		h, _ := args[1].(int64)
		matchers.RLock()
		f, ok := matchers.m[h]
		matchers.RUnlock()
		if !ok {
			return nil, fmt.Errorf("%s: no filter under handle %v", matchFunc, args[1])
		}
		m, err := decodeMeta(meta)
		if err != nil {
			return nil, err
		}
		if filter.Match(m, f) {
			return int64(1), nil
		}
		return int64(0), nil
	})
})

// where is the filter part of a query over the records table aliased c,
// with its arguments; release frees the match function's handle.
func where(f filter.Filters) (sqlText string, args []any, release func()) {
	if f.IsZero() {
		return "", nil, func() {}
	}
	c := compileFilters("c.meta_data", f)
	var parts []string
	if c.SQL != "" {
		parts = append(parts, c.SQL)
		args = append(args, c.Args...)
	}
	release = func() {}
	if !c.Exact {
		var h int64
		h, release = addMatcher(f)
		parts = append(parts, matchFunc+"(c.meta_data, ?)")
		args = append(args, h)
	}
	return strings.Join(parts, " AND "), args, release
}
