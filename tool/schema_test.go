package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/tool"
)

// mixedMode is Optional[Literal[1, "a"]]'s Go twin: a value that is 1 or
// "a" on the wire.
type mixedMode struct{ v any }

func (mixedMode) Enum() []any                    { return []any{1, "a"} }
func (m mixedMode) MarshalJSON() ([]byte, error) { return json.Marshal(m.v) }
func (m *mixedMode) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, &m.v)
}

// a7Config is A7's dataclass C: mode: Optional[Literal[1, "a"]] = None.
type a7Config struct {
	Mode *mixedMode `json:"mode"`
}

// letter is Literal["x", "y"].
type letter string

func (letter) Enum() []any { return []any{letter("x"), letter("y")} }

// a7Collapse is A7's third case.
type a7Collapse struct {
	Name *string `json:"name"`
	N    int     `json:"n"`
	M    *letter `json:"m"`
}

func parseJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v
}

// keysInOrder lists the keys of the object at path (a chain of object
// keys) in document order.
func keysInOrder(t *testing.T, raw []byte, path ...string) []string {
	t.Helper()
	for _, p := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		raw = m[p]
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%v is not an object: %s", path, raw)
	}
	var keys []string
	for dec.More() {
		tok, _ := dec.Token()
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func schemaFor[T any](t *testing.T) json.RawMessage {
	t.Helper()
	s, err := tool.ParametersSchema("t", reflect.TypeFor[T]())
	if err != nil {
		t.Fatalf("ParametersSchema(%v): %v", reflect.TypeFor[T](), err)
	}
	return s
}

func property(t *testing.T, schema []byte, name string) json.RawMessage {
	t.Helper()
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	p, ok := s.Properties[name]
	if !ok {
		t.Fatalf("property %q missing from %s", name, schema)
	}
	return p
}

const a7Case1 = `{"type":"object","properties":{"mode":{"anyOf":[{"enum":[1,"a"]},{"type":"null"}]}},"additionalProperties":false}`

func TestA7OptionalMixedEnumKeepsAnyOf(t *testing.T) {
	// Case 1: the struct's own schema, reached as a parameter's schema.
	type args struct {
		Cfg a7Config `json:"cfg"`
	}
	schema := schemaFor[args](t)
	cfg := property(t, schema, "cfg")
	if diff := cmp.Diff(parseJSON(t, []byte(a7Case1)), parseJSON(t, cfg)); diff != "" {
		t.Errorf("case 1 (-want +got):\n%s", diff)
	}
	// Byte for byte too: agno's key order, no required.
	if string(cfg) != a7Case1 {
		t.Errorf("case 1 text:\n got  %s\n want %s", cfg, a7Case1)
	}

	// Case 2: as a tool argument the parameter is present, equal to 1.
	f, err := tool.New("configure", "", func(_ context.Context, a args) (string, error) {
		return "ok", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"cfg":` + a7Case1 + `},"required":["cfg"]}`
	if diff := cmp.Diff(parseJSON(t, []byte(want)), parseJSON(t, f.Parameters)); diff != "" {
		t.Errorf("case 2 (-want +got):\n%s", diff)
	}

	// And the value the model sends decodes into the Go type.
	var got args
	g := tool.Must(tool.New("configure", "", func(_ context.Context, a args) (string, error) {
		got = a
		return "", nil
	}))
	if _, err := g.Invoke(context.Background(), nil, g.DecodeArguments(`{"cfg":{"mode":"a"}}`).Values); err != nil {
		t.Fatal(err)
	}
	if got.Cfg.Mode == nil || got.Cfg.Mode.v != "a" {
		t.Errorf("decoded mode = %+v, want a", got.Cfg.Mode)
	}
}

func TestA7CollapseCase(t *testing.T) {
	type args struct {
		C a7Collapse `json:"c"`
	}
	c := property(t, schemaFor[args](t), "c")
	want := `{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"},"m":{"type":"string"}},"additionalProperties":false,"required":["n"]}`
	if diff := cmp.Diff(parseJSON(t, []byte(want)), parseJSON(t, c)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := keysInOrder(t, c, "properties"); !slicesEqual(got, []string{"name", "n", "m"}) {
		t.Errorf("property order = %v, want declaration order", got)
	}
	// The enum of a non-optional letter is kept; only the collapse loses it.
	type direct struct {
		L letter `json:"l"`
	}
	if got := string(property(t, schemaFor[direct](t), "l")); got != `{"type":"string","enum":["x","y"]}` {
		t.Errorf("letter schema = %s", got)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

type intEnum int

func (intEnum) Enum() []any { return []any{1, 2, 3} }

type boolEnum bool

func (boolEnum) Enum() []any { return []any{true, false} }

type numEnum float64

func (numEnum) Enum() []any { return []any{1, 2.5} }

type ptrEnum string

func (*ptrEnum) Enum() []any { return []any{"p", "q"} }

type point struct{ X, Y int }

func (point) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2}`)
}

type inner struct {
	Label string         `json:"label" description:"shown to users"`
	Tags  []string       `json:"tags,omitempty"`
	Ptr   *inner2        `json:"ptr"`
	Kind  string         `json:"kind" enum:"a,b"`
	Any   any            `json:"any"`
	Opt   *mixedMode     `json:"opt"`
	Map   map[string]int `json:"map"`
}

type inner2 struct {
	V int `json:"v"`
}

type Base struct {
	ID     string `json:"id" description:"the id"`
	Shadow string `json:"shadow"`
	//lint:ignore U1000 an unexported field must not appear in the schema
	private string
}

type textKey string

// withDefaults customises decoding only to fill defaults: its fields are
// still its JSON shape.
type withDefaults struct {
	Limit int `json:"limit"`
}

func (w *withDefaults) UnmarshalJSON(b []byte) error {
	type plain withDefaults
	p := plain{Limit: 10}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*w = withDefaults(p)
	return nil
}

func (k textKey) MarshalText() ([]byte, error) { return []byte(k), nil }

func TestSchemaKinds(t *testing.T) {
	type all struct {
		Str       string            `json:"str"`
		Bool      bool              `json:"bool"`
		Int       int               `json:"int"`
		Int8      int8              `json:"int8"`
		Int64     int64             `json:"int64"`
		Uint16    uint16            `json:"uint16"`
		Uintptr   uintptr           `json:"uintptr"`
		F32       float32           `json:"f32"`
		F64       float64           `json:"f64"`
		Strings   []string          `json:"strings"`
		Array     [3]int            `json:"array"`
		Bytes     []byte            `json:"bytes"`
		ByteArray [4]byte           `json:"byte_array"`
		Map       map[string]int    `json:"map"`
		IntKeys   map[int]string    `json:"int_keys"`
		TextKeys  map[textKey]bool  `json:"text_keys"`
		Dict      map[string]any    `json:"dict"`
		Nested    inner             `json:"nested"`
		Structs   []*inner2         `json:"structs"`
		Time      time.Time         `json:"time"`
		Raw       json.RawMessage   `json:"raw"`
		Number    json.Number       `json:"number"`
		Any       any               `json:"any"`
		IP        net.IP            `json:"ip"`
		Duration  time.Duration     `json:"duration"`
		IntEnum   intEnum           `json:"int_enum"`
		BoolEnum  boolEnum          `json:"bool_enum"`
		NumEnum   numEnum           `json:"num_enum"`
		PtrEnum   ptrEnum           `json:"ptr_enum"`
		Letters   []letter          `json:"letters"`
		Schemer   point             `json:"schemer" description:"x and y"`
		TagEnum   string            `json:"tag_enum" enum:"red, green"`
		IntTag    int               `json:"int_tag" enum:"1,2"`
		UintTag   uint              `json:"uint_tag" enum:"7"`
		FloatTag  float64           `json:"float_tag" enum:"0.5,1"`
		SliceTag  []string          `json:"slice_tag" enum:"x,y"`
		Described string            `json:"described" description:"what it is"`
		AsString  int64             `json:"as_string,string"`
		PtrPtr    **int             `json:"ptr_ptr"`
		PtrSlice  *[]string         `json:"ptr_slice"`
		NoTag     string            // named by the Go field
		MapSlice  map[string][]bool `json:"map_slice"`
		Defaults  withDefaults      `json:"defaults"`
	}
	schema := schemaFor[all](t)
	want := map[string]string{
		"str":        `{"type":"string"}`,
		"bool":       `{"type":"boolean"}`,
		"int":        `{"type":"integer"}`,
		"int8":       `{"type":"integer"}`,
		"int64":      `{"type":"integer"}`,
		"uint16":     `{"type":"integer"}`,
		"uintptr":    `{"type":"integer"}`,
		"f32":        `{"type":"number"}`,
		"f64":        `{"type":"number"}`,
		"strings":    `{"type":"array","items":{"type":"string"}}`,
		"array":      `{"type":"array","items":{"type":"integer"}}`,
		"bytes":      `{"type":"string","contentEncoding":"base64"}`,
		"byte_array": `{"type":"array","items":{"type":"integer"}}`,
		"map":        `{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"integer"}}`,
		"int_keys":   `{"type":"object","propertyNames":{"type":"integer"},"additionalProperties":{"type":"string"}}`,
		"text_keys":  `{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"boolean"}}`,
		"dict":       `{"type":"object","additionalProperties":true}`,
		"nested": `{"type":"object","properties":{` +
			`"label":{"type":"string","description":"shown to users"},` +
			`"tags":{"type":"array","items":{"type":"string"}},` +
			`"ptr":{"type":"object"},` +
			`"kind":{"type":"string","enum":["a","b"]},` +
			`"any":{},` +
			`"opt":{"anyOf":[{"enum":[1,"a"]},{"type":"null"}]},` +
			`"map":{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"integer"}}},` +
			`"additionalProperties":false,"required":["label","kind","any","map"]}`,
		"structs":   `{"type":"array","items":{"type":"object","properties":{"v":{"type":"integer"}},"additionalProperties":false,"required":["v"]}}`,
		"time":      `{"type":"string","format":"date-time"}`,
		"raw":       `{}`,
		"number":    `{"type":"number"}`,
		"any":       `{}`,
		"ip":        `{"type":"string"}`,
		"duration":  `{"type":"integer"}`,
		"int_enum":  `{"type":"integer","enum":[1,2,3]}`,
		"bool_enum": `{"type":"boolean","enum":[true,false]}`,
		"num_enum":  `{"type":"number","enum":[1,2.5]}`,
		"ptr_enum":  `{"type":"string","enum":["p","q"]}`,
		"letters":   `{"type":"array","items":{"type":"string","enum":["x","y"]}}`,
		"schemer":   `{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":2,"description":"x and y"}`,
		"tag_enum":  `{"type":"string","enum":["red","green"]}`,
		"int_tag":   `{"type":"integer","enum":[1,2]}`,
		"uint_tag":  `{"type":"integer","enum":[7]}`,
		"float_tag": `{"type":"number","enum":[0.5,1]}`,
		"slice_tag": `{"type":"array","items":{"type":"string","enum":["x","y"]}}`,
		"described": `{"type":"string","description":"what it is"}`,
		"as_string": `{"type":"string"}`,
		"ptr_ptr":   `{"type":"integer"}`,
		"ptr_slice": `{"type":"array","items":{"type":"string"}}`,
		"NoTag":     `{"type":"string"}`,
		"map_slice": `{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"array","items":{"type":"boolean"}}}`,
		"defaults":  `{"type":"object","properties":{"limit":{"type":"integer"}},"additionalProperties":false,"required":["limit"]}`,
	}
	for name, w := range want {
		got := property(t, schema, name)
		if string(got) != w {
			t.Errorf("%s:\n got  %s\n want %s", name, got, w)
		}
	}
	order := keysInOrder(t, schema, "properties")
	if len(order) != len(want) {
		t.Errorf("properties = %v, want %d of them", order, len(want))
	}
	fields := reflect.TypeFor[all]()
	for i, name := range order {
		tag, _, _ := strings.Cut(fields.Field(i).Tag.Get("json"), ",")
		if tag == "" {
			tag = fields.Field(i).Name
		}
		if name != tag {
			t.Errorf("property %d = %q, want %q (declaration order)", i, name, tag)
		}
	}
}

func TestSchemaRequiredAndNaming(t *testing.T) {
	type Embedded2 struct {
		Deep string `json:"deep"`
	}
	type args struct {
		Base                 // flattened
		*Embedded2           // flattened through a pointer
		Named      Base      `json:"named"` // a tagged embedded-style field is a field
		Shadow     int       `json:"shadow"`
		Required   string    `json:"required"`
		Omit       string    `json:"omit,omitempty"`
		OmitZero   time.Time `json:"omit_zero,omitzero"`
		Pointer    *int      `json:"pointer"`
		Skipped    string    `json:"-"`
		//lint:ignore SA5008 the field named "-" is under test
		Dash string `json:"-,"`
		//lint:ignore U1000 not visible to encoding/json, which is under test
		unexported string
		Fn         func()           `json:"-"`
		Opt        *map[string]bool `json:"opt,omitempty"`
	}
	schema := schemaFor[args](t)
	wantOrder := []string{"id", "deep", "named", "shadow", "required", "omit", "omit_zero", "pointer", "-", "opt"}
	if got := keysInOrder(t, schema, "properties"); !slicesEqual(got, wantOrder) {
		t.Errorf("properties = %v, want %v", got, wantOrder)
	}
	var s struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	wantReq := []string{"id", "deep", "named", "shadow", "required", "-"}
	if !slicesEqual(s.Required, wantReq) {
		t.Errorf("required = %v, want %v", s.Required, wantReq)
	}
	// The outer shadow (depth 0) wins over Base's.
	if got := string(property(t, schema, "shadow")); got != `{"type":"integer"}` {
		t.Errorf("shadow = %s, want the outer int", got)
	}
	if got := string(property(t, schema, "id")); got != `{"type":"string","description":"the id"}` {
		t.Errorf("id = %s", got)
	}
	if got := string(property(t, schema, "pointer")); got != `{"type":"integer"}` {
		t.Errorf("pointer = %s, want unwrapped like agno's Optional", got)
	}
}

func TestSchemaConflictingEmbeddedNamesVanishLikeEncodingJSON(t *testing.T) {
	type A struct {
		X string
	}
	type B struct {
		X int
	}
	type args struct {
		A
		B
		Y string `json:"y"`
	}
	schema := schemaFor[args](t)
	// encoding/json neither encodes nor decodes an ambiguous X.
	if got := keysInOrder(t, schema, "properties"); !slicesEqual(got, []string{"y"}) {
		t.Errorf("properties = %v, want only y", got)
	}
	b, _ := json.Marshal(args{A: A{X: "a"}, B: B{X: 1}, Y: "y"})
	if string(b) != `{"y":"y"}` {
		t.Fatalf("encoding/json changed its rule: %s", b)
	}

	// At equal depth the only tagged field wins.
	type C struct {
		Foo string `json:"X"`
	}
	type tagged struct {
		B
		C
	}
	if got := string(schemaFor[tagged](t)); got != `{"type":"object","properties":{"X":{"type":"string"}},"required":["X"]}` {
		t.Errorf("schema = %s, want C's tagged X", got)
	}
	b, _ = json.Marshal(tagged{B: B{X: 1}, C: C{Foo: "c"}})
	if string(b) != `{"X":"c"}` {
		t.Fatalf("encoding/json changed its rule: %s", b)
	}
}

func TestSchemaEmptyArgs(t *testing.T) {
	if got := string(schemaFor[struct{}](t)); got != `{"type":"object","properties":{},"required":[]}` {
		t.Errorf("schema = %s", got)
	}
}

type argsSchemer struct {
	Q string `json:"q"`
}

func (argsSchemer) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"]}`)
}

func TestSchemaArgsSchemer(t *testing.T) {
	got := string(schemaFor[argsSchemer](t))
	if got != `{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"]}` {
		t.Errorf("schema = %s", got)
	}
}

type node struct {
	Name     string `json:"name"`
	Children []node `json:"children"`
}

type selfEmbed struct {
	//lint:ignore U1000 a type embedding itself is under test
	*selfEmbed
	V int `json:"v"`
}

type loopA struct {
	B *loopB `json:"b"`
}
type loopB struct {
	A []loopA `json:"a"`
}

type level int

func (level) MarshalJSON() ([]byte, error) { return []byte(`"high"`), nil }

type badEnum string

func (badEnum) Enum() []any { return []any{"a", struct{}{}} }

type panicEnum struct{ m map[string]any }

func (p *panicEnum) Enum() []any { return []any{p.m["x"].(string)} }

type badSchemer struct{}

func (badSchemer) JSONSchema() json.RawMessage { return json.RawMessage(`{"type":`) }

type arraySchemer struct{}

func (arraySchemer) JSONSchema() json.RawMessage { return json.RawMessage(`[1]`) }

//lint:ignore U1000 a type with only unexported state is under test
type opaque struct{ n int }

func (o *opaque) UnmarshalJSON([]byte) error { return nil }

type unexportedEmbedPtr struct {
	*hidden
}
type hidden struct {
	X int `json:"x"`
}

func TestSchemaErrorsNameToolAndField(t *testing.T) {
	tests := []struct {
		name  string
		typ   reflect.Type
		field string
		why   string
	}{
		{"chan", reflect.TypeFor[struct {
			C chan int `json:"c"`
		}](), "c", "chan has no JSON form"},
		{"func", reflect.TypeFor[struct {
			F func() `json:"f"`
		}](), "f", "func has no JSON form"},
		{"complex", reflect.TypeFor[struct {
			Z complex128 `json:"z"`
		}](), "z", "complex128 has no JSON form"},
		{"struct map key", reflect.TypeFor[struct {
			M map[inner2]int `json:"m"`
		}](), "m", "map keys"},
		{"recursive", reflect.TypeFor[struct {
			Root node `json:"root"`
		}](), "root.children[]", "recursive"},
		{"mutually recursive", reflect.TypeFor[struct {
			A loopA `json:"a"`
		}](), "a.b.a[]", "recursive"},
		{"args refer to themselves", reflect.TypeFor[node](), "children[]", "recursive"},
		{"interface with methods", reflect.TypeFor[struct {
			Err error `json:"err"`
		}](), "err", "interface with methods"},
		{"custom JSON on a scalar", reflect.TypeFor[struct {
			L level `json:"l"`
		}](), "l", "implement tool.Schemer"},
		{"custom JSON without fields", reflect.TypeFor[struct {
			O opaque `json:"o"`
		}](), "o", "implement tool.Schemer"},
		{"enum value not JSON", reflect.TypeFor[struct {
			E badEnum `json:"e"`
		}](), "e", "not a JSON string, number, boolean or null"},
		{"enum panics", reflect.TypeFor[struct {
			E panicEnum `json:"e"`
		}](), "e", "panicked in Enum()"},
		{"schemer invalid JSON", reflect.TypeFor[struct {
			S badSchemer `json:"s"`
		}](), "s", "invalid JSON"},
		{"schemer not object", reflect.TypeFor[struct {
			S arraySchemer `json:"s"`
		}](), "s", "not a JSON object"},
		{"enum tag on bool", reflect.TypeFor[struct {
			B bool `json:"b" enum:"true"`
		}](), "b", "implement tool.Enumer"},
		{"enum tag not a number", reflect.TypeFor[struct {
			N int `json:"n" enum:"1,two"`
		}](), "n", `"two" that is not an integer`},
		{"enum tag negative uint", reflect.TypeFor[struct {
			N uint `json:"n" enum:"-1"`
		}](), "n", "not an unsigned integer"},
		{"enum tag empty value", reflect.TypeFor[struct {
			S string `json:"s" enum:"a,,b"`
		}](), "s", "empty value"},
		{"nested path", reflect.TypeFor[struct {
			Cfg struct {
				Inner struct {
					C chan int `json:"c"`
				} `json:"inner"`
			} `json:"cfg"`
		}](), "cfg.inner.c", "chan"},
		{"map value path", reflect.TypeFor[struct {
			M map[string]func() `json:"m"`
		}](), "m{}", "func"},
		{"embedded pointer to unexported struct", reflect.TypeFor[unexportedEmbedPtr](), "hidden", "embedded pointer to an unexported struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.ParametersSchema("my_tool", tt.typ)
			var se *tool.SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *tool.SchemaError", err)
			}
			if se.Tool != "my_tool" || se.Field != tt.field {
				t.Errorf("Tool, Field = %q, %q; want my_tool, %q", se.Tool, se.Field, tt.field)
			}
			msg := err.Error()
			if !strings.Contains(msg, `tool "my_tool"`) || !strings.Contains(msg, `parameter "`+tt.field+`"`) || !strings.Contains(msg, tt.why) {
				t.Errorf("error %q should name the tool, the field %q and say %q", msg, tt.field, tt.why)
			}
		})
	}
}

func TestSchemaSelfEmbeddingIsIgnoredLikeEncodingJSON(t *testing.T) {
	got := schemaFor[selfEmbed](t)
	if want := `{"type":"object","properties":{"v":{"type":"integer"}},"required":["v"]}`; string(got) != want {
		t.Errorf("schema = %s, want %s", got, want)
	}
}

func TestNewRefusesBadArgsTypes(t *testing.T) {
	_, err := tool.New("bad", "", func(_ context.Context, a struct {
		Ch chan string `json:"ch"`
	}) (string, error) {
		return "", nil
	})
	var se *tool.SchemaError
	if !errors.As(err, &se) || se.Field != "ch" || se.Tool != "bad" {
		t.Fatalf("New err = %v, want a SchemaError for bad.ch", err)
	}
	_, err = tool.New("scalar", "", func(_ context.Context, s string) (string, error) { return s, nil })
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "must be a struct") {
		t.Fatalf("New with string args: err = %v", err)
	}
	_, err = tool.ParametersSchema("arr", reflect.TypeFor[struct {
		S arraySchemer `json:"s"`
	}]())
	if err == nil {
		t.Fatal("a non-object schemer field must fail")
	}
}

func TestSchemaKeepsMarkupReadable(t *testing.T) {
	type args struct {
		Q string `json:"q" description:"a <query> & filters"`
	}
	if got := string(schemaFor[args](t)); !strings.Contains(got, `"description":"a <query> & filters"`) {
		t.Errorf("schema = %s, want the description unescaped", got)
	}
}
