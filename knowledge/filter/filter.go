// Package filter holds agno's metadata filters for knowledge searches: a
// dict of exact matches, or a list of filter expressions (agno.filters:
// EQ, NEQ, GT, GTE, LT, LTE, IN, CONTAINS, STARTSWITH, AND, OR, NOT).
//
// Expressions marshal to agno's to_dict form ({"op": "EQ", "key": k,
// "value": v}, ...) and Parse reads that form back, so filters travel
// through the API and config files unchanged.
package filter

import (
	"encoding/json"
	"fmt"
)

// Operator names as agno writes them in "op".
const (
	OpEQ         = "EQ"
	OpNEQ        = "NEQ"
	OpGT         = "GT"
	OpGTE        = "GTE"
	OpLT         = "LT"
	OpLTE        = "LTE"
	OpIN         = "IN"
	OpCONTAINS   = "CONTAINS"
	OpSTARTSWITH = "STARTSWITH"
	OpAND        = "AND"
	OpOR         = "OR"
	OpNOT        = "NOT"
)

// MaxDepth bounds the nesting of parsed expressions, as agno's
// MAX_FILTER_DEPTH does, so hostile input cannot exhaust the stack.
const MaxDepth = 10

// Expr is a filter expression: a *Compare, *In, *And, *Or or *Not.
type Expr interface {
	// Op is the expression's operator name.
	Op() string
	// Dict is agno's to_dict().
	Dict() map[string]any
}

// Keyed is implemented by the expressions that test one metadata key (all
// but AND, OR and NOT); filter validation looks at their keys.
type Keyed interface {
	Expr
	FilterKey() string
}

// Compare is EQ, NEQ, GT, GTE, LT, LTE, CONTAINS or STARTSWITH of one key.
type Compare struct {
	Operator string
	Key      string
	Value    any
}

// In matches when the key's value equals one of Values.
type In struct {
	Key    string
	Values []any
}

// And matches when every condition does (an empty And matches all).
type And struct{ Conditions []Expr }

// Or matches when any condition does (an empty Or matches none).
type Or struct{ Conditions []Expr }

// Not negates its condition.
type Not struct{ Condition Expr }

// EQ matches documents whose key equals value.
func EQ(key string, value any) *Compare { return &Compare{OpEQ, key, value} }

// NEQ matches documents that have key with a value other than value.
func NEQ(key string, value any) *Compare { return &Compare{OpNEQ, key, value} }

// GT matches documents whose key is greater than value.
func GT(key string, value any) *Compare { return &Compare{OpGT, key, value} }

// GTE matches documents whose key is greater than or equal to value.
func GTE(key string, value any) *Compare { return &Compare{OpGTE, key, value} }

// LT matches documents whose key is less than value.
func LT(key string, value any) *Compare { return &Compare{OpLT, key, value} }

// LTE matches documents whose key is less than or equal to value.
func LTE(key string, value any) *Compare { return &Compare{OpLTE, key, value} }

// CONTAINS matches a string value containing value (case-insensitive), or
// a list value holding it.
func CONTAINS(key, value string) *Compare { return &Compare{OpCONTAINS, key, value} }

// STARTSWITH matches a string value starting with value (case-insensitive).
func STARTSWITH(key, value string) *Compare { return &Compare{OpSTARTSWITH, key, value} }

// IN matches documents whose key equals one of values.
func IN(key string, values ...any) *In { return &In{Key: key, Values: values} }

// AND matches when all conditions match.
func AND(conditions ...Expr) *And { return &And{Conditions: conditions} }

// OR matches when any condition matches.
func OR(conditions ...Expr) *Or { return &Or{Conditions: conditions} }

// NOT negates condition.
func NOT(condition Expr) *Not { return &Not{Condition: condition} }

// Op implements Expr.
func (c *Compare) Op() string { return c.Operator }

// FilterKey implements Keyed.
func (c *Compare) FilterKey() string { return c.Key }

// Dict implements Expr.
func (c *Compare) Dict() map[string]any {
	return map[string]any{"op": c.Operator, "key": c.Key, "value": c.Value}
}

// Op implements Expr.
func (*In) Op() string { return OpIN }

// FilterKey implements Keyed.
func (i *In) FilterKey() string { return i.Key }

// Dict implements Expr.
func (i *In) Dict() map[string]any {
	values := i.Values
	if values == nil {
		values = []any{}
	}
	return map[string]any{"op": OpIN, "key": i.Key, "values": values}
}

// Op implements Expr.
func (*And) Op() string { return OpAND }

// Dict implements Expr.
func (a *And) Dict() map[string]any {
	return map[string]any{"op": OpAND, "conditions": dicts(a.Conditions)}
}

// Op implements Expr.
func (*Or) Op() string { return OpOR }

// Dict implements Expr.
func (o *Or) Dict() map[string]any {
	return map[string]any{"op": OpOR, "conditions": dicts(o.Conditions)}
}

// Op implements Expr.
func (*Not) Op() string { return OpNOT }

// Dict implements Expr.
func (n *Not) Dict() map[string]any {
	var cond any
	if n.Condition != nil {
		cond = n.Condition.Dict()
	}
	return map[string]any{"op": OpNOT, "condition": cond}
}

func dicts(exprs []Expr) []any {
	out := make([]any, len(exprs))
	for i, e := range exprs {
		out[i] = e.Dict()
	}
	return out
}

// MarshalJSON writes agno's to_dict form.
func (c *Compare) MarshalJSON() ([]byte, error) { return json.Marshal(c.Dict()) }

// MarshalJSON writes agno's to_dict form.
func (i *In) MarshalJSON() ([]byte, error) { return json.Marshal(i.Dict()) }

// MarshalJSON writes agno's to_dict form.
func (a *And) MarshalJSON() ([]byte, error) { return json.Marshal(a.Dict()) }

// MarshalJSON writes agno's to_dict form.
func (o *Or) MarshalJSON() ([]byte, error) { return json.Marshal(o.Dict()) }

// MarshalJSON writes agno's to_dict form.
func (n *Not) MarshalJSON() ([]byte, error) { return json.Marshal(n.Dict()) }

// Filters is what a search takes: agno's Union[Dict[str, Any],
// List[FilterExpr]]. At most one of Dict and Exprs is set; the zero value
// filters nothing.
type Filters struct {
	// Dict matches documents whose metadata contains every key with an
	// equal value (JSON containment, like Postgres' @>).
	Dict map[string]any
	// Exprs all have to match (agno ANDs the list).
	Exprs []Expr
}

// Dict returns exact-match filters.
func Dict(m map[string]any) Filters { return Filters{Dict: m} }

// List returns filters that need every expression to match.
func List(exprs ...Expr) Filters { return Filters{Exprs: exprs} }

// IsZero reports whether f filters nothing.
func (f Filters) IsZero() bool { return len(f.Dict) == 0 && len(f.Exprs) == 0 }

// IsList reports whether f is the expression-list form.
func (f Filters) IsList() bool { return f.Exprs != nil }

// MarshalJSON writes the dict, the list of expressions, or null.
func (f Filters) MarshalJSON() ([]byte, error) {
	switch {
	case f.Exprs != nil:
		return json.Marshal(dicts(f.Exprs))
	case f.Dict != nil:
		return json.Marshal(f.Dict)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads what Parse reads.
func (f *Filters) UnmarshalJSON(data []byte) error {
	parsed, err := Parse(data)
	if err != nil {
		return err
	}
	*f = parsed
	return nil
}

// String is the JSON form, for logs and error messages.
func (f Filters) String() string {
	b, err := f.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("%v", f.Dict)
	}
	return string(b)
}
