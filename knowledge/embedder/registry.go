package embedder

import (
	"errors"
	"fmt"

	"github.com/agno-go/agno/internal/registry"
)

// ErrNoAPIKey is wrapped by the errors of embedders whose API key is not
// set.
var ErrNoAPIKey = errors.New("no API key")

// Options are what an embedder is built from by provider name: the keys
// of a [knowledge.NAME.embedder] table. A provider refuses those it does
// not take.
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

// Provider is a registered embedder provider.
type Provider struct {
	// Summary is one line for listings and error messages.
	Summary string
	// KeyEnv is the variable the API key is read from when APIKeyEnv is
	// empty; "" when the provider needs no key.
	KeyEnv string
	// RequiresBaseURL refuses options without BaseURL (a provider with
	// no endpoint of its own).
	RequiresBaseURL bool
	// New validates the options and builds the embedder, without a
	// request. A key variable that is not set is not an error of New, so
	// that a start does not fail for it: the embedder's calls fail with an
	// error wrapping ErrNoAPIKey that says what to export.
	New func(Options) (Embedder, error)
}

var providers = registry.New[Provider]("embedder")

// Register makes an embedder provider available by name (agno's provider
// names: "openai"), as [knowledge.NAME.embedder] provider. The built-in
// builtin provider registers from this package, openai and
// openai-compatible from package openai (imported by package config); a
// program registers its own the same way, before loading a config. It
// panics on an empty or taken name or a nil New.
func Register(name string, p Provider) {
	if p.New == nil {
		panic(fmt.Sprintf("embedder: Register %q with a nil New", name))
	}
	providers.Register(name, p)
}

// Lookup returns the provider registered under name.
func Lookup(name string) (Provider, bool) { return providers.Lookup(name) }

// Names lists the registered providers, sorted.
func Names() []string { return providers.Names() }
