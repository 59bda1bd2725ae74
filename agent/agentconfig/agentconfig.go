// Package agentconfig defines agent.Config, the options of an agent, and
// the types its fields use. agent.Config, agent.Knowledge, agent.PreHook,
// agent.OutputSchema and the rest are these types; they live here, in a
// package of their own, so that the run engine can use them and their
// documentation is public (go doc, pkg.go.dev).
//
// Each field's toml tag is its key in an agent file (agno's name); "-"
// marks what only Go code can give: functions, stores, loggers, managers.
package agentconfig

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"time"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// Config configures an agent (agent.Config): its model, prompt, tools,
// session, memory, knowledge, output and run options. Field names follow
// agno's Agent; defaults are agno's unless noted. Each toml tag is the key
// of the option in an agent file; "-" marks what only Go code can give
// (functions, stores, loggers, managers).
type Config struct {
	// ID identifies the agent in stored runs, sessions, history and
	// memories. Default: Name lower-cased with spaces and underscores
	// turned into "-"; without a Name, a random UUID.
	ID string `toml:"id"`
	// Name is shown in run outputs, events and the session's agent data;
	// AddNameToContext also tells the model.
	Name string `toml:"name"`
	// Description opens the system message; teams list it in their roster
	// of members.
	Description string `toml:"description"`
	// Role is the agent's role in a team: teams list it in their roster,
	// and the agent's own system message carries it in <your_role>.
	Role string `toml:"role"`

	// Model answers the run. Required: agent.New fails without it.
	Model model.Model `toml:"model"`
	// FallbackModels are tried, in order, when Model fails with a server,
	// network or rate-limit error or a context overflow (agno's
	// fallback_config on_error); not on other 4xx errors.
	FallbackModels []model.Model `toml:"fallback_models"`
	// Fallbacks gives per-failure fallback lists (agno's fallback_config);
	// when set, FallbackModels is ignored.
	Fallbacks *Fallbacks `toml:"-"`

	// Instructions are listed in the system message: one as a paragraph,
	// several as "- " bullets (see UseInstructionTags).
	Instructions []string `toml:"instructions"`
	// InstructionsFunc is called on each run; its instructions are
	// appended to Instructions (agno's callable instructions).
	InstructionsFunc func(ctx context.Context, rc *run.Context) ([]string, error) `toml:"-"`
	// SystemMessage, when set, is the whole system message: nothing is
	// built around it (only its {var}s are resolved; see ResolveInContext).
	SystemMessage string `toml:"system_message"`
	// SystemMessageFunc is called on each run and replaces SystemMessage.
	SystemMessageFunc func(ctx context.Context, rc *run.Context) (string, error) `toml:"-"`
	// SystemMessageRole is the role of the system message (default
	// "system"). Unless it is user, assistant or tool, history messages
	// of that role are left out.
	SystemMessageRole model.Role `toml:"system_message_role"`
	// BuildContext builds the default system message from the options
	// below (default true); false sends none unless SystemMessage or
	// SystemMessageFunc is set.
	BuildContext *bool `toml:"build_context"`
	// ResolveInContext replaces {var} in the system message with the
	// value from session state, dependencies, metadata or user_id, in that
	// order; unknown names stay as written (default true). Unlike agno's
	// agent, the user message is never resolved: a caller's text must not
	// pull dependencies into the conversation.
	ResolveInContext *bool `toml:"resolve_in_context"`
	// UseInstructionTags wraps the instructions in <instructions> tags.
	UseInstructionTags bool `toml:"use_instruction_tags"`
	// Markdown asks the model to format its answers in markdown; ignored
	// when the run has an output schema.
	Markdown bool `toml:"markdown"`
	// AddNameToContext tells the model its Name ("Your name is: ...").
	AddNameToContext bool `toml:"add_name_to_context"`
	// AddDatetime tells the model the current date and time, so it can
	// reason about "today" or "tomorrow".
	AddDatetime bool `toml:"add_datetime_to_context"`
	// Timezone is the zone of the AddDatetime time (agno's
	// timezone_identifier; an IANA name in a file). Default: local time.
	Timezone *time.Location `toml:"timezone_identifier"`
	// ExpectedOutput describes the desired answer, in <expected_output>
	// tags of the system message.
	ExpectedOutput string `toml:"expected_output"`
	// AdditionalContext is added near the end of the system message, as
	// written.
	AdditionalContext string `toml:"additional_context"`
	// AdditionalInput are messages sent after the system message and
	// before history and the input, e.g. few-shot examples; the run output
	// records them.
	AdditionalInput []model.Message `toml:"-"`

	// Tools are the functions the model may call: *tool.Function,
	// *tool.Toolkit, or a connection-backed provider (MCP) connected on
	// first use. Of two tools with one name the first wins.
	Tools []tool.Provider `toml:"tools"`
	// ToolHooks wrap every tool call, the first outermost (agno's
	// tool_hooks middleware).
	ToolHooks []tool.Hook `toml:"-"`
	// ToolCallLimit caps the tool calls of each try of a run (0: no
	// limit); a retry has the whole limit again. Calls past it are not
	// run; the model is told the limit was reached.
	ToolCallLimit int `toml:"tool_call_limit"`
	// ToolChoice controls tool use: none, auto, required, or one named
	// function. Nil leaves it to the provider; it is not sent without tools.
	ToolChoice *model.ToolChoice `toml:"tool_choice"`

	// Reasoning makes the run reason before it answers: agno's
	// chain-of-thought loop with a reasoning agent built on
	// ReasoningModel (default: Model), or, when that model reasons
	// natively (model.Info.NativeReasoning), its own thinking.
	Reasoning bool `toml:"reasoning"`
	// ReasoningModel is the model that reasons; setting it turns
	// reasoning on, as in agno.
	ReasoningModel model.Model `toml:"reasoning_model"`
	// ReasoningAgent replaces the reasoning agent agno builds: in the
	// chain-of-thought loop its content must be ReasoningSteps; for a
	// native reasoning model its messages carry the thinking.
	ReasoningAgent run.Executor `toml:"reasoning_agent"`
	// ReasoningMinSteps and ReasoningMaxSteps bound the chain-of-thought
	// loop (agno: 1 and 10); the loop asks the reasoning agent at most
	// max-1 times, as agno does.
	ReasoningMinSteps int `toml:"reasoning_min_steps"`
	ReasoningMaxSteps int `toml:"reasoning_max_steps"`

	// Store keeps sessions, runs and events (agno's db). Without it runs
	// are not persisted and a paused run can only be continued from its
	// returned output.
	Store storage.Store `toml:"-"`
	// SessionState is the initial state of a new session; an existing
	// session keeps its stored state, with a run's state merged over it.
	SessionState map[string]any `toml:"session_state"`
	// OverwriteDBSessionState starts each run from the run's own
	// session_state instead of the stored one; the keys it sets then
	// replace the stored ones.
	OverwriteDBSessionState bool `toml:"overwrite_db_session_state"`
	// AddSessionStateToContext puts the session state in the system
	// message, in <session_state> tags.
	AddSessionStateToContext bool `toml:"add_session_state_to_context"`
	// Dependencies are given to tools and to instruction and system-message
	// functions (run.Context.Dependencies) and resolve {var}s; a run's
	// dependencies override them key by key.
	Dependencies map[string]any `toml:"dependencies"`
	// Metadata is kept on the run output and a new session and resolves
	// {var}s; it wins over a run's metadata key by key.
	Metadata map[string]any `toml:"metadata"`
	// AddHistoryToContext sends messages of the session's earlier
	// completed runs before the input (needs Store); run.WithHistory
	// overrides it per run.
	AddHistoryToContext bool `toml:"add_history_to_context"`
	// NumHistoryRuns is how many earlier runs history takes (default 3
	// when neither limit is set); it wins over NumHistoryMessages.
	NumHistoryRuns int `toml:"num_history_runs"`
	// NumHistoryMessages limits history to the latest messages instead of
	// runs (leading tool results are dropped).
	NumHistoryMessages int `toml:"num_history_messages"`
	// StoreEvents keeps the run's events on its output and in Store.
	StoreEvents bool `toml:"store_events"`
	// EventsToSkip names event kinds StoreEvents does not keep (default
	// ["RunContent"], the content deltas); a name also matches its Team
	// kind.
	EventsToSkip []string `toml:"events_to_skip"`
	// StoreHistoryMessages keeps the history a run was sent in its
	// messages (returned and stored); by default only its own.
	StoreHistoryMessages bool `toml:"store_history_messages"`
	// StoreToolMessages keeps tool-result messages in the run's messages
	// (returned and stored; default true); false drops them and the
	// assistant messages that made those calls, as agno does.
	StoreToolMessages *bool `toml:"store_tool_messages"`
	// AddSessionSummary puts the stored session summary in the system
	// message even when EnableSessionSummaries is off (not in agno).
	AddSessionSummary bool `toml:"add_session_summary"`

	// MemoryManager keeps user memories (agno's memory_manager). When a
	// memory option is on without one, New makes one from Model and Store
	// (and fails without a Store).
	MemoryManager *memory.Manager `toml:"-"`
	// EnableUserMemories extracts memories from each run's input beside
	// the model call (agno's update_memory_on_run); not done when
	// EnableAgenticMemory is on.
	EnableUserMemories bool `toml:"enable_user_memories"`
	// EnableAgenticMemory gives the model the update_user_memory tool to
	// add, change or delete memories itself.
	EnableAgenticMemory bool `toml:"enable_agentic_memory"`
	// AddMemoriesToContext puts the user's memories in the system message;
	// default on when a memory option or a MemoryManager is set, no effect
	// without.
	AddMemoriesToContext *bool `toml:"add_memories_to_context"`
	// EnableSessionSummaries summarises the session after each completed
	// run and stores the summary on it (New fails without a Store).
	EnableSessionSummaries bool `toml:"enable_session_summaries"`
	// SessionSummaryManager writes the summaries; made from Model when
	// EnableSessionSummaries is on without one. Giving one turns them on.
	SessionSummaryManager *memory.SummaryManager `toml:"-"`
	// AddSessionSummaryToContext puts the stored summary in the system
	// message; default on with EnableSessionSummaries, no effect without.
	AddSessionSummaryToContext *bool `toml:"add_session_summary_to_context"`

	// Knowledge is the agent's knowledge base (agno's knowledge); a
	// *knowledge.Knowledge, or any Knowledge such as a custom retriever.
	// By default the agent searches it with the search_knowledge_base tool
	// (agentic RAG) and the system message says so.
	Knowledge Knowledge `toml:"knowledge"`
	// KnowledgeFilters apply to every search; a run's knowledge_filters
	// are merged over them (a list is replaced). They need Knowledge.
	KnowledgeFilters filter.Filters `toml:"knowledge_filters"`
	// SearchKnowledge adds the search_knowledge_base tool (default true
	// with Knowledge).
	SearchKnowledge *bool `toml:"search_knowledge"`
	// AddSearchKnowledgeInstructions puts the knowledge base snippet in
	// the system message when the search tool is on (default true).
	AddSearchKnowledgeInstructions *bool `toml:"add_search_knowledge_instructions"`
	// EnableAgenticKnowledgeFilters lets the model choose metadata filters
	// (the tool takes a filters argument; the system message lists the
	// valid keys, and unknown keys are dropped).
	EnableAgenticKnowledgeFilters bool `toml:"enable_agentic_knowledge_filters"`
	// AddKnowledgeToContext retrieves references for each user message and
	// appends them to it (classic RAG); the run output records them.
	AddKnowledgeToContext bool `toml:"add_knowledge_to_context"`

	// OutputSchema asks for structured output: the provider's JSON schema
	// mode when it has one, else a JSON prompt. run.WithOutputSchema
	// overrides it per run.
	OutputSchema *OutputSchema `toml:"output_schema"`
	// UseJSONMode describes the schema in the system message and asks for
	// a JSON object instead of using the provider's schema mode.
	UseJSONMode bool `toml:"use_json_mode"`
	// ParseResponse decodes structured content into the schema's value
	// (default true); false keeps it as the model's JSON text.
	ParseResponse *bool `toml:"parse_response"`

	// PreHooks run in order before each attempt's model call (agno's
	// pre_hooks, e.g. input guardrails); they may rewrite the input.
	PreHooks []PreHook `toml:"-"`
	// PostHooks run in order on a completed run's output (agno's
	// post_hooks, e.g. output guardrails); they may change it.
	PostHooks []PostHook `toml:"-"`

	// Retries is how many times a failed run is tried again (default 0).
	// Guardrail verdicts, panics and cancellations are not retried.
	Retries int `toml:"retries"`
	// DelayBetweenRetries is the wait before a retry (default 1s; in
	// seconds in a file).
	DelayBetweenRetries time.Duration `toml:"delay_between_retries"`
	// ExponentialBackoff doubles the delay with each retry.
	ExponentialBackoff bool `toml:"exponential_backoff"`

	// StreamEvents is the default for RunStream (run.WithStreamEvents
	// overrides it): also stream tool calls, model requests, hooks and
	// other intermediate events, not only content.
	StreamEvents bool `toml:"stream_events"`

	// Canceller registers runs so Cancel reaches them; default the run
	// engine of Store (any instance sharing it), else the process's.
	Canceller run.Canceller `toml:"-"`
	// Logger receives warnings and errors (default slog.Default()); made
	// memory managers use it too.
	Logger *slog.Logger `toml:"-"`
}

// Knowledge is what an agent or a team leader searches: agno's
// KnowledgeProtocol as agents use it. *knowledge.Knowledge implements
// it; a custom retriever (agno's knowledge_retriever) can too.
type Knowledge interface {
	// Retrieve returns the documents most relevant to query; maxResults
	// 0 is the knowledge base's default.
	Retrieve(ctx context.Context, query string, maxResults int, filters filter.Filters) ([]*document.Document, error)
	// BuildContext is the system-prompt snippet (agno's build_context).
	BuildContext(ctx context.Context, enableAgenticFilters bool) (string, error)
	// ValidateFilters keeps the filters whose keys the knowledge base
	// knows and returns the keys it dropped.
	ValidateFilters(ctx context.Context, f filter.Filters) (filter.Filters, []string, error)
}

// Fallbacks are models tried when the primary fails (agno's
// FallbackConfig). A rate limit uses OnRateLimit, a context overflow
// OnContextOverflow, each else OnError; other 4xx never fall back.
type Fallbacks struct {
	// OnError are tried on server, network and other non-client errors,
	// and on rate limits and context overflows without their own list.
	OnError []model.Model
	// OnRateLimit are tried when the provider rate-limits (429, 529).
	OnRateLimit []model.Model
	// OnContextOverflow are tried when the input exceeds the model's
	// context window.
	OnContextOverflow []model.Model
}

// PreHook runs before the model; it may change the input. A *CheckError
// ends the run with status ERROR (no retry); other errors are logged.
type PreHook func(ctx context.Context, in *HookInput) error

// PostHook runs after a successful run; a *CheckError fails the run.
type PostHook func(ctx context.Context, out *run.Output) error

// HookInput is what a pre-hook sees and may change.
type HookInput struct {
	// Input is the run's input text; what the hook leaves here (when it
	// returns nil) is what later hooks and the model get.
	Input string
	// RunContext is the run's context: ids, session state, dependencies
	// and metadata.
	RunContext *run.Context
}

// CheckError is a guardrail verdict (agno's InputCheckError /
// OutputCheckError).
type CheckError struct {
	// Message is the error text: the run's content (unless it has some)
	// and the RunError event's.
	Message string
	// Trigger names the check that fired (agno's check_trigger).
	Trigger string
	// Output marks an output check (a post-hook's), for TypeName and
	// ErrorID.
	Output bool
	// AdditionalData rides along on the RunError event.
	AdditionalData map[string]any
}

func (e *CheckError) Error() string { return e.Message }

// TypeName is agno's exception type: input_check_error or
// output_check_error.
func (e *CheckError) TypeName() string {
	if e.Output {
		return "output_check_error"
	}
	return "input_check_error"
}

// ErrorID is agno's error_id: the check_trigger, which defaults to
// input_not_allowed or output_not_allowed.
func (e *CheckError) ErrorID() string {
	switch {
	case e.Trigger != "":
		return e.Trigger
	case e.Output:
		return "output_not_allowed"
	}
	return "input_not_allowed"
}

// OutputSchema asks the model for structured output. Type, when set, is
// the Go type content is decoded into; else content becomes a map.
type OutputSchema struct {
	// Name names the schema for the provider, and is the content_type
	// of content decoded into Type.
	Name string
	// Schema is the JSON schema the content must match.
	Schema json.RawMessage
	// Strict asks the provider to enforce Schema exactly (strict mode).
	Strict bool
	// Type is the Go type content is decoded into; nil decodes into a
	// map[string]any (content_type "dict").
	Type reflect.Type
}
