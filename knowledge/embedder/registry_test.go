package embedder

import (
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	if names := Names(); !slices.Contains(names, ProviderBuiltin) || !slices.IsSorted(names) {
		t.Errorf("Names() = %v", names)
	}
	p, ok := Lookup(ProviderBuiltin)
	if !ok || p.KeyEnv != "" || p.RequiresBaseURL {
		t.Fatalf("builtin: %+v %v", p, ok)
	}
	e, err := p.New(Options{Dimensions: 64})
	if err != nil || e.Dimensions() != 64 {
		t.Errorf("builtin: %v %v", e, err)
	}
	// The builtin embedder refuses what only endpoints take.
	if _, err := p.New(Options{Model: "text-embedding-3-small"}); err == nil || !strings.Contains(err.Error(), "only dimensions") {
		t.Errorf("builtin with a model: %v", err)
	}
	if _, err := p.New(Options{Dimensions: 4}); err == nil {
		t.Error("builtin with 4 dimensions")
	}
	for name, prov := range map[string]Provider{
		"":              {New: func(Options) (Embedder, error) { return nil, nil }},
		ProviderBuiltin: {New: func(Options) (Embedder, error) { return nil, nil }},
		"nil":           {},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, prov)
		}()
	}
	if _, ok := Lookup("nil"); ok {
		t.Error("a refused registration was kept")
	}
}
