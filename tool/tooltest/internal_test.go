package tooltest

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

func TestParseParamsKeepsOrder(t *testing.T) {
	ps, err := parseParams(json.RawMessage(`{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{}},"required":["z"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ps.names, []string{"z", "a", "m"}) || !slices.Equal(ps.required, []string{"z"}) {
		t.Fatalf("%+v", ps)
	}
}

// TestWrongValues: every wrong value is one the tool package's checker
// refuses for that schema, and a schema admitting anything gets none.
func TestWrongValues(t *testing.T) {
	for schema, want := range map[string]any{
		`{"type":"string"}`:                               map[string]any{"tooltest": "of the wrong type"},
		`{"type":"array","items":{"type":"string"}}`:      map[string]any{"tooltest": "of the wrong type"},
		`{"type":"object"}`:                               "tooltest: of the wrong type",
		`{"anyOf":[{"type":"object"},{"type":"string"}]}`: []any{"tooltest"},
		`{"type":["object","string","array"]}`:            nil,
		`{"$ref":"#/$defs/x"}`:                            nil,
		`{}`:                                              nil,
	} {
		var s map[string]any
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatal(err)
		}
		ps := params{names: []string{"p"}, props: map[string]map[string]any{"p": s}}
		got, ok := ps.wrongValue("p")
		if ok != (want != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, %v; want %#v", schema, got, ok, want)
		}
	}
}

func TestUntaggedFields(t *testing.T) {
	type inner struct {
		Good int `toml:"good"`
		Bad  int
	}
	type opts struct {
		Name    string  `toml:"name,omitempty"`
		Camel   string  `toml:"camelCase"`
		Skipped string  `toml:"-"`
		Nested  []inner `toml:"nested"`
		hidden  int
	}
	_ = opts{}.hidden
	if got := untaggedFields(reflect.TypeFor[opts]()); !slices.Equal(got, []string{"Camel", "Nested.Bad"}) {
		t.Fatalf("got %q", got)
	}
}

func TestOptionValue(t *testing.T) {
	if v, ok := optionValue("a = 3\nb = \"x\"", "a"); !ok || v != 3 {
		t.Fatalf("a: %v %v", v, ok)
	}
	if _, ok := optionValue("b = \"x\"", "b"); ok {
		t.Fatal("a string is no bound")
	}
}
