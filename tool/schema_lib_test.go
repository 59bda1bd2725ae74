package tool_test

import (
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agno-go/agno/tool"
)

// These tests back the comment on tool's schemaGen: they pin where
// jsonschema-go's inference and encoding differ from agno's schemas. When
// an upgrade makes one pass for the wrong reason, re-check whether the
// library can take over that part of the generator.

type libNested struct {
	V int `json:"v"`
}

type libShadowed struct {
	X string `json:"x"`
}

// libShadow's own x hides the embedded one for encoding/json.
type libShadow struct {
	Y int `json:"x"`
	libShadowed
}

func TestJSONSchemaGoInferenceDiffersFromAgno(t *testing.T) {
	// field is struct{ F typ `json:"f" extra` }.
	field := func(typ reflect.Type, extra reflect.StructTag) reflect.Type {
		return reflect.StructOf([]reflect.StructField{{Name: "F", Type: typ, Tag: `json:"f` + extra}})
	}
	tests := []struct {
		name      string
		typ       reflect.Type
		agno, lib string
	}{
		{"sized int", field(reflect.TypeFor[int8](), `"`), `{"type":"integer"}`, `{"type":"integer","minimum":-128,"maximum":127}`},
		{"slice", field(reflect.TypeFor[[]string](), `"`), `{"type":"array","items":{"type":"string"}}`, `{"type":["null","array"],"items":{"type":"string"}}`},
		{"array", field(reflect.TypeFor[[2]bool](), `"`), `{"type":"array","items":{"type":"boolean"}}`, `{"type":"array","items":{"type":"boolean"},"minItems":2,"maxItems":2}`},
		{"pointer", field(reflect.TypeFor[*string](), `"`), `{"type":"string"}`, `{"type":["null","string"]}`},
		{"bytes", field(reflect.TypeFor[[]byte](), `"`), `{"type":"string","contentEncoding":"base64"}`, `{"type":["null","array"],"items":{"type":"integer","minimum":0,"maximum":255}}`},
		{"raw JSON", field(reflect.TypeFor[json.RawMessage](), `"`), `{}`, `{"type":["null","array"],"items":{"type":"integer","minimum":0,"maximum":255}}`},
		{"net.IP", field(reflect.TypeFor[net.IP](), `"`), `{"type":"string"}`, `{"type":["null","array"],"items":{"type":"integer","minimum":0,"maximum":255}}`},
		{"time", field(reflect.TypeFor[time.Time](), `"`), `{"type":"string","format":"date-time"}`, `{"type":"string"}`},
		{"map", field(reflect.TypeFor[map[string]int](), `"`), `{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"integer"}}`, `{"type":"object","additionalProperties":{"type":"integer"}}`},
		{"description tag", field(reflect.TypeFor[string](), `" description:"d"`), `{"type":"string","description":"d"}`, `{"type":"string"}`},
		{"enum tag", field(reflect.TypeFor[string](), `" enum:"a,b"`), `{"type":"string","enum":["a","b"]}`, `{"type":"string"}`},
		{"string option", field(reflect.TypeFor[int](), `,string"`), `{"type":"string"}`, `{"type":"integer"}`},
		{"nested struct", field(reflect.TypeFor[libNested](), `"`), `{"type":"object","properties":{"v":{"type":"integer"}},"additionalProperties":false,"required":["v"]}`, `{"type":"object","properties":{"v":{"type":"integer"}},"required":["v"],"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agno, err := tool.ParametersSchema("t", tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(property(t, agno, "f")); got != tt.agno {
				t.Errorf("agno: %s, want %s", got, tt.agno)
			}
			s, err := jsonschema.ForType(tt.typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			lib, err := json.Marshal(s.Properties["f"])
			if err != nil {
				t.Fatal(err)
			}
			if string(lib) != tt.lib {
				t.Errorf("jsonschema-go: %s, want %s", lib, tt.lib)
			}
		})
	}

	// Rules the library has no counterpart for.
	required := func(typ reflect.Type) []string {
		s, err := jsonschema.ForType(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Required
	}
	if got := required(field(reflect.TypeFor[*int](), `"`)); !slicesEqual(got, []string{"f"}) {
		t.Errorf("jsonschema-go required = %v; agno leaves a pointer optional", got)
	}
	if _, err := jsonschema.ForType(field(reflect.TypeFor[map[int]string](), `"`), nil); err == nil {
		t.Error("jsonschema-go accepted integer map keys; agno renders them as propertyNames integer")
	}
	sh, err := jsonschema.ForType(reflect.TypeFor[libShadow](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lib, _ := json.Marshal(sh.Properties["x"]); string(lib) != `{"type":"string"}` || !slicesEqual(sh.Required, []string{"x", "x"}) {
		t.Errorf("jsonschema-go shadowed x = %s, required %v; want the embedded string, x twice", lib, sh.Required)
	}
	if got := string(property(t, schemaFor[libShadow](t), "x")); got != `{"type":"integer"}` {
		t.Errorf("agno shadowed x = %s, want the outer integer", got)
	}
	// agno refuses what it cannot describe; the library renders an
	// interface with methods as true and a MarshalJSON type by its kind.
	for _, typ := range []reflect.Type{reflect.TypeFor[error](), reflect.TypeFor[level]()} {
		if _, err := tool.ParametersSchema("t", field(typ, `"`)); err == nil {
			t.Errorf("agno accepted %v", typ)
		}
		if _, err := jsonschema.ForType(field(typ, `"`), nil); err != nil {
			t.Errorf("jsonschema-go refused %v: %v", typ, err)
		}
	}
}

// Even as a carrier, jsonschema.Schema re-encodes agno's schemas.
func TestJSONSchemaGoEncodingDiffersFromAgno(t *testing.T) {
	for agno, lib := range map[string]string{
		`{"type":"string","enum":["a","b"],"description":"d"}`:                          `{"type":"string","description":"d","enum":["a","b"]}`,
		`{"type":"string","format":"date-time","description":"d"}`:                      `{"type":"string","description":"d","format":"date-time"}`,
		`{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{}}`: `{"type":"object","additionalProperties":true,"propertyNames":{"type":"string"}}`,
		`{}`:                                 `true`,
		`{"type":"string","minLength":1.0}`:  `{"type":"string","minLength":1}`,
		`{"x-b":1,"x-a":2,"type":"integer"}`: `{"type":"integer","x-a":2,"x-b":1}`,
	} {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(agno), &s); err != nil {
			t.Fatalf("%s: %v", agno, err)
		}
		got, err := json.Marshal(&s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != lib {
			t.Errorf("%s re-encodes as %s, want %s", agno, got, lib)
		}
	}
}
