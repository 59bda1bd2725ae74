package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

// The wants are Python 3.11's repr() of what json.loads gives.
func TestPyRepr(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{json.Number("1e16"), "1e+16"},
		{json.Number("1e-5"), "1e-05"},
		{json.Number("123.0"), "123.0"},
		{json.Number("1e22"), "1e+22"},
		{json.Number("0.0001"), "0.0001"},
		{json.Number("-0.0"), "-0.0"},
		{json.Number("1.5e-7"), "1.5e-07"},
		{json.Number("1e15"), "1000000000000000.0"},
		{json.Number("123456789.123"), "123456789.123"},
		{json.Number("0.30000000000000004"), "0.30000000000000004"},
		{json.Number("1e400"), "inf"},
		{json.Number("-0"), "0"},
		{json.Number("1180591620717411303424"), "1180591620717411303424"},
		{"a'b", `"a'b"`},
		{`a"b`, `'a"b'`},
		{`a'b"c`, `'a\'b"c'`},
		{"tab\there\x01\x7f\u00e9\u200b\U0001F600\\", `'tab\there\x01\x7fé\u200b😀\\'`},
		{"\u00a0\u2028\ud7ff\U000e0001", `'\xa0\u2028\ud7ff\U000e0001'`},
		{map[string]any{"b": map[string]any{"c": "d"}, "a": []any{json.Number("1"), nil, true, json.Number("1.5")}}, `{'a': [1, None, True, 1.5], 'b': {'c': 'd'}}`},
		{argsKwargs{newObject()}, "ArgsKwargs(())"},
		{argsKwargs{newObject().set("q", "x")}, "ArgsKwargs((), {'q': 'x'})"},
	}
	for _, c := range cases {
		if got := pyRepr(c.in); got != c.want {
			t.Errorf("pyRepr(%#v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// pydantic cuts an input over 50 bytes to its first 25 and last 24,
// at character boundaries.
func TestTruncateRepr(t *testing.T) {
	cases := []struct{ in, want string }{
		{pyRepr(strings.Repeat("a", 48)), "'" + strings.Repeat("a", 48) + "'"},
		{pyRepr(strings.Repeat("a", 49)), "'" + strings.Repeat("a", 24) + "..." + strings.Repeat("a", 23) + "'"},
		{pyRepr(strings.Repeat("é", 24)), "'" + strings.Repeat("é", 24) + "'"},
		{pyRepr(strings.Repeat("é", 30)), "'" + strings.Repeat("é", 12) + "..." + strings.Repeat("é", 11) + "'"},
		{pyRepr(strings.Repeat("😀", 60)), "'" + strings.Repeat("😀", 6) + "..." + strings.Repeat("😀", 5) + "'"},
	}
	for _, c := range cases {
		if got := truncateRepr(c.in); got != c.want {
			t.Errorf("truncateRepr(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
