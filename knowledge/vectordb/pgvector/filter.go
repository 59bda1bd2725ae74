package pgvector

import (
	"encoding/json"
	"errors"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlcond"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
)

// Metadata filters become SQL over the jsonb metadata. Each part of a
// filter translates to a condition every matching record meets; where
// jsonb operators give exactly filter.Match's answer (equality and order
// of strings, numbers, booleans and null, IN, AND, OR, NOT, dotted keys)
// the condition is the filter itself. The rest (CONTAINS and STARTSWITH,
// which fold case the Unicode way, list and object values) is checked by
// filter.Match in Go over the candidates the SQL part selects.
//
// Fragments use "$?" for their parameters; number gives them their
// positions once the query is assembled.

// cond is a filter, or part of one, as SQL.
type cond = sqlcond.Cond

var (
	dialect = sqlcond.Dialect{False: "false"}
	always  = dialect.Always()
	never   = dialect.Never()
	unknown = dialect.Unknown()
)

func and(cs ...cond) cond { return dialect.And(cs...) }

func or(cs ...cond) cond { return dialect.Or(cs...) }

func not(c cond) cond { return dialect.Not(c) }

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

func param(v any) cond { return cond{SQL: "$?", Args: []any{v}} }

func exact(c cond) cond { c.Exact = true; return c }

// number replaces the "$?" markers of sql by $start, $start+1, ...
func number(sql string, start int) string {
	var b strings.Builder
	for {
		i := strings.Index(sql, "$?")
		if i < 0 {
			b.WriteString(sql)
			return b.String()
		}
		b.WriteString(sql[:i])
		b.WriteString("$" + strconv.Itoa(start))
		start++
		sql = sql[i+2:]
	}
}

// compileFilters translates f over the jsonb column col.
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

// key is a metadata key as a jsonb expression: the key itself, or for a
// dotted key of an expression, the path through nested objects when the
// key itself is missing (filter.Value).
type key struct{ x cond }

func dictKey(col, k string) key {
	return key{x: seq("("+col+" -> ", param(k), ")")}
}

// exprKey is false for keys whose path has a part #> would read as an
// array index, which filter.Value never does.
func exprKey(col, k string) (key, bool) {
	if !strings.Contains(k, ".") {
		return dictKey(col, k), true
	}
	parts := strings.Split(k, ".")
	for _, p := range parts {
		if _, err := strconv.Atoi(strings.TrimSpace(p)); err == nil {
			return key{}, false
		}
	}
	return key{x: seq("(CASE WHEN "+col+" ? ", param(k), " THEN "+col+" -> ", param(k), " ELSE "+col+" #> ", param(parts), "::text[] END)")}, true
}

// typ is the value's jsonb_typeof, "" when missing; never NULL.
func (k key) typ() cond { return seq("COALESCE(jsonb_typeof(", k.x, "), '')") }

// text is a string value as text.
func (k key) text() cond { return seq("(", k.x, " #>> '{}')") }

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

// classify sorts a filter value and returns the text of a number to
// compare as numeric. exact is false when PostgreSQL's comparison could
// disagree with filter.Equal's: strings holding NUL, numbers that are not
// finite. Stored floats are written in their shortest form (metajson),
// and numeric comparison of shortest forms orders as their doubles do.
func classify(v any) (k kind, num string, exact bool) {
	switch x := v.(type) {
	case nil:
		return kNull, "", true
	case string:
		return kString, "", !strings.ContainsRune(x, 0)
	case bool:
		return kBool, "", true
	case int:
		return kNumber, strconv.FormatInt(int64(x), 10), true
	case int8:
		return kNumber, strconv.FormatInt(int64(x), 10), true
	case int16:
		return kNumber, strconv.FormatInt(int64(x), 10), true
	case int32:
		return kNumber, strconv.FormatInt(int64(x), 10), true
	case int64:
		return kNumber, strconv.FormatInt(x, 10), true
	case uint:
		return kNumber, strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return kNumber, strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return kNumber, strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return kNumber, strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return kNumber, strconv.FormatUint(x, 10), true
	case float32:
		return float(float64(x))
	case float64:
		return float(x)
	case json.Number:
		// As filter.Equal reads it: an integer literal is an int (exact
		// in numeric, whatever its size), any other number the nearest
		// double (Python's json.loads).
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if _, ok := new(big.Int).SetString(s, 10); ok {
				return kNumber, s, true
			}
			return kOther, "", false
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil:
			return float(f)
		case errors.Is(err, strconv.ErrRange):
			return kNumber, "", false // ±Inf or an underflow to 0
		}
		return kOther, "", false
	case map[string]any:
		return kObject, "", false
	}
	if reflect.ValueOf(v).Kind() == reflect.Slice {
		return kList, "", false
	}
	return kOther, "", false
}

// float formats a finite float so that numeric comparison agrees with
// comparing doubles: stored doubles are written by Go's shortest
// formatting, and shortest forms order as their doubles do.
func float(f float64) (kind, string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return kOther, "", false // not a number to filter.Equal
	}
	return kNumber, strconv.FormatFloat(f, 'g', -1, 64), true
}

// numeric compares a number value with op: a CASE, so the cast never
// meets a value that is not a number.
func numeric(k key, op, num string) cond {
	return seq("(CASE WHEN jsonb_typeof(", k.x, ") = 'number' THEN (", k.x, ")::numeric "+op+" ", param(num), "::text::numeric ELSE false END)")
}

// equal is filter.Equal(value, v) for a present value; missingIsNull
// also matches a missing key when v is nil (EQ's rule).
func equal(k key, v any, missingIsNull bool) cond {
	typ := k.typ()
	kd, num, ok := classify(v)
	switch kd {
	case kString:
		if !ok {
			return seq("(", typ, " = 'string')")
		}
		return exact(seq("(", typ, " = 'string' AND ", k.text(), " = ", param(v), "::text)"))
	case kNumber:
		if !ok {
			return seq("(", typ, " = 'number')")
		}
		return exact(numeric(k, "=", num))
	case kBool:
		return exact(seq("COALESCE(", k.x, " = ", param(strconv.FormatBool(v.(bool))), "::text::jsonb, false)"))
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
// scalar is equality of a present value. For lists and objects @> is a
// necessary condition (filter.Match's containment implies it), and
// indexed.
func dictEntry(col, k string, v any) cond {
	c := equal(dictKey(col, k), v, false)
	if c.Exact {
		// Containment of the same key and value holds for every match and
		// is what the GIN index (jsonb_path_ops) answers; the condition
		// stays for exactness. The literal is written as metadata is, so
		// jsonb compares the same numbers.
		if lit, err := metajson.Encode(map[string]any{k: v}); err == nil {
			return exact(seq("("+col+" @> ", param(lit), "::text::jsonb AND ", c, ")"))
		}
		return c
	}
	if kd, _, _ := classify(v); kd == kList || kd == kObject {
		if b, err := json.Marshal(map[string]any{k: v}); err == nil {
			return seq("("+col+" @> ", param(string(b)), "::text::jsonb)")
		}
	}
	return c
}

func compileExpr(col string, e filter.Expr) cond {
	switch x := e.(type) {
	case *filter.Compare:
		if x == nil {
			return never
		}
		return compare(col, x)
	case *filter.In:
		if x == nil || len(x.Values) == 0 {
			return never
		}
		ref, ok := exprKey(col, x.Key)
		if !ok {
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
		return seq("(", typ, " IN ('string', 'array'))")
	case filter.OpSTARTSWITH:
		return seq("(", typ, " = 'string')")
	}
	op := map[string]string{filter.OpGT: ">", filter.OpGTE: ">=", filter.OpLT: "<", filter.OpLTE: "<="}[c.Operator]
	kd, num, ok := classify(c.Value)
	switch {
	case kd == kNumber && ok:
		return exact(numeric(ref, op, num))
	case kd == kNumber:
		return seq("(", typ, " = 'number')")
	case kd == kString && ok:
		// COLLATE "C" orders by bytes, which for UTF-8 is code point order,
		// as Go compares strings.
		return exact(seq("(", typ, " = 'string' AND ", ref.text(), ` COLLATE "C" `+op+" ", param(c.Value), "::text)"))
	case kd == kString:
		return seq("(", typ, " = 'string')")
	}
	// Only two numbers or two strings are ordered.
	return never
}
