package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/BurntSushi/toml"
)

// badText fails to unmarshal "bad", so the library reports a ParseError.
type badText struct{}

func (*badText) UnmarshalText(b []byte) error {
	if string(b) == "bad" {
		return errors.New("bad value")
	}
	return nil
}

// TestLibraryPositionsNotEnough pins the limits of BurntSushi/toml that
// position.go's comment gives as the reason for the scanner. If it fails
// after an upgrade, the library may now carry key positions: look again.
func TestLibraryPositionsNotEnough(t *testing.T) {
	src := "[[steps]]\nport = \"x\"\nd = \"bad\"\n\n[[steps]]\nport = 1\nd = \"ok\"\n\n[[steps]]\nport = 2\nd = \"ok\"\n"
	idx := indexKeys(src)

	var m map[string]any
	md, err := toml.Decode(src, &m)
	if err != nil {
		t.Fatal(err)
	}
	var steps int
	for _, k := range md.Keys() {
		if k.String() == "steps" {
			steps++
		}
	}
	if steps != 3 {
		t.Fatalf("library lists %d bare \"steps\" keys, want 3 (one per element, no index)", steps)
	}

	// A type mismatch in the first element: the library names a later line.
	var typed struct{ Steps []struct{ Port int } }
	_, err = toml.Decode(src, &typed)
	mm := regexp.MustCompile(`^toml: line (\d+) \(last key "steps\.port"\)`).FindStringSubmatch(fmt.Sprint(err))
	if mm == nil {
		t.Fatalf("type error not in the expected form: %v", err)
	}
	if line, _ := strconv.Atoi(mm[1]); line <= 5 {
		t.Fatalf("library put steps[0].port at line %d; it used to name the last element", line)
	}
	if p, ok := idx.lookup("steps[0].port"); !ok || p != (position{Line: 2, Col: 1}) {
		t.Fatalf("index: steps[0].port at %+v, %v; want 2:1", p, ok)
	}

	// An UnmarshalText error in the first element: the ParseError's
	// position is the last element's value.
	var text struct{ Steps []struct{ D badText } }
	_, err = toml.Decode(src, &text)
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want a ParseError, got %v", err)
	}
	if pe.Position.Line != 11 {
		t.Fatalf("library put the bad steps[0].d at line %d; it used to say 11", pe.Position.Line)
	}
	if p, ok := idx.lookup("steps[0].d"); !ok || p != (position{Line: 3, Col: 1}) {
		t.Fatalf("index: steps[0].d at %+v, %v; want 3:1", p, ok)
	}
}

// TestIndexCoversLibraryKeys checks that every key the library reports
// is found in the index under the same path, quoted keys included.
func TestIndexCoversLibraryKeys(t *testing.T) {
	docs := []string{
		"\"caf\\xE9\" = 1\n",
		"\"\\\\e\\e\" = 1\n",
		"\"\\u00e9\".\"a.b\" = { 'c[0]' = [ { d = 1 }, { d = 2 } ] }\n",
		"[[a]]\nb = 1\n[[a]]\n[a.c]\n\"\" = '''\nx = 1\n'''\n[[a.e]]\nf = \"\"\"\n[g]\"\"\"\n",
		"x = [[1, 2], [{y = 3}]] # z = 4\n",
	}
	for _, src := range docs {
		var m map[string]any
		md, err := toml.Decode(src, &m)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		idx := indexKeys(src)
		for _, k := range md.Keys() {
			plain := toPath(k).plain()
			occ := idx.occurrences(plain)
			if len(occ) == 0 {
				t.Errorf("%q: library key %s not in the index (%v)", src, plain, idx.order)
				continue
			}
			if _, ok := idx.lookup(occ[0].String()); !ok {
				t.Errorf("%q: %s has no position", src, occ[0])
			}
		}
	}
}

func TestChildKeys(t *testing.T) {
	src := `top = 1
"a.b" = { c = 1, "d[0]" = 2 }
[[s]]
x = 1
y.z = 2
[[s]]
w = 3
[s.t]
u = 4
`
	idx := indexKeys(src)
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"", []string{"top", "a.b", "s"}},
		{`"a.b"`, []string{"c", "d[0]"}},
		{"s", nil}, // the elements are s[0], s[1]
		{"s[0]", []string{"x", "y"}},
		{"s[0].y", []string{"z"}},
		{"s[1]", []string{"w", "t"}},
		{"s[1].t", []string{"u"}},
		{"missing", nil},
	} {
		if got := idx.childKeys(tc.table); !slices.Equal(got, tc.want) {
			t.Errorf("childKeys(%q) = %q, want %q", tc.table, got, tc.want)
		}
	}
}
