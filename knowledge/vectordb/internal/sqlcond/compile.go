package sqlcond

import (
	"slices"

	"github.com/agno-go/agno/knowledge/filter"
)

// Kind sorts a filter value by how SQL may compare it.
type Kind int

// Kinds of filter values.
const (
	KOther Kind = iota
	KString
	KNumber
	KBool
	KNull
	KList
	KObject
)

// Key is a metadata key as one database's SQL addresses it.
type Key interface {
	// Type is the value's JSON type as the database names it, "" when
	// the key is missing; never NULL.
	Type() Cond
}

// JSON is how one database reads the metadata column: what Compile
// cannot write once for every database.
type JSON interface {
	// DictEntry is one key of a dict filter (the key itself, never a
	// path): equality of a present value.
	DictEntry(col, k string, v any) Cond
	// ExprKey is a key of an expression: the key itself, else (when
	// dotted) the path through nested objects, as filter.Value; false
	// when SQL cannot address it.
	ExprKey(col, k string) (Key, bool)
	// Equal is filter.Equal(value, v) for a present value; missingIsNull
	// also matches a missing key when v is nil (EQ's rule).
	Equal(k Key, v any, missingIsNull bool) Cond
	// Order is "value op v" (op >, >=, <, <=) for a number or string v;
	// Never for any other v (only two numbers or two strings are
	// ordered).
	Order(k Key, op string, v any) Cond
	// String is the type name of a string value (Key.Type).
	String() string
}

// Compiler translates filters over a metadata column.
type Compiler struct {
	Dialect
	JSON JSON
}

// Compile translates f over the JSON column col.
func (c Compiler) Compile(col string, f filter.Filters) Cond {
	var cs []Cond
	if f.Dict != nil {
		keys := make([]string, 0, len(f.Dict))
		for k := range f.Dict {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			cs = append(cs, c.JSON.DictEntry(col, k, f.Dict[k]))
		}
	}
	for _, e := range f.Exprs {
		cs = append(cs, c.expr(col, e))
	}
	return c.And(cs...)
}

func (c Compiler) expr(col string, e filter.Expr) Cond {
	switch x := e.(type) {
	case *filter.Compare:
		if x == nil {
			return c.Never()
		}
		return c.compare(col, x)
	case *filter.In:
		if x == nil || len(x.Values) == 0 {
			return c.Never()
		}
		ref, ok := c.JSON.ExprKey(col, x.Key)
		if !ok {
			return c.Unknown()
		}
		cs := make([]Cond, len(x.Values))
		for i, v := range x.Values {
			cs[i] = c.JSON.Equal(ref, v, true)
		}
		return c.Or(cs...)
	case *filter.And:
		if x == nil {
			return c.Never()
		}
		return c.And(c.each(col, x.Conditions)...)
	case *filter.Or:
		if x == nil {
			return c.Never()
		}
		return c.Or(c.each(col, x.Conditions)...)
	case *filter.Not:
		if x == nil || x.Condition == nil {
			return c.Never()
		}
		return c.Not(c.expr(col, x.Condition))
	}
	// filter.MatchExpr is false for anything else, nil included.
	return c.Never()
}

func (c Compiler) each(col string, es []filter.Expr) []Cond {
	cs := make([]Cond, len(es))
	for i, e := range es {
		cs[i] = c.expr(col, e)
	}
	return cs
}

func (c Compiler) compare(col string, x *filter.Compare) Cond {
	switch x.Operator {
	case filter.OpEQ, filter.OpNEQ, filter.OpGT, filter.OpGTE, filter.OpLT, filter.OpLTE, filter.OpCONTAINS:
	case filter.OpSTARTSWITH:
		if _, ok := x.Value.(string); !ok {
			return c.Never()
		}
	default:
		return c.Never()
	}
	ref, ok := c.JSON.ExprKey(col, x.Key)
	if !ok {
		return c.Unknown()
	}
	typ := ref.Type()
	switch x.Operator {
	case filter.OpEQ:
		return c.JSON.Equal(ref, x.Value, true)
	case filter.OpNEQ:
		eq := c.JSON.Equal(ref, x.Value, false)
		present := Seq("(", typ, " <> '')")
		if !eq.Exact {
			return present
		}
		return Exact(Seq("(", present, " AND NOT ", eq, ")"))
	case filter.OpCONTAINS:
		return Seq("(", typ, " IN ('"+c.JSON.String()+"', 'array'))")
	case filter.OpSTARTSWITH:
		return Seq("(", typ, " = '"+c.JSON.String()+"')")
	}
	op := map[string]string{filter.OpGT: ">", filter.OpGTE: ">=", filter.OpLT: "<", filter.OpLTE: "<="}[x.Operator]
	return c.JSON.Order(ref, op, x.Value)
}
