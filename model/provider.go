package model

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"

	"github.com/agno-go/agno/internal/registry"
)

// ProviderSettings are what every provider is built from: the keys any
// [models.<key>] table may have, resolved by the caller.
type ProviderSettings struct {
	// ID is the provider's model id ("gpt-4o-mini"); "" for its default.
	ID string
	// BaseURL overrides the provider's endpoint.
	BaseURL string
	// APIKey is the key to send; "" when the provider takes none.
	APIKey string
	// HTTPClient sends the requests; nil uses the provider's shared one.
	HTTPClient *http.Client
	// MaxRetries of a request failing with a retryable error: 0 is the
	// provider's default, negative none.
	MaxRetries int
	// Headers are added to every request (agno's default_headers; the
	// [models.<key>] table's headers).
	Headers map[string]string
	Logger  *slog.Logger
}

// Provider describes one model provider for RegisterProvider. O is the
// provider's own options: the keys of a [models.<key>] table beyond the
// common ones, decoded strictly into a fresh *O (TOML tags name the keys).
// A provider without options uses struct{}.
type Provider[O any] struct {
	// Name is agno's model-string provider name ("openai", "anthropic"),
	// used as provider = "<name>" and in "<name>:<model id>".
	Name string
	// Summary is one line for listings and docs.
	Summary string
	// KeyEnv is the variable the API key is read from by default; "" when
	// the provider needs no key.
	KeyEnv string
	// RequiresBaseURL refuses a table without base_url (a provider that
	// has no endpoint of its own).
	RequiresBaseURL bool
	// DefaultMaxRetries is what MaxRetries 0 means, for listings.
	DefaultMaxRetries int
	// DefaultModel is the model id an empty one means (agno's default id
	// of the class); "" when a table must name one.
	DefaultModel string
	// KeyOptional, when set, reports that these settings authenticate
	// without the KeyEnv key (an Entra ID token, Google's default
	// credentials, a local server), so a missing key is no reason to
	// hold the model back. opts is never nil.
	KeyOptional func(s ProviderSettings, opts *O) bool
	// New builds the model. opts is never nil.
	New func(s ProviderSettings, opts *O) (Model, error)
}

// RegisteredProvider is a provider as the registry holds it, with its
// options type erased so that config and servers can handle any provider.
type RegisteredProvider struct {
	Name              string
	Summary           string
	KeyEnv            string
	RequiresBaseURL   bool
	DefaultMaxRetries int
	DefaultModel      string

	optionsType reflect.Type
	build       func(ProviderSettings, any) (Model, error)
	keyOptional func(ProviderSettings, any) bool
}

// KeyOptional reports whether s and opts (nil or a value NewOptions
// returned) authenticate without the KeyEnv key.
func (p RegisteredProvider) KeyOptional(s ProviderSettings, opts any) bool {
	if p.keyOptional == nil {
		return false
	}
	if opts == nil {
		opts = p.NewOptions()
	}
	return p.keyOptional(s, opts)
}

// NewOptions returns a pointer to a zero value of the provider's options,
// for a decoder to fill.
func (p RegisteredProvider) NewOptions() any { return reflect.New(p.optionsType).Interface() }

// OptionsType is the provider's options struct type.
func (p RegisteredProvider) OptionsType() reflect.Type { return p.optionsType }

// New builds a model. opts is nil or a value NewOptions returned.
func (p RegisteredProvider) New(s ProviderSettings, opts any) (Model, error) {
	if opts == nil {
		opts = p.NewOptions()
	}
	if reflect.TypeOf(opts) != reflect.PointerTo(p.optionsType) {
		return nil, fmt.Errorf("model provider %q: options are %T, want *%s", p.Name, opts, p.optionsType)
	}
	return p.build(s, opts)
}

var providers = registry.New[RegisteredProvider]("model provider")

// RegisterProvider adds a provider. Built-in providers register
// themselves when their package is imported (package
// model/providers imports them all); a program registers its own the same
// way before loading a configuration. It panics on an empty or taken name
// or a nil constructor, mistakes of the program rather than of its input.
func RegisterProvider[O any](p Provider[O]) {
	name := strings.ToLower(strings.TrimSpace(p.Name))
	if name == "" || name != p.Name || strings.ContainsAny(name, ": ") {
		panic(fmt.Sprintf("model: provider name %q must be lower case without spaces or colons", p.Name))
	}
	if p.New == nil {
		panic(fmt.Sprintf("model: provider %q has no New", name))
	}
	t := reflect.TypeFor[O]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("model: provider %q options must be a struct, not %s", name, t))
	}
	build := p.New
	r := RegisteredProvider{
		Name: name, Summary: p.Summary, KeyEnv: p.KeyEnv, RequiresBaseURL: p.RequiresBaseURL,
		DefaultMaxRetries: p.DefaultMaxRetries, DefaultModel: p.DefaultModel, optionsType: t,
		build: func(s ProviderSettings, opts any) (Model, error) { return build(s, opts.(*O)) },
	}
	if optional := p.KeyOptional; optional != nil {
		r.keyOptional = func(s ProviderSettings, opts any) bool { return optional(s, opts.(*O)) }
	}
	providers.Register(name, r)
}

// LookupProvider returns the provider registered under name (agno's
// names are lower case; name is matched case-insensitively, as agno's
// get_model lower-cases it).
func LookupProvider(name string) (RegisteredProvider, bool) {
	return providers.Lookup(strings.ToLower(strings.TrimSpace(name)))
}

// ProviderNames lists the registered providers, sorted.
func ProviderNames() []string { return providers.Names() }

// ErrUnknownProvider is matched by the error for a provider name nothing
// registered.
var ErrUnknownProvider = errors.New("unknown model provider")

// ErrModelString is matched by the error for a model string that is not
// "<provider>:<model id>".
var ErrModelString = errors.New("invalid model string")

// ParseModelString splits agno's "<provider>:<model id>" at its first
// colon, both parts trimmed and the provider lower-cased, as agno's
// get_model does (a model id may itself hold colons: "ollama:llama3.1:8b").
func ParseModelString(s string) (provider, id string, err error) {
	provider, id, ok := strings.Cut(s, ":")
	provider, id = strings.ToLower(strings.TrimSpace(provider)), strings.TrimSpace(id)
	if !ok || provider == "" || id == "" {
		return "", "", fmt.Errorf("%w: %q: write it as \"<provider>:<model id>\", e.g. \"openai:gpt-4o\"", ErrModelString, s)
	}
	return provider, id, nil
}

// FromProvider builds model id of the named provider with the provider's
// defaults and the key in its KeyEnv variable: agno's get_model for a
// "<provider>:<id>" string.
func FromProvider(provider, id string) (Model, error) {
	p, ok := LookupProvider(provider)
	if !ok {
		return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownProvider, provider, strings.Join(ProviderNames(), ", "))
	}
	s := ProviderSettings{ID: id}
	if p.KeyEnv != "" {
		s.APIKey = os.Getenv(p.KeyEnv)
	}
	return p.New(s, nil)
}
