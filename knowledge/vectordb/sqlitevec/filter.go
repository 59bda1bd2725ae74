package sqlitevec

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	sqlitedrv "modernc.org/sqlite"

	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlcond"
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
	dialect  = sqlcond.Dialect{False: "0"}
	never    = dialect.Never()
	unknown  = dialect.Unknown()
	compiler = sqlcond.Compiler{Dialect: dialect, JSON: json1{}}
)

// compileFilters translates f over the JSON column col.
func compileFilters(col string, f filter.Filters) cond { return compiler.Compile(col, f) }

// json1 is how SQLite reads the metadata (sqlcond.JSON).
type json1 struct{}

func (json1) String() string { return "text" }

// key is a metadata key as SQL: p1 is the JSON path of the key itself, p2
// (dotted keys only) the path through nested objects, which
// filter.Value follows when the key itself is missing.
type key struct {
	col, p1, p2 string
}

// Type is the SQL expression of the value's json_type, "" when missing;
// it is never NULL.
func (k key) Type() cond {
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

// ExprKey implements sqlcond.JSON: the key itself, else (when dotted)
// the path through nested objects, as filter.Value.
func (json1) ExprKey(col, k string) (sqlcond.Key, bool) {
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

// classify sorts a filter value and returns what to bind for it. exact
// is false when SQLite's comparison of the bound value could disagree
// with filter.Equal's: strings holding NUL, integers beyond int64 and
// numbers that are not finite. Stored numbers are written in Go's
// shortest form (see normalizeMeta), which SQLite reads back as the same
// double, so comparing doubles in SQL is filter.Equal's comparison.
func classify(v any) (k sqlcond.Kind, bind any, exact bool) {
	switch x := v.(type) {
	case nil:
		return sqlcond.KNull, nil, true
	case string:
		return sqlcond.KString, x, !strings.ContainsRune(x, 0)
	case bool:
		return sqlcond.KBool, x, true
	case int:
		return sqlcond.KNumber, int64(x), true
	case int8:
		return sqlcond.KNumber, int64(x), true
	case int16:
		return sqlcond.KNumber, int64(x), true
	case int32:
		return sqlcond.KNumber, int64(x), true
	case int64:
		return sqlcond.KNumber, x, true
	case uint:
		return unsigned(uint64(x))
	case uint8:
		return sqlcond.KNumber, int64(x), true
	case uint16:
		return sqlcond.KNumber, int64(x), true
	case uint32:
		return sqlcond.KNumber, int64(x), true
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
				return sqlcond.KNumber, n, true
			}
			if _, ok := new(big.Int).SetString(s, 10); ok {
				return sqlcond.KNumber, nil, false // beyond int64: the match function compares
			}
			return sqlcond.KOther, nil, false
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil:
			return float(f)
		case errors.Is(err, strconv.ErrRange):
			return sqlcond.KNumber, nil, false // ±Inf or an underflow to 0
		}
		return sqlcond.KOther, nil, false
	case map[string]any:
		return sqlcond.KObject, nil, false
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return sqlcond.KList, nil, false
	}
	return sqlcond.KOther, nil, false
}

func unsigned(x uint64) (sqlcond.Kind, any, bool) {
	if x <= math.MaxInt64 {
		return sqlcond.KNumber, int64(x), true
	}
	return sqlcond.KNumber, nil, false
}

func float(f float64) (sqlcond.Kind, any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return sqlcond.KOther, nil, false // not a number to filter.Equal
	}
	return sqlcond.KNumber, f, true
}

func seq(parts ...any) cond { return sqlcond.Seq(parts...) }

func exact(c cond) cond { return sqlcond.Exact(c) }

// param is a bound value. Value comparisons come before type checks in
// the conditions: SQLite stops at the first false term of an AND, and the
// comparison fails for most records.
func param(v any) cond { return cond{SQL: "?", Args: []any{v}} }

// Equal implements sqlcond.JSON: filter.Equal(value, v) for a present
// value; missingIsNull also matches a missing key when v is nil (EQ's
// rule).
func (json1) Equal(ref sqlcond.Key, v any, missingIsNull bool) cond {
	k := ref.(key)
	typ := k.Type()
	kd, bind, ok := classify(v)
	switch kd {
	case sqlcond.KString:
		if !ok {
			return seq("(", typ, " = 'text')")
		}
		return exact(seq("(", k.val(), " = ", param(bind), " AND ", typ, " = 'text')"))
	case sqlcond.KNumber:
		if !ok || bind == nil {
			return seq("(", typ, " IN ('integer', 'real'))")
		}
		return exact(seq("(", k.val(), " = ", param(bind), " AND ", typ, " IN ('integer', 'real'))"))
	case sqlcond.KBool:
		if v.(bool) {
			return exact(seq("(", typ, " = 'true')"))
		}
		return exact(seq("(", typ, " = 'false')"))
	case sqlcond.KNull:
		if missingIsNull {
			return exact(seq("(", typ, " IN ('', 'null'))"))
		}
		return exact(seq("(", typ, " = 'null')"))
	case sqlcond.KList:
		return seq("(", typ, " = 'array')")
	case sqlcond.KObject:
		return seq("(", typ, " = 'object')")
	}
	return unknown
}

// DictEntry implements sqlcond.JSON: JSON containment, which for a
// scalar is equality of a present value.
func (json1) DictEntry(col, k string, v any) cond {
	ref, ok := dictKey(col, k)
	if !ok {
		return unknown
	}
	return json1{}.Equal(ref, v, false)
}

// Order implements sqlcond.JSON.
func (json1) Order(k sqlcond.Key, op string, v any) cond {
	ref := k.(key)
	typ := ref.Type()
	kd, bind, ok := classify(v)
	switch {
	case kd == sqlcond.KNumber && ok && bind != nil:
		return exact(seq("(", ref.val(), " "+op+" ", param(bind), " AND ", typ, " IN ('integer', 'real'))"))
	case kd == sqlcond.KNumber:
		return seq("(", typ, " IN ('integer', 'real'))")
	case kd == sqlcond.KString && ok:
		return exact(seq("(", ref.val(), " "+op+" ", param(bind), " AND ", typ, " = 'text')"))
	case kd == sqlcond.KString:
		return seq("(", typ, " = 'text')")
	}
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
