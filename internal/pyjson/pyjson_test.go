package pyjson

import (
	"encoding/json"
	"testing"
)

func TestDumpsMatchesPython(t *testing.T) {
	cases := []struct {
		in   any
		opts Options
		want string
	}{
		// Golden values from shared/spec/v2.6.13-changes.md A3 (computed with Python).
		{map[string]any{"k": "é", "n": []any{1, 2}}, Options{}, `{"k": "\u00e9", "n": [1, 2]}`},
		{map[string]any{"doc_id": 1, "collection_id": 1, "server_id": "10"}, Options{SortKeys: true}, `{"collection_id": 1, "doc_id": 1, "server_id": "10"}`},
		{map[string]any{"b": 2, "a": "x"}, Options{SortKeys: true}, `{"a": "x", "b": 2}`},
		{map[string]any{"text": "u:hello"}, Options{}, `{"text": "u:hello"}`},
		{"<a&b>", Options{}, `"<a&b>"`},
		{1.0, Options{}, `1.0`},
		{json.Number("1.0"), Options{}, `1.0`},
		{0.1, Options{}, `0.1`},
		{1e16, Options{}, `1e+16`},
		{1e15, Options{}, `1000000000000000.0`},
		{1.5e-5, Options{}, `1.5e-05`},
		{"😀", Options{}, `"\ud83d\ude00"`},
		{"\x01\x7f", Options{}, `"\u0001\u007f"`},
		{[]any{}, Options{}, `[]`},
		{map[string]any{}, Options{}, `{}`},
		{nil, Options{}, `null`},
		{map[string]any{"a": []any{1, map[string]any{"b": nil}}}, Options{Indent: 2}, "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ]\n}"},
		{"é", Options{NoEnsureASCII: true}, `"é"`},
	}
	for _, c := range cases {
		got, err := DumpsOpts(c.in, c.opts)
		if err != nil || got != c.want {
			t.Errorf("Dumps(%#v, %+v) = %s (%v), want %s", c.in, c.opts, got, err, c.want)
		}
	}
}

func TestStructKeepsFieldOrder(t *testing.T) {
	type s struct {
		Z string `json:"z"`
		A int    `json:"a"`
	}
	got, _ := Dumps(s{"x", 1})
	if got != `{"z": "x", "a": 1}` {
		t.Fatalf("got %s", got)
	}
	got, _ = DumpsOpts(s{"x", 1}, Options{SortKeys: true})
	if got != `{"a": 1, "z": "x"}` {
		t.Fatalf("sorted got %s", got)
	}
}
