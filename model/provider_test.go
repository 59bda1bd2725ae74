package model_test

import (
	"context"
	"errors"
	"iter"
	"slices"
	"testing"

	"github.com/agno-go/agno/model"
)

type fixedOptions struct {
	Answer string `toml:"answer"`
}

type fixedModel struct{ id, answer string }

func (f fixedModel) Info() model.Info { return model.Info{ID: f.id, Provider: "Fixed"} }
func (f fixedModel) Generate(context.Context, *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) { yield(&model.Chunk{Content: f.answer}, nil) }
}

func TestProviderRegistry(t *testing.T) {
	model.RegisterProvider(model.Provider[fixedOptions]{
		Name: "fixed-test", KeyEnv: "AGNO_FIXED_TEST_KEY",
		New: func(s model.ProviderSettings, o *fixedOptions) (model.Model, error) {
			if s.APIKey == "" {
				return nil, errors.New("no key")
			}
			return fixedModel{id: s.ID, answer: o.Answer}, nil
		},
	})
	if !slices.Contains(model.ProviderNames(), "fixed-test") {
		t.Fatalf("names %v", model.ProviderNames())
	}
	p, ok := model.LookupProvider("Fixed-Test")
	if !ok {
		t.Fatal("lookup is case-insensitive, as agno's get_model")
	}
	opts := p.NewOptions().(*fixedOptions)
	opts.Answer = "42"
	m, err := p.New(model.ProviderSettings{ID: "f1", APIKey: "k"}, opts)
	if err != nil || m.Info().ID != "f1" {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := p.New(model.ProviderSettings{APIKey: "k"}, &struct{}{}); err == nil {
		t.Error("options of another type are refused")
	}

	// agno's "<provider>:<id>" resolves through the registry with the key
	// in the provider's variable.
	if _, err := model.FromProvider("fixed-test", "f2"); err == nil {
		t.Error("built without the key")
	}
	t.Setenv("AGNO_FIXED_TEST_KEY", "k")
	if m, err := model.FromProvider("fixed-test", "f2"); err != nil || m.Info().ID != "f2" {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := model.FromProvider("nope", "x"); !errors.Is(err, model.ErrUnknownProvider) {
		t.Errorf("unknown provider: %v", err)
	}

	for _, bad := range []func(){
		func() {
			model.RegisterProvider(model.Provider[fixedOptions]{Name: "fixed-test", New: func(model.ProviderSettings, *fixedOptions) (model.Model, error) { return nil, nil }})
		},
		func() {
			model.RegisterProvider(model.Provider[fixedOptions]{Name: "Upper", New: func(model.ProviderSettings, *fixedOptions) (model.Model, error) { return nil, nil }})
		},
		func() { model.RegisterProvider(model.Provider[fixedOptions]{Name: "no-new"}) },
		func() {
			model.RegisterProvider(model.Provider[int]{Name: "int-opts", New: func(model.ProviderSettings, *int) (model.Model, error) { return nil, nil }})
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a bad registration did not panic")
				}
			}()
			bad()
		}()
	}
}

func TestParseModelString(t *testing.T) {
	for in, want := range map[string][2]string{
		"openai:gpt-4o":      {"openai", "gpt-4o"},
		" OpenAI : gpt-4o ":  {"openai", "gpt-4o"},
		"ollama:llama3.1:8b": {"ollama", "llama3.1:8b"},
	} {
		p, id, err := model.ParseModelString(in)
		if err != nil || p != want[0] || id != want[1] {
			t.Errorf("%q: %q %q %v", in, p, id, err)
		}
	}
	for _, bad := range []string{"gpt-4o", ":x", "openai:", ""} {
		if _, _, err := model.ParseModelString(bad); !errors.Is(err, model.ErrModelString) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
