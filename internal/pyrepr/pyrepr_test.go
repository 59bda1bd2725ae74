package pyrepr

import (
	"encoding/json"
	"strings"
	"testing"
)

// The expected texts are CPython 3.12's repr() of json.loads of each input.
func TestRepr(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "-0": "0", "1.0": "1.0", "1e5": "100000.0", "0.1": "0.1", "1e16": "1e+16", "1.5e-05": "1.5e-05", "123456789012345678": "123456789012345678",
	} {
		if got := Number(json.Number(in)); got != want {
			t.Errorf("Number(%s) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"plain": "'plain'", "it's": `"it's"`, `both ' and "`: `'both \' and "'`, "tab\tnl\n": `'tab\tnl\n'`, "\x01": `'\x01'`, "é": "'é'", "\u200b": `'\u200b'`,
	} {
		var b strings.Builder
		Quote(&b, in)
		if b.String() != want {
			t.Errorf("Quote(%q) = %s, want %s", in, b.String(), want)
		}
	}
}

type ordered struct{ keys []string }

func (o ordered) Keys() []string     { return o.keys }
func (o ordered) Value(k string) any { return len(k) }

type point struct {
	X int     `json:"x"`
	Y float64 `json:"y"`
}

func TestReprValues(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{map[string]any{"b": true, "a": nil, "c": []any{json.Number("1"), 2.5, "x"}}, "{'a': None, 'b': True, 'c': [1, 2.5, 'x']}"},
		{ordered{[]string{"zz", "a"}}, "{'zz': 2, 'a': 1}"},
		// Other values go through their JSON: a whole float is an int there.
		{point{X: 1, Y: 2}, "{'x': 1, 'y': 2}"},
		{[]any{int64(3), 7}, "[3, 7]"},
		{make(chan int), "None"},
	} {
		if got := Repr(c.in); got != c.want {
			t.Errorf("Repr(%#v) = %s, want %s", c.in, got, c.want)
		}
	}
}
