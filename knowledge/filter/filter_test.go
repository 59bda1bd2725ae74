package filter

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

var meta = map[string]any{
	"status":   "published",
	"views":    1500,
	"score":    json.Number("4.5"),
	"category": "tech",
	"tags":     []any{"Go", "search"},
	"author":   map[string]any{"name": "Ada", "id": 7},
	"title":    "Agents In Go",
	"empty":    nil,
}

func TestMatchExpr(t *testing.T) {
	cases := []struct {
		e    Expr
		want bool
	}{
		{EQ("status", "published"), true},
		{EQ("status", "draft"), false},
		{EQ("views", 1500.0), true}, // 1500 == 1500.0, as in Python
		{EQ("views", "1500"), false},
		{EQ("missing", nil), true}, // get_filter_value gives None
		{EQ("author.name", "Ada"), true},
		{NEQ("status", "draft"), true},
		{NEQ("missing", "x"), false}, // a missing key never matches NEQ
		{GT("views", 1000), true},
		{GT("views", 1500), false},
		{GTE("views", 1500), true},
		{LT("score", 5), true},
		{LTE("score", json.Number("4.5")), true},
		{GT("status", 3), false}, // Python raises TypeError: no match
		{GT("title", "A"), true}, // strings order lexically
		{GT("missing", 1), false},
		{IN("category", "tech", "science"), true},
		{IN("category", "art"), false},
		{CONTAINS("title", "in go"), true}, // case-insensitive
		{CONTAINS("tags", "go"), true},     // list membership, case-insensitive
		{CONTAINS("tags", "rust"), false},
		{CONTAINS("views", "15"), false},
		{STARTSWITH("title", "agents"), true},
		{STARTSWITH("title", "go"), false},
		{AND(EQ("status", "published"), GT("views", 1000)), true},
		{AND(EQ("status", "published"), GT("views", 2000)), false},
		{AND(), true},
		{OR(EQ("status", "draft"), EQ("category", "tech")), true},
		{OR(), false},
		{NOT(EQ("status", "archived")), true},
		{NOT(IN("author.id", 7, 8)), false},
		{OR(AND(EQ("category", "tech"), NOT(LT("views", 100))), EQ("status", "x")), true},
	}
	for _, c := range cases {
		if got := MatchExpr(meta, c.e); got != c.want {
			b, _ := json.Marshal(c.e)
			t.Errorf("%s = %v, want %v", b, got, c.want)
		}
	}
}

// Dict filters are JSON containment, as Postgres' meta_data @> filters.
func TestMatchDict(t *testing.T) {
	cases := []struct {
		f    map[string]any
		want bool
	}{
		{map[string]any{"status": "published", "views": 1500}, true},
		{map[string]any{"status": "published", "views": 1}, false},
		{map[string]any{"author": map[string]any{"name": "Ada"}}, true},
		{map[string]any{"tags": []any{"search"}}, true},
		{map[string]any{"tags": "search"}, false}, // a scalar does not contain-match a list value
		{map[string]any{"nope": "x"}, false},
		{map[string]any{}, true},
	}
	for _, c := range cases {
		if got := Match(meta, Dict(c.f)); got != c.want {
			t.Errorf("dict %v = %v, want %v", c.f, got, c.want)
		}
	}
	if Match(meta, List(EQ("status", "published"), EQ("category", "art"))) {
		t.Error("a list is ANDed: one failing expression must fail the filters")
	}
	if !Match(meta, Filters{}) {
		t.Error("zero filters must match everything")
	}
}

// Expressions marshal to agno's to_dict form and Parse reads it back.
func TestJSONRoundTrip(t *testing.T) {
	f := List(
		AND(EQ("status", "published"), GT("views", 1000), IN("category", "tech", "science")),
		NOT(OR(STARTSWITH("title", "x"), CONTAINS("tags", "old"), NEQ("a", 1), GTE("b", 2), LTE("c", 3), LT("d", 4))),
	)
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"conditions":[{"key":"status","op":"EQ","value":"published"},{"key":"views","op":"GT","value":1000},{"key":"category","op":"IN","values":["tech","science"]}],"op":"AND"},` +
		`{"condition":{"conditions":[{"key":"title","op":"STARTSWITH","value":"x"},{"key":"tags","op":"CONTAINS","value":"old"},{"key":"a","op":"NEQ","value":1},{"key":"b","op":"GTE","value":2},{"key":"c","op":"LTE","value":3},{"key":"d","op":"LT","value":4}],"op":"OR"},"op":"NOT"}]`
	if string(b) != want {
		t.Fatalf("marshal:\n got %s\nwant %s", b, want)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b2) != want {
		t.Errorf("round trip changed the filters:\n got %s", b2)
	}
	if !Match(meta, back) {
		t.Error("parsed filters do not match the metadata they should")
	}
}

func TestParseForms(t *testing.T) {
	f, err := Parse([]byte(`{"status": "published", "views": 1500}`))
	if err != nil || f.IsList() || !Equal(f.Dict["views"], 1500) {
		t.Errorf("dict form: %+v, %v", f, err)
	}
	if _, ok := f.Dict["views"].(json.Number); !ok {
		t.Errorf("numbers keep their literal: got %T", f.Dict["views"])
	}
	f, err = Parse([]byte(`{"op": "EQ", "key": "k", "value": "v"}`))
	if err != nil || len(f.Exprs) != 1 || f.Exprs[0].Op() != OpEQ {
		t.Errorf("single expression: %+v, %v", f, err)
	}
	for _, in := range []string{"", "null", "  "} {
		if f, err := Parse([]byte(in)); err != nil || !f.IsZero() {
			t.Errorf("Parse(%q) = %+v, %v; want no filter", in, f, err)
		}
	}
	var fromField struct{ Filters Filters }
	if err := json.Unmarshal([]byte(`{"Filters": [{"op": "IN", "key": "k", "values": [1, 2]}]}`), &fromField); err != nil || !MatchExpr(map[string]any{"k": 2}, fromField.Filters.Exprs[0]) {
		t.Errorf("UnmarshalJSON: %+v, %v", fromField, err)
	}
}

func TestParseErrors(t *testing.T) {
	deep := strings.Repeat(`{"op": "NOT", "condition": `, 11) + `{"op": "EQ", "key": "k", "value": 1}` + strings.Repeat("}", 11)
	for _, in := range []string{
		`[{"status": "x"}]`,                          // list items must be expressions
		`{"op": "EQ", "key": "k"}`,                   // no value
		`{"op": "IN", "key": "k", "values": "x"}`,    // values not a list
		`{"op": "AND"}`,                              // no conditions
		`{"op": "NOT", "condition": 3}`,              // condition not an object
		`{"op": "LIKE", "key": "k", "value": 1}`,     // unknown operator
		`{"op": "CONTAINS", "key": "k", "value": 1}`, // CONTAINS needs a string
		`"text"`,            // neither object nor list
		`{"a": 1} {"b": 2}`, // trailing data
		deep,                // deeper than MaxDepth
	} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%s) = %v, want ErrInvalid", in, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"op": "AND", "conditions": [{"op": "EQ", "key": "a", "value": 1}]}]`))
	f.Add([]byte(`{"a": {"b": [1, 2]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed, err := Parse(data)
		if err != nil {
			return
		}
		Match(meta, parsed) // must not panic
		b, err := json.Marshal(parsed)
		if err != nil {
			t.Fatalf("parsed filters do not marshal: %v", err)
		}
		if _, err := Parse(b); err != nil {
			t.Fatalf("marshalled filters %s do not parse back: %v", b, err)
		}
	})
}

// A filter decoded from API JSON holds json.Number; stored metadata holds
// Go numbers. They compare as Python compares what json.loads makes of
// the literal: an int literal is an int (exact), any other a float.
func TestNumbersAsPython(t *testing.T) {
	big := json.Number("123456789012345678901234567890")
	tenth, fifth := 0.1, 0.2 // variables: Go folds constant 0.1 + 0.2 to exactly 0.3
	cases := []struct {
		a, b any
		eq   bool
		c    int // order of a against b when comparable
	}{
		{json.Number("0.1"), 0.1, true, 0},
		{0.1, json.Number("0.1"), true, 0},
		{json.Number("0.10"), 0.1, true, 0},
		{json.Number("1e-1"), 0.1, true, 0},
		{json.Number("0.1"), float32(0.1), false, -1}, // float32(0.1) is another double, as in numpy
		{json.Number("4.5"), 4.5, true, 0},
		{json.Number("1.0"), 1, true, 0},
		{json.Number("1"), 1.0, true, 0},
		{json.Number("2"), int64(2), true, 0},
		{json.Number("0.3"), tenth + fifth, false, -1},                 // 0.1 + 0.2 != 0.3 in Python too
		{json.Number("9007199254740993"), float64(1 << 53), false, 1},  // int vs float: exact
		{json.Number("9007199254740993.0"), float64(1 << 53), true, 0}, // both floats
		{big, big, true, 0},
		{big, json.Number("123456789012345678901234567891"), false, -1},
		{json.Number("1e400"), math.Inf(1), true, 0}, // json.loads gives inf
		{json.Number("1e400"), big, false, 1},
		{math.Inf(-1), -5, false, -1},
		{json.Number("1e-400"), 0, true, 0},
		{uint64(math.MaxUint64), json.Number("18446744073709551615"), true, 0},
		{json.Number("1.5"), "1.5", false, 2},
		{json.Number("1/2"), 0.5, false, 2}, // not a JSON number
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.eq {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", c.a, c.b, got, c.eq)
		}
		got, ok := order(c.a, c.b)
		if c.c == 2 {
			if ok {
				t.Errorf("order(%#v, %#v) = %d, want not comparable", c.a, c.b, got)
			}
			continue
		}
		if !ok || got != c.c {
			t.Errorf("order(%#v, %#v) = %d, %v; want %d", c.a, c.b, got, ok, c.c)
		}
	}
	nan := math.NaN()
	if Equal(nan, nan) || Equal(json.Number("1"), nan) {
		t.Error("NaN equals nothing, itself included")
	}
	if _, ok := order(nan, 1); ok {
		t.Error("NaN orders against nothing")
	}
	// Through Match, as a search's filter meets stored metadata.
	stored := map[string]any{"score": 4.5, "ratio": 0.1, "n": int64(3)}
	parsed, err := Parse([]byte(`[{"op": "EQ", "key": "ratio", "value": 0.1}, {"op": "GTE", "key": "score", "value": 4.5}, {"op": "IN", "key": "n", "values": [3.0]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if !Match(stored, parsed) {
		t.Errorf("filters %s decoded from JSON do not match %v", parsed, stored)
	}
	dict, err := Parse([]byte(`{"ratio": 0.1, "score": 4.50}`))
	if err != nil || !Match(stored, dict) {
		t.Errorf("dict filters %s (%v) do not match %v", dict, err, stored)
	}
	if Match(stored, List(GT("ratio", json.Number("0.1")))) {
		t.Error("0.1 > 0.1")
	}
}
