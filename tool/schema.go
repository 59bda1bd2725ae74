package tool

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Enumer is implemented by a type whose values are a fixed set (agno's
// Literal[...]). The values decide the schema: all strings → string enum;
// all booleans → boolean; all integers → integer; integers and floats →
// number; a mix of kinds → a bare enum with no type. Enum is called on the
// zero value (through a pointer when the method has a pointer receiver).
type Enumer interface {
	Enum() []any
}

// Schemer is implemented by a type that states its own JSON schema (a JSON
// object). It is the way to describe a type with custom JSON encoding. A
// tool's Args type may implement it to state the whole parameters schema.
type Schemer interface {
	JSONSchema() json.RawMessage
}

var (
	enumerType          = reflect.TypeFor[Enumer]()
	schemerType         = reflect.TypeFor[Schemer]()
	timeType            = reflect.TypeFor[time.Time]()
	rawJSONType         = reflect.TypeFor[json.RawMessage]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// SchemaError names a parameter whose Go type cannot become JSON schema.
type SchemaError struct {
	Tool string
	// Field is the parameter's path: "cfg.mode", "tags[]", "labels{}".
	Field string
	Type  reflect.Type
	Why   string
}

func (e *SchemaError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("tool %q: arguments type %s %s", e.Tool, e.Type, e.Why)
	}
	return fmt.Sprintf("tool %q: parameter %q: type %s %s", e.Tool, e.Field, e.Type, e.Why)
}

// ParametersSchema returns the JSON schema of a tool's arguments struct:
// {"type":"object","properties":{…},"required":[…]}, properties in
// declaration order. Fields are named and embedded structs flattened as
// encoding/json does; a field is required unless it is a pointer or
// omitempty/omitzero; `description:"…"` tags describe fields; `enum:"a,b"`
// tags restrict string and number fields (and their slices). A pointer
// field is optional and unwrapped to its element schema, as agno does for
// Optional[X] parameters. A type that cannot be rendered is a *SchemaError
// naming the tool and the field — a parameter is never dropped.
func ParametersSchema(toolName string, t reflect.Type) (json.RawMessage, error) {
	t = deref(t)
	g := &schemaGen{tool: toolName, seen: map[reflect.Type]bool{}}
	if s, ok, err := g.custom(t, ""); err != nil {
		return nil, err
	} else if ok {
		if o, isObj := asObject(s); !isObj || !hasType(o, "object") {
			return nil, &SchemaError{Tool: toolName, Type: t, Why: `states a JSONSchema() that is not {"type":"object",…}; a tool's arguments are an object`}
		}
		return marshalNoEscape(s)
	}
	if t.Kind() != reflect.Struct {
		return nil, &SchemaError{Tool: toolName, Type: t, Why: "must be a struct whose fields are the tool's parameters"}
	}
	root, err := g.structSchema(t, "", true)
	if err != nil {
		return nil, err
	}
	return marshalNoEscape(root)
}

// schemaGen walks Go types by hand rather than through
// jsonschema.ForType (v0.4.3), whose output differs from agno's in
// nearly every rule (see schema_lib_test.go): it adds "null" to pointer
// and slice types, minimum/maximum to sized integers and minItems/maxItems
// to arrays; it renders []byte, json.RawMessage and net.IP as arrays of
// integers and time.Time without "format"; it refuses integer map keys and
// emits no propertyNames; it requires pointer fields, reads descriptions
// from `jsonschema` tags, knows no enum tags or ",string", resolves
// same-named fields by Go name instead of encoding/json's rules, accepts
// MarshalJSON types and interfaces with methods, and names no field in its
// errors. Its Schema type cannot carry the output either: its MarshalJSON
// puts description before enum/format, required before
// additionalProperties, writes {} as true and re-encodes a Schemer's
// numbers and keywords, so agno's bytes would change.
type schemaGen struct {
	tool string
	// seen holds the struct types on the current path, to refuse recursion.
	seen map[reflect.Type]bool
}

type fieldInfo struct {
	name        string
	typ         reflect.Type
	required    bool
	optional    bool // a pointer: Optional[X]
	asString    bool // the ",string" json option
	description string
	enumTag     string
	// depth and tagged decide which of several same-named fields wins,
	// as in encoding/json.
	depth  int
	tagged bool
}

// fields lists the JSON-visible fields of a struct in encoding/json's
// order, embedded structs flattened and name conflicts resolved its way
// (shallowest wins, then the only tagged one, else none).
func (g *schemaGen) fields(t reflect.Type, path string) ([]fieldInfo, error) {
	var all []fieldInfo
	embedding := map[reflect.Type]bool{t: true}
	var walk func(t reflect.Type, depth int) error
	walk = func(t reflect.Type, depth int) error {
		for sf := range t.Fields() {
			et := deref(sf.Type)
			embedded := sf.Anonymous && et.Kind() == reflect.Struct
			tag := sf.Tag.Get("json")
			// encoding/json looks into unexported embedded structs only.
			if (!sf.IsExported() && !embedded) || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if embedded && name == "" {
				if embedding[et] {
					continue // encoding/json ignores a struct embedded in itself
				}
				if sf.Type.Kind() == reflect.Pointer && !sf.IsExported() {
					return &SchemaError{Tool: g.tool, Field: joinPath(path, sf.Name), Type: sf.Type,
						Why: "is an embedded pointer to an unexported struct, which encoding/json cannot fill; embed the struct by value or export it"}
				}
				embedding[et] = true
				err := walk(et, depth+1)
				delete(embedding, et)
				if err != nil {
					return err
				}
				continue
			}
			tagged := name != ""
			if name == "" {
				name = sf.Name
			}
			o := strings.Split(opts, ",")
			optional := sf.Type.Kind() == reflect.Pointer
			all = append(all, fieldInfo{
				name:        name,
				typ:         sf.Type,
				required:    !optional && !slices.Contains(o, "omitempty") && !slices.Contains(o, "omitzero"),
				optional:    optional,
				asString:    slices.Contains(o, "string"),
				description: sf.Tag.Get("description"),
				enumTag:     sf.Tag.Get("enum"),
				depth:       depth,
				tagged:      tagged,
			})
		}
		return nil
	}
	if err := walk(t, 0); err != nil {
		return nil, err
	}
	return dominantFields(all), nil
}

// dominantFields applies encoding/json's rule to fields sharing a name: a
// shallower one wins; at equal depth the only tagged one; else none.
func dominantFields(all []fieldInfo) []fieldInfo {
	var out []fieldInfo
	for i, f := range all {
		beaten := false
		for j, o := range all {
			if j != i && o.name == f.name && (o.depth < f.depth || o.depth == f.depth && (o.tagged || !f.tagged)) {
				beaten = true
				break
			}
		}
		if !beaten {
			out = append(out, f)
		}
	}
	return out
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func withDescription(s any, d string) any {
	if o, ok := asObject(s); ok {
		return o.set("description", d)
	}
	return s
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isScalarKind(k reflect.Kind) bool {
	return k == reflect.Bool || isIntKind(k) || k == reflect.Float32 || k == reflect.Float64
}

// Kind lists Int…Int64, then Uint…Uint64 and Uintptr, contiguously.
func isIntKind(k reflect.Kind) bool  { return reflect.Int <= k && k <= reflect.Uintptr }
func isUintKind(k reflect.Kind) bool { return reflect.Uint <= k && k <= reflect.Uintptr }

// implements reports whether t or *t has the interface's methods.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// instance returns a value of t (the zero value, or a pointer to it when
// only *t implements iface) as iface.
func instance(t, iface reflect.Type) any {
	if t.Implements(iface) {
		return reflect.Zero(t).Interface()
	}
	return reflect.New(t).Interface()
}

// custom is the schema a type states itself through Schemer or Enumer.
func (g *schemaGen) custom(t reflect.Type, path string) (s any, ok bool, err error) {
	if t.Kind() == reflect.Interface {
		return nil, false, nil
	}
	fail := func(why string) (any, bool, error) {
		return nil, false, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: why}
	}
	switch {
	case implements(t, schemerType):
		var raw json.RawMessage
		if p := safeCall(func() { raw = instance(t, schemerType).(Schemer).JSONSchema() }); p != nil {
			return fail(fmt.Sprintf("panicked in JSONSchema() on its zero value: %v", p))
		}
		v, err := decodeOrdered(raw)
		if err != nil {
			return fail(fmt.Sprintf("returns invalid JSON from JSONSchema(): %v", err))
		}
		if _, isObj := asObject(v); !isObj {
			return fail("returns a JSONSchema() that is not a JSON object")
		}
		return v, true, nil
	case implements(t, enumerType):
		var vals []any
		if p := safeCall(func() { vals = instance(t, enumerType).(Enumer).Enum() }); p != nil {
			return fail(fmt.Sprintf("panicked in Enum() on its zero value: %v", p))
		}
		for _, v := range vals {
			if !isJSONScalar(v) {
				return fail(fmt.Sprintf("has Enum() value %#v (%T), which is not a JSON string, number, boolean or null", v, v))
			}
		}
		return literalSchema(vals), true, nil
	}
	return nil, false, nil
}

func safeCall(fn func()) (panicked any) {
	defer func() { panicked = recover() }()
	fn()
	return nil
}

func isJSONScalar(v any) bool {
	if v == nil {
		return true
	}
	if n, ok := v.(json.Number); ok {
		_, err := json.Marshal(n)
		return err == nil
	}
	rv := reflect.ValueOf(v)
	switch k := rv.Kind(); {
	case k == reflect.String, k == reflect.Bool, isIntKind(k):
		return true
	case k == reflect.Float32 || k == reflect.Float64:
		f := rv.Float()
		return !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return false
}

func (g *schemaGen) schema(t reflect.Type, path, enumTag string) (any, error) {
	t = deref(t)
	if s, ok, err := g.custom(t, path); err != nil || ok {
		return s, err
	}
	if enumTag != "" {
		return g.taggedEnum(t, path, enumTag)
	}
	switch t {
	case timeType:
		return newObject().set("type", "string").set("format", "date-time"), nil
	case rawJSONType:
		return newObject(), nil
	case jsonNumberType:
		return newObject().set("type", "number"), nil
	}
	if t.Kind() != reflect.Interface {
		if implements(t, jsonMarshalerType) || implements(t, jsonUnmarshalerType) {
			// A struct with visible fields usually customises only
			// defaults or validation; anything else encodes in a shape
			// no schema can be read from.
			if t.Kind() != reflect.Struct || !g.hasVisibleFields(t) {
				return nil, &SchemaError{Tool: g.tool, Field: path, Type: t,
					Why: "has its own JSON encoding (MarshalJSON/UnmarshalJSON), whose shape cannot be derived; implement tool.Schemer on it"}
			}
		} else if implements(t, textMarshalerType) || implements(t, textUnmarshalerType) {
			return newObject().set("type", "string"), nil
		}
	}
	switch k := t.Kind(); {
	case k == reflect.String:
		return newObject().set("type", "string"), nil
	case k == reflect.Bool:
		return newObject().set("type", "boolean"), nil
	case isIntKind(k):
		return newObject().set("type", "integer"), nil
	case k == reflect.Float32 || k == reflect.Float64:
		return newObject().set("type", "number"), nil
	case k == reflect.Interface:
		if t.NumMethod() == 0 {
			return newObject(), nil
		}
		return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "is an interface with methods, which JSON cannot decode into; use a concrete type or any"}
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType) && !implements(t.Elem(), textMarshalerType):
		// encoding/json carries []byte as base64 text.
		return newObject().set("type", "string").set("contentEncoding", "base64"), nil
	case k == reflect.Slice || k == reflect.Array:
		items, err := g.schema(t.Elem(), path+"[]", "")
		if err != nil {
			return nil, err
		}
		return newObject().set("type", "array").set("items", items), nil
	case k == reflect.Map:
		return g.mapSchema(t, path)
	case k == reflect.Struct:
		return g.structSchema(t, path, false)
	}
	return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "cannot be expressed as JSON schema (" + t.Kind().String() + " has no JSON form)"}
}

func (g *schemaGen) hasVisibleFields(t reflect.Type) bool {
	fs, err := g.fields(t, "")
	return err == nil && len(fs) > 0
}

func (g *schemaGen) mapSchema(t reflect.Type, path string) (any, error) {
	kt := t.Key()
	var keys any
	switch {
	case kt.Kind() == reflect.String:
		keys = newObject().set("type", "string")
	case implements(kt, textMarshalerType) || implements(kt, textUnmarshalerType):
		keys = newObject().set("type", "string")
	case isIntKind(kt.Kind()):
		keys = newObject().set("type", "integer")
	default:
		return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "has map keys that are neither strings, integers nor encoding.TextMarshaler"}
	}
	if kt.Kind() == reflect.String && t.Elem().Kind() == reflect.Interface && t.Elem().NumMethod() == 0 {
		// agno's bare dict.
		return newObject().set("type", "object").set("additionalProperties", true), nil
	}
	vals, err := g.schema(t.Elem(), path+"{}", "")
	if err != nil {
		return nil, err
	}
	return newObject().set("type", "object").set("propertyNames", keys).set("additionalProperties", vals), nil
}

// structSchema renders a struct. Nested, it is agno's dataclass:
// additionalProperties false, required only when some field is, and an
// optional (pointer) field is anyOf [X, null], collapsed to {"type": X's
// type} when X has one; otherwise (a mixed enum) the anyOf stays, the
// v2.6.13 fix (#8329) that keeps such fields from vanishing. As the
// arguments object (args) it lists required always and unwraps optional
// fields, as agno does for Optional[X] parameters.
func (g *schemaGen) structSchema(t reflect.Type, path string, args bool) (any, error) {
	if g.seen[t] {
		return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "is recursive, which JSON schema without $ref cannot express; break the cycle or implement tool.Schemer"}
	}
	g.seen[t] = true
	defer delete(g.seen, t)
	fields, err := g.fields(t, path)
	if err != nil {
		return nil, err
	}
	props := newObject()
	required := []string{}
	for _, f := range fields {
		var s any
		if f.asString && isScalarKind(deref(f.typ).Kind()) {
			// ",string" puts numbers and booleans inside a JSON string.
			s = newObject().set("type", "string")
		} else if s, err = g.schema(f.typ, joinPath(path, f.name), f.enumTag); err != nil {
			return nil, err
		}
		if f.optional && !args {
			s = collapseOptional(s)
		}
		if f.description != "" {
			s = withDescription(s, f.description)
		}
		props.set(f.name, s)
		if f.required {
			required = append(required, f.name)
		}
	}
	o := newObject().set("type", "object").set("properties", props)
	if args {
		return o.set("required", required), nil
	}
	// Key order as agno's dict: required is added last.
	o.set("additionalProperties", false)
	if len(required) > 0 {
		o.set("required", required)
	}
	return o, nil
}

// collapseOptional applies agno's dataclass rule to Optional[X]: the
// members are X (flattened when X is itself an anyOf) and null; the first
// member with a non-null "type" replaces the whole by {"type": that}; with
// none, the anyOf is kept.
func collapseOptional(s any) any {
	members := []any{s}
	if o, ok := asObject(s); ok && len(o.keys) == 1 {
		if l, ok := o.vals["anyOf"].([]any); ok {
			members = l
		}
	}
	hasNull := false
	for _, m := range members {
		mo, ok := asObject(m)
		if !ok {
			continue
		}
		typ, ok := mo.get("type")
		if !ok || typ == nil {
			continue
		}
		if typ == "null" {
			hasNull = true
			continue
		}
		return newObject().set("type", typ)
	}
	out := append([]any(nil), members...)
	if !hasNull {
		out = append(out, newObject().set("type", "null"))
	}
	return newObject().set("anyOf", out)
}

// literalSchema applies agno's Literal[...] rules, by the values' kinds so
// named types (type Letter string) count as their underlying kind.
func literalSchema(vals []any) any {
	if len(vals) == 0 {
		return newObject().set("type", "string")
	}
	var nStr, nBool, nInt, nFloat int
	for _, v := range vals {
		if v == nil {
			continue
		}
		if n, ok := v.(json.Number); ok {
			if strings.ContainsAny(string(n), ".eE") {
				nFloat++
			} else {
				nInt++
			}
			continue
		}
		switch k := reflect.ValueOf(v).Kind(); {
		case k == reflect.String:
			nStr++
		case k == reflect.Bool:
			nBool++
		case isIntKind(k):
			nInt++
		case k == reflect.Float32 || k == reflect.Float64:
			nFloat++
		}
	}
	n := len(vals)
	o := newObject()
	switch {
	case nStr == n:
		o.set("type", "string")
	case nBool == n:
		o.set("type", "boolean")
	case nInt == n:
		o.set("type", "integer")
	case nInt+nFloat == n:
		o.set("type", "number")
	}
	return o.set("enum", append([]any(nil), vals...))
}

// taggedEnum renders an `enum:"a,b"` tag on a string or number field, or
// on the elements of a slice or array of them.
func (g *schemaGen) taggedEnum(t reflect.Type, path, tag string) (any, error) {
	if k := t.Kind(); k == reflect.Slice || k == reflect.Array {
		items, err := g.taggedEnum(deref(t.Elem()), path+"[]", tag)
		if err != nil {
			return nil, err
		}
		return newObject().set("type", "array").set("items", items), nil
	}
	fail := func(why string) (any, error) {
		return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: why}
	}
	parts := strings.Split(tag, ",")
	vals := make([]any, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return fail(fmt.Sprintf("has an empty value in its enum tag %q", tag))
		}
		switch k := t.Kind(); {
		case k == reflect.String:
			vals = append(vals, p)
		case isUintKind(k):
			n, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return fail(fmt.Sprintf("has enum value %q that is not an unsigned integer", p))
			}
			vals = append(vals, n)
		case isIntKind(k):
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return fail(fmt.Sprintf("has enum value %q that is not an integer", p))
			}
			vals = append(vals, n)
		case k == reflect.Float32 || k == reflect.Float64:
			f, err := strconv.ParseFloat(p, 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return fail(fmt.Sprintf("has enum value %q that is not a finite number", p))
			}
			vals = append(vals, f)
		default:
			return fail("has an enum tag, which only string and number fields (or slices of them) take; implement tool.Enumer instead")
		}
	}
	return literalSchema(vals), nil
}

// hasType reports whether a schema object's "type" is want or lists it.
func hasType(o *object, want string) bool {
	switch t := o.vals["type"].(type) {
	case string:
		return t == want
	case []any:
		for _, x := range t {
			if x == want {
				return true
			}
		}
	}
	return false
}

// schemaRefs resolves local "$ref"s ("#/$defs/X", "#/definitions/X") of a
// parameters schema, as MCP servers built on pydantic emit for enums.
type schemaRefs struct{ root *object }

func (r schemaRefs) resolve(o *object, depth int) *object {
	for ; depth < 32; depth++ {
		ref, ok := o.vals["$ref"].(string)
		if !ok || r.root == nil {
			return o
		}
		var section, name string
		switch {
		case strings.HasPrefix(ref, "#/$defs/"):
			section, name = "$defs", strings.TrimPrefix(ref, "#/$defs/")
		case strings.HasPrefix(ref, "#/definitions/"):
			section, name = "definitions", strings.TrimPrefix(ref, "#/definitions/")
		default:
			return o
		}
		defs, _ := asObject(r.root.vals[section])
		if defs == nil {
			return o
		}
		target, _ := asObject(defs.vals[name])
		if target == nil {
			return o
		}
		o = target
	}
	return o
}

// declaresString reports whether a property schema admits a string: such
// parameters keep "true"/"null"/… as text instead of agno's sentinel
// conversion.
func (r schemaRefs) declaresString(p *object, depth int) bool {
	if depth > 32 {
		return false
	}
	p = r.resolve(p, 0)
	if hasType(p, "string") {
		return true
	}
	if _, typed := p.vals["type"]; !typed {
		if l, ok := p.vals["enum"].([]any); ok {
			for _, v := range l {
				if _, ok := v.(string); ok {
					return true
				}
			}
		}
		if _, ok := p.vals["const"].(string); ok {
			return true
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		l, _ := p.vals[key].([]any)
		for _, m := range l {
			if mo, ok := asObject(m); ok && r.declaresString(mo, depth+1) {
				return true
			}
		}
	}
	return false
}

// pythonTypeName is the agno field_type name of a property schema: its
// first non-null type, looking through anyOf/oneOf.
func (r schemaRefs) pythonTypeName(p *object) string {
	switch firstType(r.resolve(p, 0), r, 0) {
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "array":
		return "list"
	case "object":
		return "dict"
	}
	return "str"
}

func firstType(p *object, r schemaRefs, depth int) string {
	if p == nil || depth > 32 {
		return ""
	}
	switch t := p.vals["type"].(type) {
	case string:
		if t != "null" {
			return t
		}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		l, _ := p.vals[key].([]any)
		for _, m := range l {
			if mo, ok := asObject(m); ok {
				if t := firstType(r.resolve(mo, 0), r, depth+1); t != "" {
					return t
				}
			}
		}
	}
	return ""
}
