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
