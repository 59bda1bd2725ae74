package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Enumer is implemented by a type whose values are a fixed set (agno's
// Literal[...]). The values decide the schema: all strings → string enum;
// all booleans → boolean; all integers → integer; integers and floats →
// number; a mix of kinds → a bare enum with no type.
type Enumer interface {
	Enum() []any
}

// Schemer is implemented by a type that states its own JSON schema.
type Schemer interface {
	JSONSchema() json.RawMessage
}

var (
	enumerType  = reflect.TypeFor[Enumer]()
	schemerType = reflect.TypeFor[Schemer]()
	timeType    = reflect.TypeFor[time.Time]()
	rawJSONType = reflect.TypeFor[json.RawMessage]()
)

// SchemaError names a parameter whose Go type cannot become JSON schema.
type SchemaError struct {
	Tool  string
	Field string
	Type  reflect.Type
	Why   string
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("tool %q: parameter %q: type %s %s", e.Tool, e.Field, e.Type, e.Why)
}

// object is a JSON object that keeps its key order, so schemas list
// properties in declaration order as agno does.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) set(k string, v any) *object {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

func (o *object) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ParametersSchema returns the JSON schema of a tool's arguments struct:
// {"type":"object","properties":{…},"required":[…]}. Fields are named by
// their json tags; a field is required unless it is a pointer or
// omitempty; `description:"…"` tags describe fields; `enum:"a,b"` tags
// restrict string (or number) fields. A pointer field is optional and
// unwrapped to its element schema, as agno does for Optional[X] parameters.
func ParametersSchema(toolName string, t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	g := &schemaGen{tool: toolName, seen: map[reflect.Type]bool{}}
	root := newObject().set("type", "object")
	props := newObject()
	required := []string{}
	if t.Kind() != reflect.Struct {
		return nil, &SchemaError{Tool: toolName, Field: "", Type: t, Why: "must be a struct whose fields are the tool's parameters"}
	}
	err := g.fields(t, "", func(f fieldInfo) error {
		ft := f.typ
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		s, err := g.schema(ft, f.name, f.enumTag)
		if err != nil {
			return err
		}
		if f.description != "" {
			s = withDescription(s, f.description)
		}
		props.set(f.name, s)
		if f.required {
			required = append(required, f.name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	root.set("properties", props).set("required", required)
	return json.Marshal(root)
}

type schemaGen struct {
	tool string
	seen map[reflect.Type]bool
}

type fieldInfo struct {
	name        string
	typ         reflect.Type
	required    bool
	description string
	enumTag     string
}

// fields walks the JSON-visible fields of a struct, flattening embedded
// structs the way encoding/json does.
func (g *schemaGen) fields(t reflect.Type, prefix string, fn func(fieldInfo) error) error {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := g.fields(et, prefix, fn); err != nil {
					return err
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		omitempty := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
		info := fieldInfo{
			name:        name,
			typ:         sf.Type,
			required:    sf.Type.Kind() != reflect.Pointer && !omitempty,
			description: sf.Tag.Get("description"),
			enumTag:     sf.Tag.Get("enum"),
		}
		if err := fn(info); err != nil {
			return err
		}
	}
	return nil
}

func withDescription(s any, d string) any {
	if o, ok := s.(*object); ok {
		return o.set("description", d)
	}
	return s
}

func (g *schemaGen) schema(t reflect.Type, path, enumTag string) (any, error) {
	if t.Implements(schemerType) || reflect.PointerTo(t).Implements(schemerType) {
		v := reflect.New(t)
		var s Schemer
		if t.Implements(schemerType) {
			s = v.Elem().Interface().(Schemer)
		} else {
			s = v.Interface().(Schemer)
		}
		raw := s.JSONSchema()
		if !json.Valid(raw) {
			return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "returns invalid JSON from JSONSchema()"}
		}
		return json.RawMessage(raw), nil
	}
	if t.Implements(enumerType) {
		return literalSchema(reflect.Zero(t).Interface().(Enumer).Enum()), nil
	}
	if enumTag != "" {
		return g.taggedEnum(t, path, enumTag)
	}
	switch t {
	case timeType:
		return newObject().set("type", "string").set("format", "date-time"), nil
	case rawJSONType:
		return newObject(), nil
	}
	switch t.Kind() {
	case reflect.String:
		return newObject().set("type", "string"), nil
	case reflect.Bool:
		return newObject().set("type", "boolean"), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return newObject().set("type", "integer"), nil
	case reflect.Float32, reflect.Float64:
		return newObject().set("type", "number"), nil
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return newObject(), nil
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return newObject().set("type", "string"), nil
		}
		items, err := g.element(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return newObject().set("type", "array").set("items", items), nil
	case reflect.Map:
		kt := t.Key()
		var keys any
		switch kt.Kind() {
		case reflect.String:
			keys = newObject().set("type", "string")
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			keys = newObject().set("type", "integer")
		default:
			return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "has map keys that are neither strings nor integers"}
		}
		if t.Elem().Kind() == reflect.Interface && t.Elem().NumMethod() == 0 && kt.Kind() == reflect.String {
			return newObject().set("type", "object").set("additionalProperties", true), nil
		}
		vals, err := g.element(t.Elem(), path+"{}")
		if err != nil {
			return nil, err
		}
		return newObject().set("type", "object").set("propertyNames", keys).set("additionalProperties", vals), nil
	case reflect.Struct:
		return g.structSchema(t, path)
	}
	return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "cannot be expressed as JSON schema"}
}

// element is the schema of a slice or map element; a pointer element is
// just its target.
func (g *schemaGen) element(t reflect.Type, path string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return g.schema(t, path, "")
}

// structSchema renders a nested struct as agno renders a dataclass:
// additionalProperties false, required = fields that are not optional. An
// optional (pointer) field is anyOf [X, null]; when X has a "type" the
// anyOf collapses to {"type": X's type}, otherwise (a mixed enum) the anyOf
// stays — the v2.6.13 fix (#8329) that keeps such fields from vanishing.
func (g *schemaGen) structSchema(t reflect.Type, path string) (any, error) {
	if g.seen[t] {
		return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "is recursive, which JSON schema without $ref cannot express"}
	}
	g.seen[t] = true
	defer delete(g.seen, t)
	props := newObject()
	var required []string
	err := g.fields(t, path, func(f fieldInfo) error {
		fpath := f.name
		if path != "" {
			fpath = path + "." + f.name
		}
		ft := f.typ
		optional := ft.Kind() == reflect.Pointer
		if optional {
			ft = ft.Elem()
		}
		s, err := g.schema(ft, fpath, f.enumTag)
		if err != nil {
			return err
		}
		if optional {
			s = collapseOptional(s)
		}
		if f.description != "" {
			s = withDescription(s, f.description)
		}
		props.set(f.name, s)
		if f.required {
			required = append(required, f.name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	o := newObject().set("type", "object").set("properties", props)
	if len(required) > 0 {
		o.set("required", required)
	}
	o.set("additionalProperties", false)
	return o, nil
}

func collapseOptional(s any) any {
	o, ok := s.(*object)
	if !ok {
		return newObject().set("anyOf", []any{s, newObject().set("type", "null")})
	}
	if typ, ok := o.get("type"); ok && typ != "null" {
		return newObject().set("type", typ)
	}
	return newObject().set("anyOf", []any{o, newObject().set("type", "null")})
}

// literalSchema applies agno's Literal[...] rules.
func literalSchema(vals []any) any {
	if len(vals) == 0 {
		return newObject().set("type", "string")
	}
	var nStr, nBool, nInt, nFloat int
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			nStr++
		case bool:
			nBool++
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			nInt++
		case float32, float64:
			nFloat++
		case json.Number:
			if strings.ContainsAny(string(x), ".eE") {
				nFloat++
			} else {
				nInt++
			}
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
	return o.set("enum", vals)
}

func (g *schemaGen) taggedEnum(t reflect.Type, path, tag string) (any, error) {
	parts := strings.Split(tag, ",")
	vals := make([]any, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch t.Kind() {
		case reflect.String:
			vals = append(vals, p)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil {
				return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: fmt.Sprintf("has enum value %q that is not an integer", p)}
			}
			vals = append(vals, n)
		case reflect.Float32, reflect.Float64:
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: fmt.Sprintf("has enum value %q that is not a number", p)}
			}
			vals = append(vals, f)
		default:
			return nil, &SchemaError{Tool: g.tool, Field: path, Type: t, Why: "has an enum tag, which only string and number fields take (implement tool.Enumer instead)"}
		}
	}
	return literalSchema(vals), nil
}

// declaresString reports whether a property schema admits a string: such
// parameters keep "true"/"null"/… as text instead of agno's sentinel
// conversion.
func declaresString(p map[string]any) bool {
	switch t := p["type"].(type) {
	case string:
		if t == "string" {
			return true
		}
	case []any:
		for _, x := range t {
			if x == "string" {
				return true
			}
		}
	}
	if p["type"] == nil {
		for _, v := range asList(p["enum"]) {
			if _, ok := v.(string); ok {
				return true
			}
		}
		if c, ok := p["const"].(string); ok && c != "" {
			return true
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		for _, m := range asList(p[key]) {
			if ms, ok := m.(map[string]any); ok && declaresString(ms) {
				return true
			}
		}
	}
	return false
}

func asList(v any) []any { l, _ := v.([]any); return l }

// pythonTypeName is the agno field_type name of a property schema.
func pythonTypeName(p map[string]any) string {
	t, _ := p["type"].(string)
	if l, ok := p["type"].([]any); ok && len(l) > 0 {
		t, _ = l[0].(string)
	}
	switch t {
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

// orderedKeys lists the keys of raw[field] in document order.
func orderedKeys(raw json.RawMessage, field string) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	sub, ok := top[field]
	if !ok {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(sub))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}
