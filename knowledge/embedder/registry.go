package embedder

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/agno-go/agno/internal/registry"
)

// ErrNoAPIKey is wrapped by the errors of embedders whose API key is not
// set.
var ErrNoAPIKey = errors.New("no API key")

// Options are the keys every [knowledge.NAME.embedder] table has; a
// provider's own keys are its options type O (Provider). A provider
// refuses those of these it does not take.
type Options struct {
	// Model is the embedding model id; "" for the provider's default.
	Model string
	// BaseURL overrides the provider's endpoint.
	BaseURL string
	// APIKeyEnv names the variable holding the API key.
	APIKeyEnv string
	// Dimensions of the vectors; zero for the provider's default.
	Dimensions int
	// BatchSize is how many texts go in one request; zero for the
	// provider's default.
	BatchSize int
}

// Provider describes an embedder provider for Register. O is the
// provider's own options: the keys of a [knowledge.NAME.embedder] table
// beyond the common ones (Options), decoded strictly into a fresh *O
// (TOML tags name the keys). A provider without options uses struct{}.
type Provider[O any] struct {
	// Summary is one line for listings and error messages.
	Summary string
	// KeyEnv is the variable the API key is read from when APIKeyEnv is
	// empty; "" when the provider needs no key.
	KeyEnv string
	// RequiresBaseURL refuses options without BaseURL (a provider with
	// no endpoint of its own).
	RequiresBaseURL bool
	// DefaultModel is the model an empty Model means, for listings; ""
	// when the provider has none.
	DefaultModel string
	// New validates the options and builds the embedder, without a
	// request; opts is never nil. A key variable that is not set is not
	// an error of New, so that a start does not fail for it: the
	// embedder's calls fail with an error wrapping ErrNoAPIKey that says
	// what to export.
	New func(o Options, opts *O) (Embedder, error)
}

// RegisteredProvider is a provider as the registry holds it, its options
// type erased so that config can handle any provider.
type RegisteredProvider struct {
	Name            string
	Summary         string
	KeyEnv          string
	RequiresBaseURL bool
	DefaultModel    string

	optionsType reflect.Type
	build       func(Options, any) (Embedder, error)
}

// NewOptions returns a pointer to a zero value of the provider's options,
// for a decoder to fill.
func (p RegisteredProvider) NewOptions() any { return reflect.New(p.optionsType).Interface() }

// OptionsType is the provider's options struct type.
func (p RegisteredProvider) OptionsType() reflect.Type { return p.optionsType }

// New builds an embedder. opts is nil (the provider's defaults) or a
// value NewOptions returned.
func (p RegisteredProvider) New(o Options, opts any) (Embedder, error) {
	if opts == nil {
		opts = p.NewOptions()
	}
	if reflect.TypeOf(opts) != reflect.PointerTo(p.optionsType) {
		return nil, fmt.Errorf("embedder provider %q: options are %T, want *%s", p.Name, opts, p.optionsType)
	}
	return p.build(o, opts)
}

var providers = registry.New[RegisteredProvider]("embedder")

// Register makes an embedder provider available by name (agno's provider
// names: "openai", "ollama", "cohere"), as [knowledge.NAME.embedder]
// provider. The builtin provider registers from this package, the others
// from their packages (imported by package config); a program registers
// its own the same way, before loading a config. It panics on an empty,
// upper-case or taken name, a nil New or options that are not a struct.
func Register[O any](name string, p Provider[O]) {
	if strings.ToLower(strings.TrimSpace(name)) != name {
		panic(fmt.Sprintf("embedder: provider name %q must be lower case without spaces", name))
	}
	if p.New == nil {
		panic(fmt.Sprintf("embedder: Register %q with a nil New", name))
	}
	t := reflect.TypeFor[O]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("embedder: provider %q options must be a struct, not %s", name, t))
	}
	build := p.New
	providers.Register(name, RegisteredProvider{
		Name: name, Summary: p.Summary, KeyEnv: p.KeyEnv, RequiresBaseURL: p.RequiresBaseURL, DefaultModel: p.DefaultModel,
		optionsType: t,
		build:       func(o Options, opts any) (Embedder, error) { return build(o, opts.(*O)) },
	})
}

// Lookup returns the provider registered under name.
func Lookup(name string) (RegisteredProvider, bool) { return providers.Lookup(name) }

// Names lists the registered providers, sorted.
func Names() []string { return providers.Names() }

// MissingKey stands in for an embedder whose API key variable is not set:
// it reports dims (a vector store's table needs them at start) and every
// call fails with err, which wraps ErrNoAPIKey and says what to export.
func MissingKey(dims int, err error) Embedder { return missingKey{dims: dims, err: err} }

// KeyNotSet is the error of a call needing the key in env: base (the
// provider's ErrNoAPIKey), the variable and the fix.
func KeyNotSet(base error, env string) error {
	return fmt.Errorf("%w: %s is not set: export %s=<your key> and restart", base, env, env)
}

type missingKey struct {
	dims int
	err  error
}

func (m missingKey) Dimensions() int { return m.dims }

func (m missingKey) Embed(context.Context, []string) ([][]float32, Usage, error) {
	return nil, Usage{}, m.err
}

// NewOrMissingKey builds an embedder with build(""), its key as
// configured. When that fails for want of the key (ErrNoAPIKey), a start
// is not refused: build("unset"), a placeholder key never sent, checks
// the rest of the options and gives the dimensions, and the MissingKey
// stand-in fails each call with notSet (the build error when nil).
func NewOrMissingKey(build func(placeholderKey string) (Embedder, error), notSet error) (Embedder, error) {
	e, err := build("")
	switch {
	case err == nil:
		return e, nil
	case !errors.Is(err, ErrNoAPIKey):
		return nil, err // not e: a typed nil in an interface
	}
	probe, perr := build("unset")
	if perr != nil {
		return nil, perr
	}
	return MissingKey(probe.Dimensions(), cmpErr(notSet, err)), nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// EmbedInBatches embeds texts size at a time, one embed call a batch, in
// order, and sums the usage; the first failing batch ends it.
func EmbedInBatches(ctx context.Context, texts []string, size int, embed func(ctx context.Context, batch []string) ([][]float32, Usage, error)) ([][]float32, Usage, error) {
	out := make([][]float32, 0, len(texts))
	var usage Usage
	for batch := range slices.Chunk(texts, size) {
		vecs, u, err := embed(ctx, batch)
		if err != nil {
			return nil, Usage{}, err
		}
		out = append(out, vecs...)
		usage = usage.Add(u)
	}
	return out, usage, nil
}
