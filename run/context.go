package run

import (
	"context"
	"sync"
)

// Context is the per-run bag that tools and hooks receive (agno's
// RunContext). It is reached from a context.Context with FromContext and
// never appears in a tool's schema. Session state may be touched by tool
// calls running in parallel, so it is only reached through its methods.
type Context struct {
	RunID     string
	SessionID string
	// NestedDepth is 0 for a top-level run, +1 per nesting level.
	NestedDepth int
	// Input is the run's input text (after pre-hooks).
	Input       string
	UserID      string
	ParentRunID string

	AgentID      string
	AgentName    string
	TeamID       string
	TeamName     string
	WorkflowID   string
	WorkflowName string

	// Stream and StreamEvents tell tools that start nested runs how the
	// enclosing run is being consumed.
	Stream       bool
	StreamEvents bool

	// Dependencies, Metadata and KnowledgeFilters are the run's, as its
	// Request and agent set them.
	Dependencies     map[string]any
	Metadata         map[string]any
	KnowledgeFilters map[string]any

	mu     sync.Mutex
	state  map[string]any
	values map[any]any
}

// Value returns per-run data stored by tools with SetValue (not part of
// the session state; never persisted).
func (c *Context) Value(key any) any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.values[key]
}

// SetValue stores per-run data for later tool calls of the same run.
func (c *Context) SetValue(key, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.values == nil {
		c.values = map[any]any{}
	}
	c.values[key] = v
}

// NewContext returns a run context owning a copy of state.
func NewContext(state map[string]any) *Context {
	if state == nil {
		state = map[string]any{}
	}
	return &Context{state: state}
}

// State calls fn with the session state under the context's lock; fn may
// read and modify the map but must not keep it.
func (c *Context) State(fn func(state map[string]any)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == nil {
		c.state = map[string]any{}
	}
	fn(c.state)
}

// StateValue returns one session-state value.
func (c *Context) StateValue(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.state[key]
	return v, ok
}

// SetStateValue sets one session-state value.
func (c *Context) SetStateValue(key string, v any) {
	c.State(func(s map[string]any) { s[key] = v })
}

// StateSnapshot returns a deep copy of the session state.
func (c *Context) StateSnapshot() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CloneMap(c.state)
}

// ReplaceState swaps in a new session state.
func (c *Context) ReplaceState(s map[string]any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = s
}

type ctxKey int

const (
	runContextKey ctxKey = iota
	emitterKey
)

// WithContext attaches a run context.
func WithContext(ctx context.Context, rc *Context) context.Context {
	return context.WithValue(ctx, runContextKey, rc)
}

// FromContext returns the run context of a tool call or hook, or nil
// outside a run.
func FromContext(ctx context.Context) *Context {
	rc, _ := ctx.Value(runContextKey).(*Context)
	return rc
}

// Emitter forwards events of a nested run (a member or sub-agent running
// inside a tool call) into the enclosing run's stream. It returns false
// when the stream's reader has gone away.
type Emitter func(Event) bool

// WithEmitter attaches the emitter of the enclosing tool call.
func WithEmitter(ctx context.Context, emit Emitter) context.Context {
	return context.WithValue(ctx, emitterKey, emit)
}

// EmitterFrom returns the emitter of the enclosing tool call, or nil.
func EmitterFrom(ctx context.Context) Emitter {
	e, _ := ctx.Value(emitterKey).(Emitter)
	return e
}
