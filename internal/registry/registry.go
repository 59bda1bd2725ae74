// Package registry is the name → entry map behind each kind's registry
// (model providers, toolkits, readers, chunkers, embedders, vector
// stores, contents stores), so that they all refuse duplicates and list
// names the same way.
package registry

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

// Registry holds the entries of one kind. It is safe for concurrent use:
// programs usually register from init, but nothing stops a later call.
type Registry[T any] struct {
	kind string // "reader", ... for panic messages
	mu   sync.RWMutex
	m    map[string]T
}

// New returns an empty registry for kind.
func New[T any](kind string) *Registry[T] {
	return &Registry[T]{kind: kind, m: map[string]T{}}
}

// Register adds v under name. An empty or taken name panics: both are
// mistakes of the program, found the first time it runs.
func (r *Registry[T]) Register(name string, v T) {
	if name == "" {
		panic(fmt.Sprintf("%s: Register with an empty name", r.kind))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, taken := r.m[name]; taken {
		panic(fmt.Sprintf("%s: Register called twice for %q", r.kind, name))
	}
	r.m[name] = v
}

// Lookup returns the entry registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}

// Names lists the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.m))
}
