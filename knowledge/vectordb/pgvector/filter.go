package pgvector

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlcond"
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
	dialect  = sqlcond.Dialect{False: "false"}
	never    = dialect.Never()
	unknown  = dialect.Unknown()
	compiler = sqlcond.Compiler{Dialect: dialect, JSON: jsonb{}}
)

func seq(parts ...any) cond { return sqlcond.Seq(parts...) }

func param(v any) cond { return cond{SQL: "$?", Args: []any{v}} }

func exact(c cond) cond { return sqlcond.Exact(c) }

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
func compileFilters(col string, f filter.Filters) cond { return compiler.Compile(col, f) }

// jsonb is how Postgres reads the metadata (sqlcond.JSON).
type jsonb struct{}

func (jsonb) String() string { return "string" }

// key is a metadata key as a jsonb expression: the key itself, or for a
// dotted key of an expression, the path through nested objects when the
// key itself is missing (filter.Value).
type key struct{ x cond }

func dictKey(col, k string) key {
	return key{x: seq("("+col+" -> ", param(k), ")")}
}

// ExprKey implements sqlcond.JSON: false for keys whose path has a part
// #> would read as an array index, which filter.Value never does.
func (jsonb) ExprKey(col, k string) (sqlcond.Key, bool) {
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

// Type is the value's jsonb_typeof, "" when missing; never NULL.
func (k key) Type() cond { return seq("COALESCE(jsonb_typeof(", k.x, "), '')") }

// text is a string value as text.
func (k key) text() cond { return seq("(", k.x, " #>> '{}')") }

// classify sorts a filter value and returns the text of a number to
// compare as numeric. exact is false when PostgreSQL's comparison could
// disagree with filter.Equal's: strings holding NUL, numbers that are not
// finite. Stored floats are written in their shortest form (metajson),
// and numeric comparison of shortest forms orders as their doubles do.
func classify(v any) (k sqlcond.Kind, num string, exact bool) {
	switch x := v.(type) {
	case nil:
		return sqlcond.KNull, "", true
	case string:
		return sqlcond.KString, "", !strings.ContainsRune(x, 0)
	case bool:
		return sqlcond.KBool, "", true
	case int:
		return sqlcond.KNumber, strconv.FormatInt(int64(x), 10), true
	case int8:
		return sqlcond.KNumber, strconv.FormatInt(int64(x), 10), true
	case int16:
		return sqlcond.KNumber, strconv.FormatInt(int64(x), 10), true
	case int32:
		return sqlcond.KNumber, strconv.FormatInt(int64(x), 10), true
	case int64:
		return sqlcond.KNumber, strconv.FormatInt(x, 10), true
	case uint:
		return sqlcond.KNumber, strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return sqlcond.KNumber, strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return sqlcond.KNumber, strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return sqlcond.KNumber, strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return sqlcond.KNumber, strconv.FormatUint(x, 10), true
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
				return sqlcond.KNumber, s, true
			}
			return sqlcond.KOther, "", false
		}
		f, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil:
			return float(f)
		case errors.Is(err, strconv.ErrRange):
			return sqlcond.KNumber, "", false // ±Inf or an underflow to 0
		}
		return sqlcond.KOther, "", false
	case map[string]any:
		return sqlcond.KObject, "", false
	}
	if reflect.ValueOf(v).Kind() == reflect.Slice {
		return sqlcond.KList, "", false
	}
	return sqlcond.KOther, "", false
}

// float formats a finite float so that numeric comparison agrees with
// comparing doubles: stored doubles are written by Go's shortest
// formatting, and shortest forms order as their doubles do.
func float(f float64) (sqlcond.Kind, string, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return sqlcond.KOther, "", false // not a number to filter.Equal
	}
	return sqlcond.KNumber, strconv.FormatFloat(f, 'g', -1, 64), true
}

// numeric compares a number value with op: a CASE, so the cast never
// meets a value that is not a number.
func numeric(k key, op, num string) cond {
	return seq("(CASE WHEN jsonb_typeof(", k.x, ") = 'number' THEN (", k.x, ")::numeric "+op+" ", param(num), "::text::numeric ELSE false END)")
}

// Equal implements sqlcond.JSON: filter.Equal(value, v) for a present
// value; missingIsNull also matches a missing key when v is nil (EQ's
// rule).
func (jsonb) Equal(ref sqlcond.Key, v any, missingIsNull bool) cond {
	k := ref.(key)
	typ := k.Type()
	kd, num, ok := classify(v)
	switch kd {
	case sqlcond.KString:
		if !ok {
			return seq("(", typ, " = 'string')")
		}
		return exact(seq("(", typ, " = 'string' AND ", k.text(), " = ", param(v), "::text)"))
	case sqlcond.KNumber:
		if !ok {
			return seq("(", typ, " = 'number')")
		}
		return exact(numeric(k, "=", num))
	case sqlcond.KBool:
		return exact(seq("COALESCE(", k.x, " = ", param(strconv.FormatBool(v.(bool))), "::text::jsonb, false)"))
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
// scalar is equality of a present value. For lists and objects @> is a
// necessary condition (filter.Match's containment implies it), and
// indexed.
func (jsonb) DictEntry(col, k string, v any) cond {
	c := jsonb{}.Equal(dictKey(col, k), v, false)
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
	if kd, _, _ := classify(v); kd == sqlcond.KList || kd == sqlcond.KObject {
		if b, err := json.Marshal(map[string]any{k: v}); err == nil {
			return seq("("+col+" @> ", param(string(b)), "::text::jsonb)")
		}
	}
	return c
}

// Order implements sqlcond.JSON.
func (jsonb) Order(k sqlcond.Key, op string, v any) cond {
	ref := k.(key)
	typ := ref.Type()
	kd, num, ok := classify(v)
	switch {
	case kd == sqlcond.KNumber && ok:
		return exact(numeric(ref, op, num))
	case kd == sqlcond.KNumber:
		return seq("(", typ, " = 'number')")
	case kd == sqlcond.KString && ok:
		// COLLATE "C" orders by bytes, which for UTF-8 is code point order,
		// as Go compares strings.
		return exact(seq("(", typ, " = 'string' AND ", ref.text(), ` COLLATE "C" `+op+" ", param(v), "::text)"))
	case kd == sqlcond.KString:
		return seq("(", typ, " = 'string')")
	}
	return never
}
