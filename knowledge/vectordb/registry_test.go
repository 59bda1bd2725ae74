package vectordb

import (
	"context"
	"slices"
	"sync"
	"testing"
)

var registerTestStore sync.Once // the registry is global: once per test binary

func TestRegistry(t *testing.T) {
	open := func(context.Context, Options) (DB, error) { return nil, nil }
	registerTestStore.Do(func() { Register("test-store", open) })
	if _, ok := Lookup("test-store"); !ok || !slices.Contains(Names(), "test-store") || !slices.IsSorted(Names()) {
		t.Errorf("Names() = %v", Names())
	}
	for name, f := range map[string]Factory{"": open, "test-store": open, "test-nil": nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			Register(name, f)
		}()
	}
}
