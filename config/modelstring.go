package config

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/agno-go/agno/model"
)

// modelStrings are the models files name by agno's "<provider>:<id>"
// string instead of a [models] key, built on first use with the
// provider's defaults (its endpoint and key variable) and shared by every
// file naming the same string, across reloads.
type modelStrings struct {
	mu         sync.Mutex
	models     map[string]model.Model
	transports []*http.Transport
}

// isModelString reports whether name is written as "<provider>:<id>"
// rather than as a [models] key (a key may not hold a colon unquoted,
// and agno's strings always have one).
func isModelString(name string) bool { return strings.Contains(name, ":") }

// model returns what a file's model entry names: a [models] key, or
// agno's "<provider>:<id>" string.
func (r *Resources) model(name string) (model.Model, error) {
	if m, ok := r.Models[name]; ok {
		return m, nil
	}
	if !isModelString(name) {
		return nil, fmt.Errorf("%q is not a key of [models]", name)
	}
	p, err := providerOf(name)
	if err != nil {
		return nil, err
	}
	_, id, _ := model.ParseModelString(name)
	ms := r.strings
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m, ok := ms.models[name]; ok {
		return m, nil
	}
	m, tr, missing, err := r.cfg.buildModel(name, ModelConfig{Provider: p.Name, Model: id})
	if tr != nil {
		ms.transports = append(ms.transports, tr)
	}
	if err != nil {
		return nil, err
	}
	if missing != nil {
		r.cfg.logger().Warn("model API key is not set; runs using this model will fail until it is exported",
			"model", name, "env", missing.Env, "fix", fmt.Sprintf("export %s=<your key> and restart AgentOS", missing.Env))
	}
	if ms.models == nil {
		ms.models = map[string]model.Model{}
	}
	ms.models[name] = m
	return m, nil
}

// providerOf checks a "<provider>:<id>" string without building its
// client (files are checked before what they may name is decided).
func providerOf(name string) (model.RegisteredProvider, error) {
	provider, _, err := model.ParseModelString(name)
	if err != nil {
		return model.RegisteredProvider{}, err
	}
	p, ok := model.LookupProvider(provider)
	if !ok {
		return p, fmt.Errorf("%w %q in %q: use one of %s, or a key of [models]", model.ErrUnknownProvider, provider, name, strings.Join(model.ProviderNames(), ", "))
	}
	return p, nil
}

func (ms *modelStrings) close() {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	for _, t := range ms.transports {
		t.CloseIdleConnections()
	}
}
