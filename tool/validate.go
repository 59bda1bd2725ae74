package tool

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/agno-go/agno/internal/pyrepr"
)

// ValidationError is a tool call whose arguments do not fit the tool's
// parameters schema. Its text is pydantic v2's ValidationError, which
// agno's validate_call-wrapped entrypoint raises and agno returns to the
// model as the tool result (without pydantic's "For further information
// visit …" lines, which only name a pydantic release).
type ValidationError struct {
	// Function is the tool's name, the title pydantic gives the error.
	Function string
	Errors   []ArgumentError
}

// ArgumentError is one failed check.
type ArgumentError struct {
	// Loc is pydantic's location: "unit", "cfg.mode", "tags.1".
	Loc string
	// Type is pydantic's error type: literal_error, missing_argument,
	// missing, int_type, int_parsing, string_type, …
	Type    string
	Message string
	// Input is the offending value (the enclosing object for a missing
	// field).
	Input any
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(e.Errors)))
	b.WriteString(" validation error")
	if len(e.Errors) != 1 {
		b.WriteByte('s')
	}
	b.WriteString(" for ")
	b.WriteString(e.Function)
	for _, a := range e.Errors {
		if a.Loc != "" {
			b.WriteByte('\n')
			b.WriteString(a.Loc)
		}
		b.WriteString("\n  ")
		b.WriteString(a.Message)
		b.WriteString(" [type=")
		b.WriteString(a.Type)
		b.WriteString(", input_value=")
		b.WriteString(truncateRepr(pyRepr(a.Input)))
		b.WriteString(", input_type=")
		b.WriteString(pyTypeName(a.Input))
		b.WriteByte(']')
	}
	return b.String()
}

// CheckArguments validates a call's arguments against the function's
// parameters schema, as agno's validate_call does before the entrypoint
// runs, and returns them as the handler receives them: converted where
// pydantic's lax mode converts ("3" or 3.0 to an integer, "yes" to true,
// 1.0 to the enum value 1), args itself when nothing changed. A mismatch is
// a *ValidationError. Only keywords whose meaning is certain are checked
// (type, enum, const, properties, required, additionalProperties, items,
// prefixItems, anyOf, oneOf, allOf, local $ref); any other keyword is
// ignored, so a call is never refused for something the schema allows.
// A Strict function's "required" is not enforced: agno's strict schemas
// list every property, those with a default too.
func (f *Function) CheckArguments(args map[string]any) (map[string]any, error) {
	out, _, err := f.checkArguments(args)
	return out, err
}

func (f *Function) checkArguments(args map[string]any) (map[string]any, bool, error) {
	root := f.argumentsSchema()
	if root == nil {
		return args, false, nil
	}
	c := &checker{refs: schemaRefs{root: root}, anyRequired: f.Strict}
	out, changed := c.object(root, args, true, 0)
	if len(c.errs) > 0 {
		return args, false, &ValidationError{Function: f.Name, Errors: c.errs}
	}
	return out, changed, nil
}

// argumentsSchema is the schema the arguments are checked against: the
// full schema as written (a human fills the fields hidden from the model
// before the call runs); nil when there is none to read.
func (f *Function) argumentsSchema() *object {
	if f.prepared {
		return f.argsSchema
	}
	src := f.Parameters
	if f.sourceParameters != nil {
		src = f.sourceParameters
	}
	if len(strings.TrimSpace(string(src))) == 0 {
		return nil
	}
	root, _, err := parseParameters(src)
	if err != nil {
		return nil
	}
	return root
}

// checked runs h on arguments that passed CheckArguments. It sits inside
// every hook, as validate_call wraps agno's entrypoint inside the tool
// hooks: hooks see (and may fix) the model's arguments.
func (f *Function) checked(h Handler) Handler {
	return func(ctx context.Context, args map[string]any) (Result, error) {
		args, err := f.CheckArguments(args)
		if err != nil {
			return Result{}, err
		}
		return h(ctx, args)
	}
}

// maxCheckDepth bounds recursion through self-referencing schemas, and
// maxUnionNesting the unions tried inside one another.
const (
	maxCheckDepth   = 64
	maxUnionNesting = 6
)

// checker walks one value against a schema, collecting errors.
type checker struct {
	refs schemaRefs
	// exact refuses every conversion: a union first looks for a member
	// the value fits as it is (pydantic's smart mode).
	exact bool
	// anyRequired reads "required" as saying nothing: agno's strict
	// rewrite (process_schema_for_strict) lists every property, so a
	// Strict function's schema no longer tells which have a default.
	anyRequired bool
	// unions counts the unions being tried around the value: each tries
	// its members up to three times, so nesting is bounded.
	unions int
	// path holds the keys (string) and indices (int) down to the value.
	path []any
	errs []ArgumentError
}

func (c *checker) fail(typ, msg string, input any) {
	parts := make([]string, len(c.path))
	for i, p := range c.path {
		switch x := p.(type) {
		case string:
			parts[i] = x
		case int:
			parts[i] = strconv.Itoa(x)
		}
	}
	c.errs = append(c.errs, ArgumentError{Loc: strings.Join(parts, "."), Type: typ, Message: msg, Input: input})
}

func (c *checker) push(p any) { c.path = append(c.path, p) }
func (c *checker) pop()       { c.path = c.path[:len(c.path)-1] }

// value checks v against s and returns v as converted, and whether it was.
func (c *checker) value(s *object, v any, depth int) (any, bool) {
	if depth > maxCheckDepth {
		return v, false
	}
	s = c.refs.resolve(s, 0)
	changed := false
	if !isJSONValue(v) {
		// A Go value from a direct Invoke (5, 1.5, []string): checked
		// as its JSON, and passed on as it is unless converted.
		if j, ok := asJSON(v); ok {
			out, ch := c.value(s, j, depth+1)
			if !ch {
				return v, false
			}
			return out, true
		}
	}
	errsBefore := len(c.errs)
	if l, ok := s.vals["allOf"].([]any); ok {
		for _, m := range l {
			if ms, ok := asObject(m); ok {
				var ch bool
				if v, ch = c.value(ms, v, depth+1); ch {
					changed = true
				}
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		// oneOf is checked as anyOf: "exactly one" would refuse a value
		// two loose members both admit.
		l, ok := s.vals[key].([]any)
		if !ok {
			continue
		}
		var alts []alternative
		for _, m := range l {
			if ms, ok := asObject(m); ok {
				ms := c.refs.resolve(ms, 0)
				alts = append(alts, alternative{schema: ms, null: isNullSchema(ms), check: func(c *checker, v any) (any, bool) {
					return c.value(ms, v, depth+1)
				}})
			}
		}
		var ch bool
		if v, ch = c.union(alts, v); ch {
			changed = true
		}
	}
	if len(c.errs) > errsBefore {
		return v, changed // the rest would repeat what the members said
	}
	// enum and const are pydantic's Literal: matched by Python equality,
	// whatever the declared type.
	if l, ok := s.vals["enum"].([]any); ok {
		return c.literal(l, v, changed)
	}
	if cv, ok := s.get("const"); ok {
		return c.literal([]any{cv}, v, changed)
	}
	var ch bool
	switch types := schemaTypes(s); len(types) {
	case 0:
		v, ch = c.structure(s, v, depth)
	case 1:
		v, ch = c.typed(s, types[0], v, depth)
	default:
		alts := make([]alternative, len(types))
		for i, t := range types {
			alts[i] = alternative{schema: s, typ: t, null: t == "null", check: func(c *checker, v any) (any, bool) {
				return c.typed(s, t, v, depth)
			}}
		}
		v, ch = c.union(alts, v)
	}
	return v, changed || ch
}

// schemaTypes lists a schema's "type" names.
func schemaTypes(s *object) []string {
	switch t := s.vals["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if n, ok := x.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}

func isNullSchema(s *object) bool {
	t := schemaTypes(s)
	return len(t) == 1 && t[0] == "null"
}

// alternative is one member of a union: an anyOf member, or one name of
// a "type" list (typ).
type alternative struct {
	schema *object
	typ    string
	null   bool
	check  func(c *checker, v any) (any, bool)
}

// union checks v against alternatives as pydantic's smart union does: a
// member v fits unconverted wins, else the first that fits after
// conversion; when none fits, every member's errors are reported under its
// tag ("x.int", "x.list[str]"). A null member only admits null, and is not
// reported (Optional[X] fails as X).
func (c *checker) union(alts []alternative, v any) (any, bool) {
	var real []alternative
	for _, a := range alts {
		if a.null {
			if v == nil {
				return v, false
			}
			continue
		}
		real = append(real, a)
	}
	if len(real) == 0 {
		if len(alts) > 0 {
			c.fail("none_required", "Input should be None", v)
		}
		return v, false
	}
	if len(real) == 1 {
		return real[0].check(c, v)
	}
	if c.unions >= maxUnionNesting {
		return v, false // too deep to try every member: admitted unchecked
	}
	for _, exact := range []bool{true, false} {
		if c.exact && !exact {
			break
		}
		for _, a := range real {
			trial := &checker{refs: c.refs, exact: exact, anyRequired: c.anyRequired, unions: c.unions + 1, path: c.path}
			if out, ch := a.check(trial, v); len(trial.errs) == 0 {
				return out, ch
			}
		}
	}
	for _, a := range real {
		sub := &checker{refs: c.refs, exact: c.exact, anyRequired: c.anyRequired, unions: c.unions + 1,
			path: append(slices.Clip(c.path), c.tag(a.schema, a.typ, 0))}
		a.check(sub, v)
		c.errs = append(c.errs, sub.errs...)
	}
	return v, false
}

// tag is pydantic's name for a union member: int, str, list[int],
// dict[str,any], literal['a',1].
func (c *checker) tag(s *object, typ string, depth int) string {
	s = c.refs.resolve(s, 0)
	if l, ok := s.vals["enum"].([]any); ok && typ == "" {
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = pyRepr(e)
		}
		return "literal[" + strings.Join(parts, ",") + "]"
	}
	if typ == "" {
		if t := schemaTypes(s); len(t) == 1 {
			typ = t[0]
		}
	}
	sub := func(key string) string {
		if o, ok := asObject(s.vals[key]); ok && depth < 8 {
			return c.tag(o, "", depth+1)
		}
		return "any"
	}
	switch typ {
	case "string":
		return "str"
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "null":
		return "none"
	case "array":
		return "list[" + sub("items") + "]"
	case "object":
		if t, ok := s.vals["title"].(string); ok && t != "" {
			return t
		}
		return "dict[str," + sub("additionalProperties") + "]"
	}
	return "any"
}

// typed checks v against one JSON type.
func (c *checker) typed(s *object, typ string, v any, depth int) (any, bool) {
	switch typ {
	case "string":
		if _, ok := v.(string); !ok {
			c.fail("string_type", "Input should be a valid string", v)
		}
	case "integer":
		return c.integer(v)
	case "number":
		return c.number(v)
	case "boolean":
		return c.boolean(v)
	case "null":
		if v != nil {
			c.fail("none_required", "Input should be None", v)
		}
	case "array":
		if _, ok := v.([]any); !ok {
			c.fail("list_type", "Input should be a valid list", v)
			return v, false
		}
		return c.structure(s, v, depth)
	case "object":
		if _, ok := v.(map[string]any); !ok {
			c.fail("dict_type", "Input should be a valid dictionary", v)
			return v, false
		}
		return c.structure(s, v, depth)
	}
	return v, false
}

// structure applies the object and array keywords to a value of that
// kind; they say nothing about other values.
func (c *checker) structure(s *object, v any, depth int) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return c.object(s, x, false, depth)
	case []any:
		return c.items(s, x, depth)
	}
	return v, false
}

// object checks properties, required and additionalProperties. At the top
// (the function's arguments) a missing or unknown name is a missing or
// unexpected argument, as pydantic words it for a signature; below, a
// missing or extra field.
func (c *checker) object(s *object, m map[string]any, top bool, depth int) (map[string]any, bool) {
	props, _ := asObject(s.vals["properties"])
	required := map[string]bool{}
	var requiredOrder []string
	if l, ok := s.vals["required"].([]any); ok && !c.anyRequired {
		for _, r := range l {
			if n, ok := r.(string); ok && !required[n] {
				required[n] = true
				requiredOrder = append(requiredOrder, n)
			}
		}
	}
	out, changed := m, false
	set := func(k string, v any) {
		if !changed {
			out, changed = maps.Clone(m), true
		}
		out[k] = v
	}
	missing := func(k string) {
		c.push(k)
		if top {
			c.fail("missing_argument", "Missing required argument", argsKwargs{orderedLike(m, props)})
		} else {
			c.fail("missing", "Field required", orderedLike(m, props))
		}
		c.pop()
	}
	// Properties in declaration order: pydantic reports in the order of
	// the signature.
	var declared []string
	if props != nil {
		declared = props.keys
	}
	for _, k := range declared {
		v, present := m[k]
		if !present {
			if required[k] {
				missing(k)
			}
			continue
		}
		// agno's schema for Optional[X] is X's, without null: an
		// optional parameter takes null whatever its schema says.
		if v == nil && !required[k] {
			continue
		}
		ps, ok := asObject(props.vals[k])
		if !ok {
			continue
		}
		c.push(k)
		nv, ch := c.value(ps, v, depth+1)
		c.pop()
		if ch {
			set(k, nv)
		}
	}
	for _, k := range requiredOrder {
		if props != nil {
			if _, isProp := props.vals[k]; isProp {
				continue
			}
		}
		if _, present := m[k]; !present {
			missing(k)
		}
	}
	switch ap := s.vals["additionalProperties"].(type) {
	case bool:
		// With patternProperties or a composition beside it, which
		// names are "additional" is not this object's alone to say.
		if ap || hasAny(s, "patternProperties", "allOf", "anyOf", "oneOf", "$ref", "unevaluatedProperties") {
			break
		}
		for _, k := range extraKeys(m, props) {
			c.push(k)
			if top {
				c.fail("unexpected_keyword_argument", "Unexpected keyword argument", m[k])
			} else {
				c.fail("extra_forbidden", "Extra inputs are not permitted", m[k])
			}
			c.pop()
		}
	case *object:
		if hasAny(s, "patternProperties") {
			break
		}
		for _, k := range extraKeys(m, props) {
			c.push(k)
			nv, ch := c.value(ap, m[k], depth+1)
			c.pop()
			if ch {
				set(k, nv)
			}
		}
	}
	return out, changed
}

// extraKeys lists, sorted, the names of m that are not properties.
func extraKeys(m map[string]any, props *object) []string {
	var out []string
	for k := range m {
		if props == nil {
			out = append(out, k)
		} else if _, ok := props.vals[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func hasAny(s *object, keys ...string) bool {
	for _, k := range keys {
		if _, ok := s.vals[k]; ok {
			return true
		}
	}
	return false
}

// orderedLike is m as an ordered object, its keys in the schema's property
// order and then sorted: the order the model most likely wrote, for the
// dict pydantic prints.
func orderedLike(m map[string]any, props *object) *object {
	o := newObject()
	if props != nil {
		for _, k := range props.keys {
			if v, ok := m[k]; ok {
				o.set(k, v)
			}
		}
	}
	rest := slices.Sorted(maps.Keys(m))
	for _, k := range rest {
		if _, ok := o.vals[k]; !ok {
			o.set(k, m[k])
		}
	}
	return o
}

// items checks an array's elements against prefixItems (or the older
// array form of items) and items.
func (c *checker) items(s *object, l []any, depth int) ([]any, bool) {
	prefix, _ := s.vals["prefixItems"].([]any)
	rest := s.vals["items"]
	if tuple, ok := rest.([]any); ok {
		prefix, rest = tuple, s.vals["additionalItems"]
	}
	restSchema, _ := asObject(rest)
	out, changed := l, false
	for i, e := range l {
		es := restSchema
		if i < len(prefix) {
			es, _ = asObject(prefix[i])
		}
		if es == nil {
			continue
		}
		c.push(i)
		ne, ch := c.value(es, e, depth+1)
		c.pop()
		if ch {
			if !changed {
				out, changed = slices.Clone(l), true
			}
			out[i] = ne
		}
	}
	return out, changed
}

// literal matches v against the allowed values by Python equality (1 ==
// 1.0 == True) and returns the listed value, as a Literal does.
func (c *checker) literal(allowed []any, v any, changed bool) (any, bool) {
	if len(allowed) == 0 {
		return v, changed // "enum": [] admits nothing; refusing every call helps no one
	}
	for _, a := range allowed {
		if !isScalar(a) {
			// A list or object among the values: not compared (Python
			// and JSON equality differ there), so nothing is refused.
			return v, changed
		}
	}
	for _, a := range allowed {
		if sameScalar(a, v) {
			return v, changed
		}
		if !c.exact && pyEqual(a, v) {
			return a, true
		}
	}
	parts := make([]string, len(allowed))
	for i, a := range allowed {
		parts[i] = pyRepr(a)
	}
	want := parts[len(parts)-1]
	if len(parts) > 1 {
		want = strings.Join(parts[:len(parts)-1], ", ") + " or " + want
	}
	c.fail("literal_error", "Input should be "+want, v)
	return v, changed
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, string, json.Number:
		return true
	}
	return false
}

// sameScalar reports whether a and b are the same JSON text.
func sameScalar(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

// pyEqual is Python's == on JSON scalars: numbers by value, a boolean as
// 1 or 0.
func pyEqual(a, b any) bool {
	if sameScalar(a, b) {
		return true
	}
	ra, aok := numericValue(a)
	rb, bok := numericValue(b)
	return aok && bok && ra.Cmp(rb) == 0
}

func numericValue(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewRat(1, 1), true
		}
		return new(big.Rat), true
	case json.Number:
		if !pyrepr.IsFloat(x) {
			return new(big.Rat).SetString(string(x))
		}
		// A float is compared as json.loads reads it (1e400 is inf),
		// which also keeps a huge exponent from becoming a huge Rat.
		f, _ := strconv.ParseFloat(string(x), 64)
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(f), true
	}
	return nil, false
}

func (c *checker) integer(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if !pyrepr.IsFloat(x) {
			return v, false
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		switch {
		case c.exact:
			c.fail("int_type", "Input should be a valid integer", v)
		case math.IsInf(f, 0):
			c.fail("finite_number", "Input should be a finite number", v)
		case f != math.Trunc(f):
			c.fail("int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
		case f < math.MinInt64 || f >= math.MaxInt64:
			c.fail("int_parsing_size", "Unable to parse input string as an integer, exceeded maximum size", v)
		default:
			return json.Number(strconv.FormatInt(int64(f), 10)), true
		}
	case bool:
		if c.exact {
			c.fail("int_type", "Input should be a valid integer", v)
		} else if x {
			return json.Number("1"), true
		} else {
			return json.Number("0"), true
		}
	case string:
		if n, ok := parseIntText(x); ok && !c.exact {
			return json.Number(n), true
		}
		c.fail("int_parsing", "Input should be a valid integer, unable to parse string as an integer", v)
	default:
		c.fail("int_type", "Input should be a valid integer", v)
	}
	return v, false
}

// parseIntText reads an integer as pydantic does from a string: spaces
// around, a sign, ASCII digits with single underscores between them, and
// a fraction of zeros ("3.0"). It returns the JSON integer.
func parseIntText(s string) (string, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if whole, frac, ok := strings.Cut(s, "."); ok {
		if frac == "" || strings.Trim(frac, "0") != "" {
			return "", false
		}
		s = whole
	}
	digits, ok := stripUnderscores(s)
	if !ok || digits == "" {
		return "", false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return "", false
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	if neg {
		digits = "-" + digits
	}
	return digits, true
}

// stripUnderscores removes digit-group underscores: none first or last,
// never two in a row.
func stripUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") {
		return s, true
	}
	if strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return "", false
	}
	return strings.ReplaceAll(s, "_", ""), true
}

func (c *checker) number(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return v, false
	case bool:
		if c.exact {
			break
		}
		if x {
			return json.Number("1"), true
		}
		return json.Number("0"), true
	case string:
		if n, ok := parseFloatText(x); ok && !c.exact {
			return json.Number(n), true
		}
		c.fail("float_parsing", "Input should be a valid number, unable to parse string as a number", v)
		return v, false
	}
	c.fail("float_type", "Input should be a valid number", v)
	return v, false
}

// parseFloatText reads a decimal number from a string as pydantic does
// and returns it as JSON. inf and nan, which pydantic takes, have no JSON
// form and are refused.
func parseFloatText(s string) (string, bool) {
	s, ok := stripUnderscores(strings.TrimSpace(s))
	if !ok {
		return "", false
	}
	t := strings.ToLower(s)
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	mant, exp, hasExp := strings.Cut(t, "e")
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if exp == "" || !allDigits(exp) {
			return "", false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	if whole+frac == "" || !allDigits(whole) || !allDigits(frac) {
		return "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", false
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pydantic's lax boolean strings, matched case-insensitively.
var boolWords = map[string]bool{
	"0": false, "off": false, "f": false, "false": false, "n": false, "no": false,
	"1": true, "on": true, "t": true, "true": true, "y": true, "yes": true,
}

func (c *checker) boolean(v any) (any, bool) {
	switch x := v.(type) {
	case bool:
		return v, false
	case string:
		if b, ok := boolWords[strings.ToLower(x)]; ok && !c.exact {
			return b, true
		}
		c.fail("bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
		return v, false
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if c.exact || err != nil || f != math.Trunc(f) {
			break // a fraction is no boolean at all, for pydantic
		}
		switch f {
		case 0:
			return false, true
		case 1:
			return true, true
		}
		c.fail("bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
		return v, false
	}
	c.fail("bool_type", "Input should be a valid boolean", v)
	return v, false
}

// asJSON is a Go value a caller passed to Invoke (an int, a []string) as
// json.Unmarshal with UseNumber would give it.
func asJSON(v any) (any, bool) {
	raw, err := marshalNoEscape(v)
	var back any
	if err != nil || decodeStrict(string(raw), &back) != nil {
		return nil, false
	}
	return back, true
}

// isJSONValue reports whether v is one of the types json.Unmarshal (with
// UseNumber) gives.
func isJSONValue(v any) bool {
	switch v.(type) {
	case nil, bool, string, json.Number, []any, map[string]any:
		return true
	}
	return false
}
