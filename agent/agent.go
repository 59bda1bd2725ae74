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
	"log/slog"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// Config configures an Agent. Field names follow agno's Agent; defaults are
// agno's unless noted.
type Config struct {
	ID          string // default: Name lower-cased, spaces/underscores → "-"; else a UUID
	Name        string
	Description string
	// Role is used when the agent is a team member.
	Role string

	Model model.Model
	// FallbackModels are tried, in order, when Model fails with a
	// non-client error; Fallbacks gives per-failure lists instead.
	FallbackModels []model.Model
	Fallbacks      *Fallbacks

	Instructions       []string
	InstructionsFunc   func(ctx context.Context, rc *run.Context) ([]string, error)
	SystemMessage      string
	SystemMessageFunc  func(ctx context.Context, rc *run.Context) (string, error)
	SystemMessageRole  model.Role
	BuildContext       *bool // default true
	ResolveInContext   *bool // default true: {var} from session state, dependencies, metadata
	UseInstructionTags bool
	Markdown           bool
	AddNameToContext   bool
	AddDatetime        bool
	Timezone           *time.Location
	ExpectedOutput     string
	AdditionalContext  string
	AdditionalInput    []model.Message

	Tools         []tool.Provider
	ToolHooks     []tool.Hook
	ToolCallLimit int
	ToolChoice    *model.ToolChoice

	// Store keeps sessions, runs and events (agno's db). Without it runs
	// are not persisted and a paused run can only be continued from its
	// returned output.
	Store                    storage.Store
	SessionState             map[string]any
	OverwriteDBSessionState  bool
	AddSessionStateToContext bool
	Dependencies             map[string]any
	Metadata                 map[string]any
	AddHistoryToContext      bool
	NumHistoryRuns           int // default 3 when neither limit is set
	NumHistoryMessages       int
	StoreEvents              bool
	EventsToSkip             []string // default ["RunContent"]
	StoreHistoryMessages     bool
	StoreToolMessages        *bool // default true
	AddSessionSummary        bool

	// User memories (agno's memory_manager, enable_user_memories /
	// update_memory_on_run, enable_agentic_memory) and session summaries.
	// Without a MemoryManager one is made from Model and Store.
	MemoryManager              *memory.Manager
	EnableUserMemories         bool
	EnableAgenticMemory        bool
	AddMemoriesToContext       *bool // default: on when a memory feature is on
	EnableSessionSummaries     bool
	SessionSummaryManager      *memory.SummaryManager
	AddSessionSummaryToContext *bool // default: on with session summaries

	// Knowledge is the agent's knowledge base (agno's knowledge); a
	// *knowledge.Knowledge, or any Knowledge such as a custom retriever.
	// By default the agent searches it with the search_knowledge_base tool
	// (agentic RAG) and the system message says so.
	Knowledge Knowledge
	// KnowledgeFilters apply to every search; a run's knowledge_filters
	// are merged over them.
	KnowledgeFilters filter.Filters
	// SearchKnowledge adds the search_knowledge_base tool (default true
	// with Knowledge).
	SearchKnowledge *bool
	// AddSearchKnowledgeInstructions puts the knowledge base snippet in
	// the system message (default true).
	AddSearchKnowledgeInstructions *bool
	// EnableAgenticKnowledgeFilters lets the model choose metadata filters
	// (the tool takes a filters argument; the system message lists the
	// valid keys).
	EnableAgenticKnowledgeFilters bool
	// AddKnowledgeToContext retrieves references for each user message and
	// appends them to it (classic RAG).
	AddKnowledgeToContext bool

	OutputSchema  *OutputSchema
	UseJSONMode   bool
	ParseResponse *bool // default true

	PreHooks  []PreHook
	PostHooks []PostHook

	Retries             int
	DelayBetweenRetries time.Duration // default 1s
	ExponentialBackoff  bool

	// StreamEvents is the default for RunStream (run.WithStreamEvents
	// overrides it).
	StreamEvents bool

	Canceller run.Canceller
	Logger    *slog.Logger
}

// Knowledge is what an agent searches (agno's KnowledgeProtocol):
// *knowledge.Knowledge implements it.
type Knowledge = engine.Knowledge

// Fallbacks are per-failure fallback model lists (agno's FallbackConfig).
type Fallbacks = engine.Fallbacks

// OutputSchema is a structured-output schema; build it with
// OutputSchemaFor or OutputSchemaFromJSON.
type OutputSchema = engine.OutputSchema

// PreHook, PostHook, HookInput and CheckError are the guardrail types.
type (
	PreHook    = engine.PreHook
	PostHook   = engine.PostHook
	HookInput  = engine.HookInput
	CheckError = engine.CheckError
)

// Agent is a configured agent; safe for concurrent use.
type Agent struct {
	spec engine.Spec // one allocation with the agent
	// cfg keeps what the spec does not hold as given; Config rebuilds the
	// rest from the spec rather than keep a second copy of every field.
	cfg given
}

// given is the part of Config the spec holds derived, defaulted or not at
// all.
type given struct {
	ID, Name string // also the spec's; trace.go reads them here
	// Fallbacks is set only with Config.Fallbacks (rare): otherwise
	// FallbackModels is the spec's OnError list.
	Fallbacks *givenFallbacks
	BuildContext, ResolveInContext, StoreToolMessages, ParseResponse,
	AddMemoriesToContext, AddSessionSummaryToContext,
	SearchKnowledge, AddSearchKnowledgeInstructions *bool
	NumHistoryRuns, NumHistoryMessages                      int
	AddSessionSummary, EnableSessionSummaries, StreamEvents bool
	// The spec's role and logger are defaults New filled in.
	defaultRole, defaultLogger bool
}

type givenFallbacks struct {
	Fallbacks      *Fallbacks
	FallbackModels []model.Model
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
	a := &Agent{cfg: given{
		ID: cfg.ID, Name: cfg.Name, defaultRole: cfg.SystemMessageRole == "", defaultLogger: cfg.Logger == nil,
		BuildContext: cfg.BuildContext, ResolveInContext: cfg.ResolveInContext, StoreToolMessages: cfg.StoreToolMessages,
		ParseResponse: cfg.ParseResponse, AddMemoriesToContext: cfg.AddMemoriesToContext,
		AddSessionSummaryToContext: cfg.AddSessionSummaryToContext, SearchKnowledge: cfg.SearchKnowledge,
		AddSearchKnowledgeInstructions: cfg.AddSearchKnowledgeInstructions,
		NumHistoryRuns:                 cfg.NumHistoryRuns, NumHistoryMessages: cfg.NumHistoryMessages,
		AddSessionSummary: cfg.AddSessionSummary, EnableSessionSummaries: cfg.EnableSessionSummaries, StreamEvents: cfg.StreamEvents,
	}}
	a.spec = engine.Spec{
		ID:                       cfg.ID,
		Name:                     cfg.Name,
		Model:                    cfg.Model,
		SystemMessage:            cfg.SystemMessage,
		SystemMessageFunc:        cfg.SystemMessageFunc,
		SystemMessageRole:        cfg.SystemMessageRole,
		NoContext:                isFalse(cfg.BuildContext),
		Description:              cfg.Description,
		Role:                     cfg.Role,
		Instructions:             cfg.Instructions,
		InstructionsFunc:         cfg.InstructionsFunc,
		UseInstructionTags:       cfg.UseInstructionTags,
		Markdown:                 cfg.Markdown,
		AddNameToContext:         cfg.AddNameToContext,
		AddDatetime:              cfg.AddDatetime,
		Timezone:                 cfg.Timezone,
		ExpectedOutput:           cfg.ExpectedOutput,
		AdditionalContext:        cfg.AdditionalContext,
		NoResolveInContext:       isFalse(cfg.ResolveInContext),
		AddSessionStateToContext: cfg.AddSessionStateToContext,
		AddSessionSummary:        cfg.AddSessionSummary || (cfg.EnableSessionSummaries && !isFalse(cfg.AddSessionSummaryToContext)),
		AdditionalInput:          cfg.AdditionalInput,
		Tools:                    cfg.Tools,
		ToolHooks:                cfg.ToolHooks,
		ToolCallLimit:            cfg.ToolCallLimit,
		ToolChoice:               cfg.ToolChoice,
		Store:                    cfg.Store,
		Canceller:                cfg.Canceller,
		SessionState:             cfg.SessionState,
		OverwriteSessionState:    cfg.OverwriteDBSessionState,
		Dependencies:             cfg.Dependencies,
		Metadata:                 cfg.Metadata,
		AddHistory:               cfg.AddHistoryToContext,
		NumHistoryRuns:           cfg.NumHistoryRuns,
		NumHistoryMessages:       cfg.NumHistoryMessages,
		StoreEvents:              cfg.StoreEvents,
		EventsToSkip:             cfg.EventsToSkip,
		StoreHistoryMessages:     cfg.StoreHistoryMessages,
		NoStoreToolMessages:      isFalse(cfg.StoreToolMessages),
		Knowledge: engine.NewKnowledgeSettings(cfg.Knowledge, cfg.KnowledgeFilters, cfg.SearchKnowledge,
			cfg.AddSearchKnowledgeInstructions, cfg.EnableAgenticKnowledgeFilters, cfg.AddKnowledgeToContext),
		OutputSchema:       cfg.OutputSchema,
		UseJSONMode:        cfg.UseJSONMode,
		NoParse:            isFalse(cfg.ParseResponse),
		PreHooks:           cfg.PreHooks,
		PostHooks:          cfg.PostHooks,
		Retries:            cfg.Retries,
		RetryDelay:         cfg.DelayBetweenRetries,
		ExponentialBackoff: cfg.ExponentialBackoff,
		Logger:             cfg.Logger,
	}
	spec := &a.spec
	if cfg.Fallbacks != nil {
		spec.Fallbacks = *cfg.Fallbacks
		a.cfg.Fallbacks = &givenFallbacks{cfg.Fallbacks, cfg.FallbackModels}
	} else {
		spec.Fallbacks.OnError = cfg.FallbackModels
	}
	if err := setupMemory(&cfg, spec); err != nil {
		return nil, fmt.Errorf("agent %q: %w", cfg.ID, err)
	}
	if cfg.NumHistoryRuns > 0 && cfg.NumHistoryMessages > 0 {
		spec.NumHistoryMessages = 0 // agno: the two are exclusive and runs wins
	}
	if err := spec.Prepare(); err != nil {
		return nil, fmt.Errorf("agent %q: %w", cfg.ID, err)
	}
	return a, nil
}

func isFalse(b *bool) bool { return b != nil && !*b }

// setupMemory fills the spec's memory fields, making managers from the
// agent's model and store when none are given.
func setupMemory(cfg *Config, spec *engine.Spec) error {
	usesMemory := cfg.EnableUserMemories || cfg.EnableAgenticMemory || cfg.MemoryManager != nil
	if usesMemory {
		if cfg.MemoryManager == nil {
			if cfg.Store == nil {
				return errors.New("user memories need a Store (set Config.Store) to keep memories in")
			}
			m, err := memory.NewManager(memory.ManagerConfig{Model: cfg.Model, Store: cfg.Store, Logger: cfg.Logger})
			if err != nil {
				return err
			}
			cfg.MemoryManager = m
		}
		spec.Memory = cfg.MemoryManager
		spec.AutomaticMemory = cfg.EnableUserMemories
		spec.AgenticMemory = cfg.EnableAgenticMemory
		spec.AddMemoriesToContext = !isFalse(cfg.AddMemoriesToContext)
	}
	if cfg.EnableSessionSummaries || cfg.SessionSummaryManager != nil {
		if cfg.Store == nil {
			return errors.New("session summaries need a Store (set Config.Store) to keep the summary on the session")
		}
		if cfg.SessionSummaryManager == nil {
			sm, err := memory.NewSummaryManager(memory.SummaryConfig{Model: cfg.Model, Logger: cfg.Logger})
			if err != nil {
				return err
			}
			cfg.SessionSummaryManager = sm
		}
		spec.Summaries = cfg.SessionSummaryManager
	}
	return nil
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
func (a *Agent) ID() string { return a.cfg.ID }

// Name returns the agent name.
func (a *Agent) Name() string { return a.cfg.Name }

// Role returns the agent's role in a team.
func (a *Agent) Role() string { return a.spec.Role }

// Description returns the agent's description.
func (a *Agent) Description() string { return a.spec.Description }

// ToolNames lists the names of the agent's static tools (connection-backed
// toolkits are listed when connected at run time).
func (a *Agent) ToolNames() []string { return a.spec.ToolNames() }

// Config returns the configuration the agent was built with (with the id
// filled in, and the memory managers New made).
func (a *Agent) Config() Config {
	s, g := &a.spec, &a.cfg
	cfg := Config{
		ID: g.ID, Name: g.Name, Description: s.Description, Role: s.Role,
		Model: s.Model, FallbackModels: s.Fallbacks.OnError,
		Instructions: s.Instructions, InstructionsFunc: s.InstructionsFunc,
		SystemMessage: s.SystemMessage, SystemMessageFunc: s.SystemMessageFunc, SystemMessageRole: s.SystemMessageRole,
		BuildContext: g.BuildContext, ResolveInContext: g.ResolveInContext,
		UseInstructionTags: s.UseInstructionTags, Markdown: s.Markdown, AddNameToContext: s.AddNameToContext,
		AddDatetime: s.AddDatetime, Timezone: s.Timezone, ExpectedOutput: s.ExpectedOutput,
		AdditionalContext: s.AdditionalContext, AdditionalInput: s.AdditionalInput,
		Tools: s.Tools, ToolHooks: s.ToolHooks, ToolCallLimit: s.ToolCallLimit, ToolChoice: s.ToolChoice,
		Store: s.Store, SessionState: s.SessionState, OverwriteDBSessionState: s.OverwriteSessionState,
		AddSessionStateToContext: s.AddSessionStateToContext, Dependencies: s.Dependencies, Metadata: s.Metadata,
		AddHistoryToContext: s.AddHistory, NumHistoryRuns: g.NumHistoryRuns, NumHistoryMessages: g.NumHistoryMessages,
		StoreEvents: s.StoreEvents, EventsToSkip: s.EventsToSkip, StoreHistoryMessages: s.StoreHistoryMessages,
		StoreToolMessages: g.StoreToolMessages, AddSessionSummary: g.AddSessionSummary,
		MemoryManager: s.Memory, EnableUserMemories: s.AutomaticMemory, EnableAgenticMemory: s.AgenticMemory,
		AddMemoriesToContext: g.AddMemoriesToContext, EnableSessionSummaries: g.EnableSessionSummaries,
		SessionSummaryManager: s.Summaries, AddSessionSummaryToContext: g.AddSessionSummaryToContext,
		Knowledge: s.Knowledge.Base, KnowledgeFilters: s.Knowledge.Filters, SearchKnowledge: g.SearchKnowledge,
		AddSearchKnowledgeInstructions: g.AddSearchKnowledgeInstructions,
		EnableAgenticKnowledgeFilters:  s.Knowledge.AgenticFilters, AddKnowledgeToContext: s.Knowledge.AddToContext,
		OutputSchema: s.OutputSchema, UseJSONMode: s.UseJSONMode, ParseResponse: g.ParseResponse,
		PreHooks: s.PreHooks, PostHooks: s.PostHooks,
		Retries: s.Retries, DelayBetweenRetries: s.RetryDelay, ExponentialBackoff: s.ExponentialBackoff,
		StreamEvents: g.StreamEvents, Canceller: s.Canceller, Logger: s.Logger,
	}
	if g.Fallbacks != nil {
		cfg.Fallbacks, cfg.FallbackModels = g.Fallbacks.Fallbacks, g.Fallbacks.FallbackModels
	}
	if g.defaultRole {
		cfg.SystemMessageRole = ""
	}
	if g.defaultLogger {
		cfg.Logger = nil
	}
	return cfg
}

func (a *Agent) request(input string, opts []run.Option) *run.Request {
	req := &run.Request{Input: input, StreamEvents: a.cfg.StreamEvents}
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
