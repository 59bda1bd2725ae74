package textutil

import (
	"slices"
	"testing"
)

func TestClean(t *testing.T) {
	// agno's clean_text: every whitespace run, Python's notion of it, is one space.
	for in, want := range map[string]string{
		"a\n\n\nb   c\t\td":   "a b c d",
		" lead and trail \n":  " lead and trail ",
		"x\u00a0\u2003y\x1cz": "x y z",
		"no-space":            "no-space",
		"\r\n\f\v":            " ",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRuneHelpers(t *testing.T) {
	if Len("héllo😀") != 6 || Tail("héllo😀", 2) != "o😀" || Tail("ab", 5) != "ab" || Tail("ab", 0) != "ab" {
		t.Error("Len/Tail do not count code points")
	}
	if Prefix("héllo wörld", 10) != "héllo wörl" || Prefix("ab", 10) != "ab" {
		t.Error("Prefix does not count code points")
	}
	if got := Fields(" a\u00a0b\x1fc "); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Fields = %q", got)
	}
}

func TestSplitLines(t *testing.T) {
	// Python: "a\nb\r\nc\rd\x0be\u2028f\n".splitlines() == ['a','b','c','d','e','f']
	if got := SplitLines("a\nb\r\nc\rd\x0be\u2028f\n"); !slices.Equal(got, []string{"a", "b", "c", "d", "e", "f"}) {
		t.Errorf("SplitLines = %q", got)
	}
	if got := SplitLines("x\n\ny"); !slices.Equal(got, []string{"x", "", "y"}) {
		t.Errorf("SplitLines keeps inner empty lines: %q", got)
	}
	if SplitLines("") != nil {
		t.Error(`SplitLines("") is not empty`)
	}
}

func TestTokens(t *testing.T) {
	if got := Tokens("Hello, wörld! batch_size v2.6 ÉTÉ"); !slices.Equal(got, []string{"hello", "wörld", "batch", "size", "v2", "6", "été"}) {
		t.Errorf("Tokens = %q", got)
	}
}
