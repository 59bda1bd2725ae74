package embedder

import (
	"context"
	"errors"
	"fmt"
	"reflect"
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
	e, err := p.New(Options{Dimensions: 64}, nil)
	if err != nil || e.Dimensions() != 64 {
		t.Errorf("builtin: %v %v", e, err)
	}
	// The builtin embedder refuses what only endpoints take.
	if _, err := p.New(Options{Model: "text-embedding-3-small"}, nil); err == nil || !strings.Contains(err.Error(), "only dimensions") {
		t.Errorf("builtin with a model: %v", err)
	}
	if _, err := p.New(Options{Dimensions: 4}, nil); err == nil {
		t.Error("builtin with 4 dimensions")
	}
	none := func(Options, *struct{}) (Embedder, error) { return nil, nil }
	for name, prov := range map[string]Provider[struct{}]{
		"":              {New: none},
		"Upper":         {New: none},
		ProviderBuiltin: {New: none},
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
	for _, name := range []string{"nil", "Upper"} {
		if _, ok := Lookup(name); ok {
			t.Errorf("a refused registration %q was kept", name)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Register with options that are not a struct did not panic")
			}
		}()
		Register("int-options", Provider[int]{New: func(Options, *int) (Embedder, error) { return nil, nil }})
	}()
}

// A provider's own options reach New as its type; NewOptions gives a
// value to decode into, nil means the zero options, and a value of
// another type is refused.
func TestRegistryTypedOptions(t *testing.T) {
	type opts struct {
		InputType string `toml:"input_type"`
	}
	var got []string
	Register("typed-test", Provider[opts]{
		Summary: "test", DefaultModel: "m1",
		New: func(o Options, x *opts) (Embedder, error) {
			got = append(got, o.Model+"/"+x.InputType)
			return NewLexical(LexicalConfig{})
		},
	})
	p, ok := Lookup("typed-test")
	if !ok || p.Name != "typed-test" || p.DefaultModel != "m1" || p.OptionsType() != reflect.TypeFor[opts]() {
		t.Fatalf("typed-test: %+v %v", p, ok)
	}
	o, ok := p.NewOptions().(*opts)
	if !ok {
		t.Fatalf("NewOptions() = %T", p.NewOptions())
	}
	o.InputType = "search_document"
	if _, err := p.New(Options{Model: "a"}, o); err != nil {
		t.Fatal(err)
	}
	if _, err := p.New(Options{Model: "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.New(Options{}, &struct{}{}); err == nil || !strings.Contains(err.Error(), "want *embedder.opts") {
		t.Errorf("options of another type: %v", err)
	}
	if want := []string{"a/search_document", "b/"}; !slices.Equal(got, want) {
		t.Errorf("New saw %v, want %v", got, want)
	}
}

type dimsOnly int

func (d dimsOnly) Dimensions() int { return int(d) }
func (d dimsOnly) Embed(context.Context, []string) ([][]float32, Usage, error) {
	return nil, Usage{}, nil
}

// A key not exported yet does not refuse a start: the stand-in has the
// probe's dimensions and fails each call saying what to export; any other
// build error is returned as is.
func TestNewOrMissingKey(t *testing.T) {
	noKey := fmt.Errorf("acme embedder: %w", ErrNoAPIKey)
	build := func(placeholder string) (Embedder, error) {
		if placeholder == "" {
			return nil, noKey
		}
		return dimsOnly(384), nil
	}
	e, err := NewOrMissingKey(build, KeyNotSet(noKey, "ACME_KEY"))
	if err != nil || e.Dimensions() != 384 {
		t.Fatalf("%v %v", e, err)
	}
	_, _, err = e.Embed(context.Background(), []string{"x"})
	if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), "export ACME_KEY=<your key>") {
		t.Fatalf("call: %v", err)
	}
	bad := errors.New("dimensions must be positive")
	if e, err := NewOrMissingKey(func(string) (Embedder, error) { return nil, bad }, nil); e != nil || err != bad {
		t.Fatalf("other errors: %v %v", e, err)
	}
}
