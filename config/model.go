package config

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	_ "github.com/agno-go/agno/model/providers" // the built-in providers register themselves
)

// ErrMissingAPIKey is matched by the error of a run whose model's API key
// variable is not set.
var ErrMissingAPIKey = errors.New("model API key not set")

// MissingKey is a model whose API key variable was not set at build time.
type MissingKey struct {
	Model string // key of [models]
	Env   string // the variable api_key_env names
}

// keyEnv is the variable a model's key comes from ("" for none).
func (m ModelConfig) keyEnv() string {
	if m.APIKeyEnv != "" {
		return m.APIKeyEnv
	}
	p, _ := model.LookupProvider(m.Provider)
	return p.KeyEnv
}

// newHTTPClient gives each model its own connection pool, so that Close
// releases it, with the configured wait for the provider's first byte and
// bounds on the answer's silences and size.
func newHTTPClient(m ModelConfig) (*http.Client, *http.Transport) {
	return httptransport.Client(m.Timeout.Duration(), httptransport.Limits{Idle: m.IdleTimeout.Duration(), MaxBytes: m.MaxResponseBytes})
}

// newProviderModel builds the provider's client with key (which may be ""
// for an openai-compatible endpoint without auth).
func newProviderModel(m ModelConfig, key string, hc *http.Client) (model.Model, error) {
	retries := 0
	if m.MaxRetries != nil {
		retries = *m.MaxRetries
		if retries == 0 {
			retries = -1 // the providers read 0 as "default"
		}
	}
	p, ok := model.LookupProvider(m.Provider)
	if !ok {
		return nil, fmt.Errorf("provider %q is not supported: use one of %s", m.Provider, strings.Join(model.ProviderNames(), ", "))
	}
	out, err := p.New(model.ProviderSettings{ID: m.Model, BaseURL: m.BaseURL, APIKey: key, HTTPClient: hc, MaxRetries: retries, Headers: m.Headers}, m.Options)
	if err != nil {
		return nil, err
	}
	if m.hasSampling() {
		out = &samplingModel{Model: out, cfg: m}
	}
	return out, nil
}

// keyOptional reports whether the table authenticates without its key
// variable (model.Provider.KeyOptional).
func (m ModelConfig) keyOptional() bool {
	p, ok := model.LookupProvider(m.Provider)
	return ok && p.KeyOptional(model.ProviderSettings{ID: m.Model, BaseURL: m.BaseURL, Headers: m.Headers}, m.Options)
}

func (m ModelConfig) hasSampling() bool {
	return m.Temperature != nil || m.TopP != nil || m.MaxTokens != nil || len(m.Stop) > 0 || m.Seed != nil ||
		m.FrequencyPenalty != nil || m.PresencePenalty != nil || m.ReasoningEffort != "" || len(m.RequestParams) > 0
}

// samplingModel applies [models.x] sampling parameters to requests that
// do not set their own.
type samplingModel struct {
	model.Model
	cfg ModelConfig
}

// Unwrap returns the provider model, so listings report its class.
func (s *samplingModel) Unwrap() model.Model { return s.Model }

func (s *samplingModel) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	r := *req
	c := s.cfg
	if r.Temperature == nil {
		r.Temperature = c.Temperature
	}
	if r.TopP == nil {
		r.TopP = c.TopP
	}
	if r.MaxTokens == nil {
		r.MaxTokens = c.MaxTokens
	}
	if r.Stop == nil {
		r.Stop = c.Stop
	}
	if r.Seed == nil {
		r.Seed = c.Seed
	}
	if r.FrequencyPenalty == nil {
		r.FrequencyPenalty = c.FrequencyPenalty
	}
	if r.PresencePenalty == nil {
		r.PresencePenalty = c.PresencePenalty
	}
	if r.ReasoningEffort == "" {
		r.ReasoningEffort = c.ReasoningEffort
	}
	if len(c.RequestParams) > 0 {
		extra := maps.Clone(c.RequestParams)
		maps.Copy(extra, r.Extra) // the request's own win
		r.Extra = extra
	}
	return s.Model.Generate(ctx, &r)
}

// pendingKeyModel stands for a model whose API key variable was not set
// when AgentOS started. Info reports the real provider and id; every
// Generate fails with an error naming the variable, until the variable is
// set in this process, when the real client is built and used.
type pendingKeyModel struct {
	name, env, file string
	cfg             ModelConfig
	info            model.Info
	hc              *http.Client
	probe           model.Model // the client as built, with a placeholder key; never called

	mu   sync.Mutex
	real model.Model
}

func (p *pendingKeyModel) Info() model.Info { return p.info }

// Unwrap returns the provider model, so listings report its class rather
// than this placeholder's: the real client once the key is set, else the
// probe built with a placeholder key.
func (p *pendingKeyModel) Unwrap() model.Model {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.real != nil {
		return p.real
	}
	return p.probe
}

func (p *pendingKeyModel) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	m, err := p.resolve()
	if err != nil {
		return func(yield func(*model.Chunk, error) bool) { yield(nil, err) }
	}
	return m.Generate(ctx, req)
}

func (p *pendingKeyModel) resolve() (model.Model, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.real != nil {
		return p.real, nil
	}
	key := os.Getenv(p.env)
	if key == "" && isModelString(p.name) {
		return nil, fmt.Errorf("%w: model %q reads its API key from the environment variable %s, which is not set: "+
			"export %s=<your key> and restart AgentOS (or name a [models.<key>] table of %s with its own api_key_env)",
			ErrMissingAPIKey, p.name, p.env, p.env, p.file)
	}
	if key == "" {
		return nil, fmt.Errorf("%w: model %q (%s %s) reads its API key from the environment variable %s, which is not set: "+
			"export %s=<your key> and restart AgentOS (api_key_env in [models.%s] of %s)",
			ErrMissingAPIKey, p.name, p.info.Provider, p.info.ID, p.env, p.env, p.name, p.file)
	}
	m, err := newProviderModel(p.cfg, key, p.hc)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", p.name, err)
	}
	p.real = m
	return m, nil
}

// buildModel returns the model of [models.name]; a missing key gives a
// pendingKeyModel and reports the variable.
func (c *Config) buildModel(name string, m ModelConfig) (model.Model, *http.Transport, *MissingKey, error) {
	hc, tr := newHTTPClient(m)
	env := m.keyEnv()
	key := ""
	if env != "" {
		key = os.Getenv(env)
	}
	if env == "" || key != "" || m.keyOptional() {
		out, err := newProviderModel(m, key, hc)
		if err != nil {
			return nil, tr, nil, fmt.Errorf("config: [models.%s]: %w", name, err)
		}
		return out, tr, nil, nil
	}
	// Info as the real client would report it: build one with a
	// placeholder key that is never sent.
	probe, err := newProviderModel(m, "unset", hc)
	if err != nil {
		return nil, tr, nil, fmt.Errorf("config: [models.%s]: %w", name, err)
	}
	return &pendingKeyModel{name: name, env: env, file: c.Path, cfg: m, info: probe.Info(), hc: hc, probe: probe}, tr, &MissingKey{Model: name, Env: env}, nil
}
