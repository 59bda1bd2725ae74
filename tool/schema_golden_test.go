package tool_test

import (
	"encoding/json"
	"flag"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/tool"
)

// The golden file pins ParametersSchema's bytes for combinations of agno's
// rules that the focused tests in schema_test.go check one at a time, so a
// rewrite of the generator cannot drift (key order included).
var updateSchemaGolden = flag.Bool("update-schema-golden", false, "rewrite testdata/schema_golden.txt")

type gMixed struct{}

func (gMixed) Enum() []any { return []any{1, "a", nil} }

type gNumbers string

func (gNumbers) Enum() []any { return []any{json.Number("1"), json.Number("2.5e1"), 3} }

type gEmptyEnum string

func (gEmptyEnum) Enum() []any { return nil }

type gNullOnly struct{}

func (gNullOnly) Enum() []any { return []any{nil} }

type gPtrLetter string

func (*gPtrLetter) Enum() []any { return []any{gPtrLetter("u"), gPtrLetter("v")} }

// gNullable states an anyOf that already lists null.
type gNullable struct{}

func (gNullable) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"anyOf":[{"type":"string","minLength":1.0},{"type":"null"}]}`)
}

// gUntyped states a schema with no "type".
type gUntyped struct{}

func (gUntyped) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"oneOf":[{"const":1},{"const":"x"}],"x-extra":{"b":1,"a":[true,null]}}`)
}

// gTypeList states a type list whose first member is null.
type gTypeList struct{}

func (gTypeList) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":["null","integer"],"maximum":10}`)
}

type gArgsSchemer struct{}

func (gArgsSchemer) JSONSchema() json.RawMessage {
	return json.RawMessage(`{"type":["object","null"],"properties":{"z":{},"a":{"type":"integer"}},"additionalProperties":false}`)
}

type gTextOnly struct{ s string }

func (t *gTextOnly) UnmarshalText(b []byte) error { t.s = string(b); return nil }

type gHook struct {
	N int `json:"n"`
}

func (h *gHook) UnmarshalJSON(b []byte) error {
	type plain gHook
	return json.Unmarshal(b, (*plain)(h))
}

type gAny interface{}

type gLeaf struct {
	A string  `json:"a"`
	B *string `json:"b,omitempty"`
}

type gBase struct {
	ID   string `json:"id" description:"base id"`
	Name string
	Dup  int `json:"dup"`
}

// GOther is embedded through a pointer, which encoding/json fills only when exported.
type GOther struct {
	Dup  string `json:"dup"`
	Name int    `json:"Name"`
}

type gDeep struct {
	gBase
	*GOther
	Leaf  gLeaf `json:"leaf"`
	Extra bool  `json:"extra,omitzero"`
}

type gOptionals struct {
	Str    *string             `json:"str"`
	Slice  *[]int              `json:"slice" description:"ints"`
	Map    *map[string]int     `json:"map"`
	Leaf   *gLeaf              `json:"leaf"`
	Time   *time.Time          `json:"time"`
	Mixed  *gMixed             `json:"mixed" description:"one of"`
	Null   *gNullOnly          `json:"null"`
	NAble  *gNullable          `json:"nable"`
	Untyp  *gUntyped           `json:"untyp"`
	TList  *gTypeList          `json:"tlist"`
	AsStr  *int                `json:"as_str,string"`
	Any    *any                `json:"any"`
	Raw    *json.RawMessage    `json:"raw"`
	Tagged *string             `json:"tagged,omitempty" enum:"p,q"`
	Deeper **gLeaf             `json:"deeper"`
	Dict   *map[string]any     `json:"dict"`
	Bytes  *[]byte             `json:"bytes"`
	Items  []*gMixed           `json:"items"`
	ByKey  map[int8]*gNullOnly `json:"by_key"`
}

type gEverything struct {
	Described  gMixed                `json:"described" description:"mixed <values> & \"quotes\""`
	Numbers    gNumbers              `json:"numbers"`
	Empty      gEmptyEnum            `json:"empty" description:"no values"`
	PtrLetter  gPtrLetter            `json:"ptr_letter"`
	Letters    [2]gPtrLetter         `json:"letters"`
	TopMixed   *gMixed               `json:"top_mixed"`
	TopNull    *gNullOnly            `json:"top_null"`
	TopNable   *gNullable            `json:"top_nable" description:"maybe"`
	Untyped    gUntyped              `json:"untyped" description:"kept as written"`
	TagEnum    []*float32            `json:"tag_enum" enum:"1.5, -2" description:"floats"`
	UintArr    [2]uint8              `json:"uint_arr" enum:"0,255"`
	TimeDesc   time.Time             `json:"time_desc" description:"when"`
	BytesDesc  []byte                `json:"bytes_desc" description:"blob"`
	RawDesc    json.RawMessage       `json:"raw_desc" description:"anything"`
	AnyDesc    gAny                  `json:"any_desc" description:"any value"`
	NumberDesc json.Number           `json:"number_desc,omitempty" description:"a number"`
	Text       gTextOnly             `json:"text"`
	TextMap    map[gTextOnly]gHook   `json:"text_map" description:"hooks"`
	Hook       *gHook                `json:"hook"`
	Deep       gDeep                 `json:"deep" description:"flattened"`
	Optionals  gOptionals            `json:"optionals"`
	Nest       []map[string][]*gLeaf `json:"nest"`
	IP         net.IP                `json:"ip,omitempty"`
	Dur        *time.Duration        `json:"dur"`
	BoolStr    bool                  `json:"bool_str,string"`
	//lint:ignore SA5008 the schema of a misused string option is under test
	SliceStr []int                     `json:"slice_str,string"`
	Unicode  string                    `json:"ünï" description:"naïve — ok"`
	AnyMap   map[string]gAny           `json:"any_map"`
	PtrMap   map[string]*int           `json:"ptr_map"`
	Uints    map[uint64]map[string]any `json:"uints"`
}

type gRecursiveMap struct {
	Kids map[string]gRecursiveMap `json:"kids"`
}

func TestParametersSchemaGolden(t *testing.T) {
	cases := []struct {
		name string
		typ  reflect.Type
	}{
		{"everything", reflect.TypeFor[gEverything]()},
		{"deep_as_args", reflect.TypeFor[*gDeep]()},
		{"optionals_as_args", reflect.TypeFor[gOptionals]()},
		{"args_schemer", reflect.TypeFor[gArgsSchemer]()},
		{"args_not_object_schemer", reflect.TypeFor[gNullable]()},
		{"args_enumer", reflect.TypeFor[gMixed]()},
		{"args_map", reflect.TypeFor[map[string]any]()},
		{"recursive_map", reflect.TypeFor[gRecursiveMap]()},
		{"empty_nested", reflect.TypeFor[struct {
			E struct{}  `json:"e"`
			P *struct{} `json:"p"`
		}]()},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("== " + c.name + "\n")
		s, err := tool.ParametersSchema("g", c.typ)
		if err != nil {
			b.WriteString("error: " + err.Error() + "\n")
			continue
		}
		b.Write(s)
		b.WriteByte('\n')
	}
	got := b.String()
	const path = "testdata/schema_golden.txt"
	if *updateSchemaGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("schemas differ from %s (-want +got):\n%s", path, diff)
	}
}
