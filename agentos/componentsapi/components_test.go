package componentsapi

import (
	"strings"
	"testing"
)

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
