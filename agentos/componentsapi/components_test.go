package componentsapi

import (
	"strings"
	"testing"
)

func TestParseFastAPIBool(t *testing.T) {
	for s, want := range map[string]bool{"true": true, " YES ": true, "1": true, "off": false, "F": false} {
		if v, ok := parseFastAPIBool(s); !ok || v != want {
			t.Errorf("parseFastAPIBool(%q) = %v, %v; want %v", s, v, ok, want)
		}
	}
	if _, ok := parseFastAPIBool("maybe"); ok {
		t.Error(`parseFastAPIBool("maybe") read a boolean`)
	}
}

// TestComponentIDs: an id is a path segment of /agents/{id}/runs.
func TestComponentIDs(t *testing.T) {
	for _, id := range []string{"helper", "helper-2.v1_a", "A", strings.Repeat("a", maxComponentID)} {
		if !componentIDRE.MatchString(id) {
			t.Errorf("%q refused", id)
		}
	}
	for _, id := range []string{"", ".", "..", ".hidden", "a/b", "a b", strings.Repeat("a", maxComponentID+1)} {
		if componentIDRE.MatchString(id) {
			t.Errorf("%q accepted", id)
		}
	}
}
