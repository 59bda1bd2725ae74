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
// engine runs it as validated, without a copy per field. The struct is
// defined in package agentconfig, which the engine shares; go doc
// ./agent/agentconfig Config shows each field's full comment.
//
// Fields (generated from agentconfig; go test ./agent updates it with AGNO_UPDATE_DOCS=1):
//
//   - ID (id): ID identifies the agent in stored runs, sessions, history and
//     memories.
//   - Name (name): Name is shown in run outputs, events and the session's
//     agent data; AddNameToContext also tells the model.
//   - Description (description): Description opens the system message; teams
//     list it in their roster of members.
//   - Role (role): Role is the agent's role in a team: teams list it in their
//     roster, and the agent's own system message carries it in <your_role>.
//   - Model (model): Model answers the run.
//   - FallbackModels (fallback_models): FallbackModels are tried, in order,
//     when Model fails with a server, network or rate-limit error or a context
//     overflow (agno's fallback_config on_error); not on other 4xx errors.
//   - Fallbacks: Fallbacks gives per-failure fallback lists (agno's
//     fallback_config); when set, FallbackModels is ignored.
//   - Instructions (instructions): Instructions are listed in the system
//     message: one as a paragraph, several as "- " bullets (see
//     UseInstructionTags).
//   - InstructionsFunc: InstructionsFunc is called on each run; its
//     instructions are appended to Instructions (agno's callable
//     instructions).
//   - SystemMessage (system_message): SystemMessage, when set, is the whole
//     system message: nothing is built around it (only its {var}s are
//     resolved; see ResolveInContext).
//   - SystemMessageFunc: SystemMessageFunc is called on each run and replaces
//     SystemMessage.
//   - SystemMessageRole (system_message_role): SystemMessageRole is the role
//     of the system message (default "system").
//   - BuildContext (build_context): BuildContext builds the default system
//     message from the options below (default true); false sends none unless
//     SystemMessage or SystemMessageFunc is set.
//   - ResolveInContext (resolve_in_context): ResolveInContext replaces {var}
//     in the system message with the value from session state, dependencies,
//     metadata or user_id, in that order; unknown names stay as written
//     (default true).
//   - UseInstructionTags (use_instruction_tags): UseInstructionTags wraps the
//     instructions in <instructions> tags.
//   - Markdown (markdown): Markdown asks the model to format its answers in
//     markdown; ignored when the run has an output schema.
//   - AddNameToContext (add_name_to_context): AddNameToContext tells the model
//     its Name ("Your name is: ...").
//   - AddDatetime (add_datetime_to_context): AddDatetime tells the model the
//     current date and time, so it can reason about "today" or "tomorrow".
//   - Timezone (timezone_identifier): Timezone is the zone of the AddDatetime
//     time (agno's timezone_identifier; an IANA name in a file).
//   - ExpectedOutput (expected_output): ExpectedOutput describes the desired
//     answer, in <expected_output> tags of the system message.
//   - AdditionalContext (additional_context): AdditionalContext is added near
//     the end of the system message, as written.
//   - AdditionalInput: AdditionalInput are messages sent after the system
//     message and before history and the input, e.g. few-shot examples; the
//     run output records them.
//   - Tools (tools): Tools are the functions the model may call:
//     *tool.Function, *tool.Toolkit, or a connection-backed provider (MCP)
//     connected on first use.
//   - ToolHooks: ToolHooks wrap every tool call, the first outermost (agno's
//     tool_hooks middleware).
//   - ToolCallLimit (tool_call_limit): ToolCallLimit caps the tool calls of
//     each try of a run (0: no limit); a retry has the whole limit again.
//   - ToolChoice (tool_choice): ToolChoice controls tool use: none, auto,
//     required, or one named function.
//   - Reasoning (reasoning): Reasoning makes the run reason before it answers:
//     agno's chain-of-thought loop with a reasoning agent built on
//     ReasoningModel (default: Model), or, when that model reasons natively
//     (model.Info.NativeReasoning), its own thinking.
//   - ReasoningModel (reasoning_model): ReasoningModel is the model that
//     reasons; setting it turns reasoning on, as in agno.
//   - ReasoningAgent (reasoning_agent): ReasoningAgent replaces the reasoning
//     agent agno builds: in the chain-of-thought loop its content must be
//     ReasoningSteps; for a native reasoning model its messages carry the
//     thinking.
//   - ReasoningMinSteps (reasoning_min_steps): ReasoningMinSteps and
//     ReasoningMaxSteps bound the chain-of-thought loop (agno: 1 and 10); the
//     loop asks the reasoning agent at most max-1 times, as agno does.
//   - ReasoningMaxSteps (reasoning_max_steps): (undocumented)
//   - Store: Store keeps sessions, runs and events (agno's db).
//   - SessionState (session_state): SessionState is the initial state of a new
//     session; an existing session keeps its stored state, with a run's state
//     merged over it.
//   - OverwriteDBSessionState (overwrite_db_session_state):
//     OverwriteDBSessionState starts each run from the run's own session_state
//     instead of the stored one; the keys it sets then replace the stored
//     ones.
//   - AddSessionStateToContext (add_session_state_to_context):
//     AddSessionStateToContext puts the session state in the system message,
//     in <session_state> tags.
//   - Dependencies (dependencies): Dependencies are given to tools and to
//     instruction and system-message functions (run.Context.Dependencies) and
//     resolve {var}s; a run's dependencies override them key by key.
//   - Metadata (metadata): Metadata is kept on the run output and a new
//     session and resolves {var}s; it wins over a run's metadata key by key.
//   - AddHistoryToContext (add_history_to_context): AddHistoryToContext sends
//     messages of the session's earlier completed runs before the input (needs
//     Store); run.WithHistory overrides it per run.
//   - NumHistoryRuns (num_history_runs): NumHistoryRuns is how many earlier
//     runs history takes (default 3 when neither limit is set); it wins over
//     NumHistoryMessages.
//   - NumHistoryMessages (num_history_messages): NumHistoryMessages limits
//     history to the latest messages instead of runs (leading tool results are
//     dropped).
//   - StoreEvents (store_events): StoreEvents keeps the run's events on its
//     output and in Store.
//   - EventsToSkip (events_to_skip): EventsToSkip names event kinds
//     StoreEvents does not keep (default ["RunContent"], the content deltas);
//     a name also matches its Team kind.
//   - StoreHistoryMessages (store_history_messages): StoreHistoryMessages
//     keeps the history a run was sent in its messages (returned and stored);
//     by default only its own.
//   - StoreToolMessages (store_tool_messages): StoreToolMessages keeps
//     tool-result messages in the run's messages (returned and stored; default
//     true); false drops them and the assistant messages that made those
//     calls, as agno does.
//   - AddSessionSummary (add_session_summary): AddSessionSummary puts the
//     stored session summary in the system message even when
//     EnableSessionSummaries is off (not in agno).
//   - MemoryManager: MemoryManager keeps user memories (agno's
//     memory_manager).
//   - EnableUserMemories (enable_user_memories): EnableUserMemories extracts
//     memories from each run's input beside the model call (agno's
//     update_memory_on_run); not done when EnableAgenticMemory is on.
//   - EnableAgenticMemory (enable_agentic_memory): EnableAgenticMemory gives
//     the model the update_user_memory tool to add, change or delete memories
//     itself.
//   - AddMemoriesToContext (add_memories_to_context): AddMemoriesToContext
//     puts the user's memories in the system message; default on when a memory
//     option or a MemoryManager is set, no effect without.
//   - EnableSessionSummaries (enable_session_summaries):
//     EnableSessionSummaries summarises the session after each completed run
//     and stores the summary on it (New fails without a Store).
//   - SessionSummaryManager: SessionSummaryManager writes the summaries; made
//     from Model when EnableSessionSummaries is on without one.
//   - AddSessionSummaryToContext (add_session_summary_to_context):
//     AddSessionSummaryToContext puts the stored summary in the system
//     message; default on with EnableSessionSummaries, no effect without.
//   - Knowledge (knowledge): Knowledge is the agent's knowledge base (agno's
//     knowledge); a *knowledge.Knowledge, or any Knowledge such as a custom
//     retriever.
//   - KnowledgeFilters (knowledge_filters): KnowledgeFilters apply to every
//     search; a run's knowledge_filters are merged over them (a list is
//     replaced).
//   - SearchKnowledge (search_knowledge): SearchKnowledge adds the
//     search_knowledge_base tool (default true with Knowledge).
//   - AddSearchKnowledgeInstructions (add_search_knowledge_instructions):
//     AddSearchKnowledgeInstructions puts the knowledge base snippet in the
//     system message when the search tool is on (default true).
//   - EnableAgenticKnowledgeFilters (enable_agentic_knowledge_filters):
//     EnableAgenticKnowledgeFilters lets the model choose metadata filters
//     (the tool takes a filters argument; the system message lists the valid
//     keys, and unknown keys are dropped).
//   - AddKnowledgeToContext (add_knowledge_to_context): AddKnowledgeToContext
//     retrieves references for each user message and appends them to it
//     (classic RAG); the run output records them.
//   - OutputSchema (output_schema): OutputSchema asks for structured output:
//     the provider's JSON schema mode when it has one, else a JSON prompt.
//   - UseJSONMode (use_json_mode): UseJSONMode describes the schema in the
//     system message and asks for a JSON object instead of using the
//     provider's schema mode.
//   - ParseResponse (parse_response): ParseResponse decodes structured content
//     into the schema's value (default true); false keeps it as the model's
//     JSON text.
//   - PreHooks: PreHooks run in order before each attempt's model call (agno's
//     pre_hooks, e.g. input guardrails); they may rewrite the input.
//   - PostHooks: PostHooks run in order on a completed run's output (agno's
//     post_hooks, e.g. output guardrails); they may change it.
//   - Retries (retries): Retries is how many times a failed run is tried again
//     (default 0).
//   - DelayBetweenRetries (delay_between_retries): DelayBetweenRetries is the
//     wait before a retry (default 1s; in seconds in a file).
//   - ExponentialBackoff (exponential_backoff): ExponentialBackoff doubles the
//     delay with each retry.
//   - StreamEvents (stream_events): StreamEvents is the default for RunStream
//     (run.WithStreamEvents overrides it): also stream tool calls, model
//     requests, hooks and other intermediate events, not only content.
//   - Canceller: Canceller registers runs so Cancel reaches them; default the
//     run engine of Store (any instance sharing it), else the process's.
//   - Logger: Logger receives warnings and errors (default slog.Default());
//     made memory managers use it too.
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
