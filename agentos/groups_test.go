package agentos

import (
	"os/exec"
	"path"
	"slices"
	"strings"
	"testing"
)

// Each route group in its own package (agentos/<group>api) builds on the
// core and on interfaces it declares: it reaches neither the OS (package
// agentos), nor another group, nor a concrete storage backend or model
// provider, even through its dependencies.
func TestRouteGroupsDependOnlyOnTheCore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/agno-go/agno/"
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var groups []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, mod+"agentos/") && strings.HasSuffix(p, "api") && !strings.Contains(p, "/internal/") {
			groups = append(groups, p)
		}
	}
	if len(groups) < 8 {
		t.Fatalf("found %d route group packages (%v): the pattern agentos/<group>api no longer matches them", len(groups), groups)
	}
	forbidden := []string{mod + "agentos", mod + "storage/sqlite", mod + "storage/postgres", mod + "storage/memory",
		mod + "model/openai", mod + "model/anthropic", mod + "model/providers", mod + "tool/toolkits"}
	for _, g := range groups {
		deps, err := exec.Command("go", "list", "-deps", g).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", g, err)
		}
		for _, d := range strings.Fields(string(deps)) {
			other := d != g && slices.Contains(groups, d)
			if slices.Contains(forbidden, d) || other {
				t.Errorf("%s depends on %s: a group reaches the OS, other groups, backends and providers only through its Host", path.Base(g), d)
			}
		}
	}
}
