// Package agent is agno's Agent in Go: a model with tools, instructions,
// session state, history, structured output, guardrails and
// human-in-the-loop pauses.
//
//	a, err := agent.New(agent.Config{Name: "Weather", Model: m, Tools: []tool.Provider{getWeather}})
//	out, err := a.Run(ctx, "Weather in SF?")
//	for ev, err := range a.RunStream(ctx, "Weather in SF?") { … }
//
// One Agent serves any number of concurrent runs: all per-run state lives
// in the run.
package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/agent/agentconfig"
	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// Config configures an Agent. Field names follow agno's Agent; defaults are
// agno's unless noted. The toml tags are the keys of an agent file
// (agents/<id>.toml): a file decodes onto this same struct, and the
// engine runs it as validated, without a copy per field. Its fields are
// documented in package agentconfig (go doc ./agent/agentconfig Config).
type Config = agentconfig.Config

// Knowledge is what an agent searches (agno's KnowledgeProtocol):
// *knowledge.Knowledge implements it.
type Knowledge = agentconfig.Knowledge

// Fallbacks are per-failure fallback model lists (agno's FallbackConfig).
type Fallbacks = agentconfig.Fallbacks

// OutputSchema is a structured-output schema; build it with
// OutputSchemaFor or OutputSchemaFromJSON.
type OutputSchema = agentconfig.OutputSchema

// PreHook, PostHook, HookInput and CheckError are the guardrail types.
type (
	PreHook    = agentconfig.PreHook
	PostHook   = agentconfig.PostHook
	HookInput  = agentconfig.HookInput
	CheckError = agentconfig.CheckError
)

// Agent is a configured agent; safe for concurrent use.
type Agent struct {
	spec engine.Spec // the validated Config and what the engine derives from it: one allocation
}

// New validates cfg and returns the agent. Static tools are resolved and
// their schemas rendered here, not on the first run.
func New(cfg Config) (*Agent, error) {
	if cfg.Model == nil {
		return nil, errors.New("agent: Model is required (for example openai.New(openai.Config{ID: \"gpt-4o-mini\"}))")
	}
	if cfg.ToolCallLimit < 0 {
		return nil, fmt.Errorf("agent: ToolCallLimit is %d; use 0 for no limit or a positive number", cfg.ToolCallLimit)
	}
	if cfg.Retries < 0 {
		return nil, fmt.Errorf("agent: Retries is %d; it must be 0 or more", cfg.Retries)
	}
	if cfg.ID == "" {
		cfg.ID = DefaultID(cfg.Name)
	}
	a := &Agent{spec: engine.Spec{AgentConfig: cfg}}
	if err := a.spec.Prepare(); err != nil {
		return nil, fmt.Errorf("agent %q: %w", cfg.ID, err)
	}
	return a, nil
}

// DefaultID derives agno's id from a name: lower-case, spaces and
// underscores become "-"; no name gives a random UUID.
func DefaultID(name string) string {
	if name == "" {
		return run.NewID()
	}
	same := true
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= utf8.RuneSelf:
			return idReplacer.Replace(strings.ToLower(name))
		case c == ' ' || c == '_' || 'A' <= c && c <= 'Z':
			same = false
		}
	}
	if same {
		return name
	}
	// ASCII: one allocation instead of a replacer per call.
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == ' ' || c == '_':
			b.WriteByte('-')
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

var idReplacer = strings.NewReplacer(" ", "-", "_", "-")

// ID returns the agent id.
func (a *Agent) ID() string { return a.spec.ID }

// Name returns the agent name.
func (a *Agent) Name() string { return a.spec.Name }

// Role returns the agent's role in a team.
func (a *Agent) Role() string { return a.spec.Role }

// Description returns the agent's description.
func (a *Agent) Description() string { return a.spec.Description }

// ToolNames lists the names of the agent's static tools (connection-backed
// toolkits are listed when connected at run time).
func (a *Agent) ToolNames() []string { return a.spec.ToolNames() }

// Config returns the configuration the agent was built with (with the id
// filled in, and the memory managers New made).
func (a *Agent) Config() Config { return a.spec.AgentConfig }

func (a *Agent) request(input string, opts []run.Option) *run.Request {
	req := &run.Request{Input: input, StreamEvents: a.spec.StreamEvents}
	for _, o := range opts {
		o(req)
	}
	return req
}

// Run runs the agent and returns its output. A failed run is an output
// with status ERROR, not an error; the error is for misuse only.
func (a *Agent) Run(ctx context.Context, input string, opts ...run.Option) (*run.Output, error) {
	req := a.request(input, opts)
	req.Stream, req.StreamEvents = false, false
	return a.execute(ctx, req, nil)
}

// RunStream runs the agent and yields its events as they happen. Breaking
// out of the loop cancels the run.
func (a *Agent) RunStream(ctx context.Context, input string, opts ...run.Option) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req := a.request(input, opts)
		req.Stream = true
		_, err := a.execute(ctx, req, func(e run.Event) bool { return yield(e, nil) })
		if err != nil {
			yield(nil, err)
		}
	}
}

// Execute runs a prepared request, emitting events to emit (which may be
// nil). Teams, workflows and AgentOS use it to nest and stream runs.
func (a *Agent) Execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	return a.execute(ctx, req, emit)
}

// Continue resumes a paused run (see run.ContinueRequest): it returns
// run.ErrNotPaused (wrapped) for a run that is not paused and
// run.ErrUnresolved while requirements are unanswered.
func (a *Agent) Continue(ctx context.Context, req run.ContinueRequest) (*run.Output, error) {
	req.Stream, req.StreamEvents = false, false
	return a.resume(ctx, &req, nil)
}

// ContinueStream is Continue with events.
func (a *Agent) ContinueStream(ctx context.Context, req run.ContinueRequest) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req.Stream = true
		_, err := a.resume(ctx, &req, func(e run.Event) bool { return yield(e, nil) })
		if err != nil {
			yield(nil, err)
		}
	}
}

// ExecuteContinue continues with an explicit emitter.
func (a *Agent) ExecuteContinue(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	return a.resume(ctx, req, emit)
}

// Cancel cancels a running run by id (or records the intent for a run about
// to start). It reports whether a running run was reached.
func (a *Agent) Cancel(ctx context.Context, runID string) (bool, error) {
	return a.spec.Cancel(ctx, runID)
}

// Close releases connection-backed tools (MCP servers) the agent holds.
func (a *Agent) Close() error {
	var errs []error
	for _, p := range a.spec.Tools {
		if c, ok := p.(tool.Connector); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// OutputSchemaFor builds a structured-output schema from a Go struct type;
// run content is then a value of T.
func OutputSchemaFor[T any]() (*OutputSchema, error) {
	t := reflect.TypeFor[T]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.Name()
	if name == "" {
		name = "Output"
	}
	raw, err := tool.ParametersSchema(name, t)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	strict, err := engine.Strict(raw)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return &OutputSchema{Name: name, Schema: strict, Strict: true, Type: t}, nil
}

// OutputSchemaFromJSON uses a raw JSON schema; run content is then a map
// (content_type "dict").
func OutputSchemaFromJSON(name string, schema []byte) (*OutputSchema, error) {
	if name == "" {
		return nil, errors.New("output schema: a name is required (the provider sends it with the schema)")
	}
	var probe map[string]any
	if err := run.DecodeJSON(schema, &probe); err != nil {
		return nil, fmt.Errorf("output schema %q: not a JSON object: %w", name, err)
	}
	return &OutputSchema{Name: name, Schema: append([]byte(nil), schema...)}, nil
}
