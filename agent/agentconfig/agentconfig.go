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

// Config configures an agent (agent.Config). Field names follow agno's
// Agent; defaults are agno's unless noted. Each toml tag is the key of the option in an agent
// file; "-" marks what only Go code can give (functions, stores,
// loggers, managers).
type Config struct {
	ID          string `toml:"id"` // default: Name lower-cased, spaces/underscores → "-"; else a UUID
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// Role is used when the agent is a team member.
	Role string `toml:"role"`

	Model model.Model `toml:"model"`
	// FallbackModels are tried, in order, when Model fails with a
	// non-client error; Fallbacks gives per-failure lists instead.
	FallbackModels []model.Model `toml:"fallback_models"`
	Fallbacks      *Fallbacks    `toml:"-"`

	Instructions       []string                                                     `toml:"instructions"`
	InstructionsFunc   func(ctx context.Context, rc *run.Context) ([]string, error) `toml:"-"`
	SystemMessage      string                                                       `toml:"system_message"`
	SystemMessageFunc  func(ctx context.Context, rc *run.Context) (string, error)   `toml:"-"`
	SystemMessageRole  model.Role                                                   `toml:"system_message_role"`
	BuildContext       *bool                                                        `toml:"build_context"`      // default true
	ResolveInContext   *bool                                                        `toml:"resolve_in_context"` // default true: {var} from session state, dependencies, metadata
	UseInstructionTags bool                                                         `toml:"use_instruction_tags"`
	Markdown           bool                                                         `toml:"markdown"`
	AddNameToContext   bool                                                         `toml:"add_name_to_context"`
	AddDatetime        bool                                                         `toml:"add_datetime_to_context"`
	Timezone           *time.Location                                               `toml:"timezone_identifier"`
	ExpectedOutput     string                                                       `toml:"expected_output"`
	AdditionalContext  string                                                       `toml:"additional_context"`
	AdditionalInput    []model.Message                                              `toml:"-"`

	Tools         []tool.Provider   `toml:"tools"`
	ToolHooks     []tool.Hook       `toml:"-"`
	ToolCallLimit int               `toml:"tool_call_limit"`
	ToolChoice    *model.ToolChoice `toml:"tool_choice"`

	// Store keeps sessions, runs and events (agno's db). Without it runs
	// are not persisted and a paused run can only be continued from its
	// returned output.
	Store                    storage.Store  `toml:"-"`
	SessionState             map[string]any `toml:"session_state"`
	OverwriteDBSessionState  bool           `toml:"overwrite_db_session_state"`
	AddSessionStateToContext bool           `toml:"add_session_state_to_context"`
	Dependencies             map[string]any `toml:"dependencies"`
	Metadata                 map[string]any `toml:"metadata"`
	AddHistoryToContext      bool           `toml:"add_history_to_context"`
	NumHistoryRuns           int            `toml:"num_history_runs"` // default 3 when neither limit is set
	NumHistoryMessages       int            `toml:"num_history_messages"`
	StoreEvents              bool           `toml:"store_events"`
	EventsToSkip             []string       `toml:"events_to_skip"` // default ["RunContent"]
	StoreHistoryMessages     bool           `toml:"store_history_messages"`
	StoreToolMessages        *bool          `toml:"store_tool_messages"` // default true
	AddSessionSummary        bool           `toml:"add_session_summary"`

	// User memories (agno's memory_manager, enable_user_memories /
	// update_memory_on_run, enable_agentic_memory) and session summaries.
	// Without a MemoryManager one is made from Model and Store.
	MemoryManager              *memory.Manager        `toml:"-"`
	EnableUserMemories         bool                   `toml:"enable_user_memories"`
	EnableAgenticMemory        bool                   `toml:"enable_agentic_memory"`
	AddMemoriesToContext       *bool                  `toml:"add_memories_to_context"` // default: on when a memory feature is on
	EnableSessionSummaries     bool                   `toml:"enable_session_summaries"`
	SessionSummaryManager      *memory.SummaryManager `toml:"-"`
	AddSessionSummaryToContext *bool                  `toml:"add_session_summary_to_context"` // default: on with session summaries

	// Knowledge is the agent's knowledge base (agno's knowledge); a
	// *knowledge.Knowledge, or any Knowledge such as a custom retriever.
	// By default the agent searches it with the search_knowledge_base tool
	// (agentic RAG) and the system message says so.
	Knowledge Knowledge `toml:"knowledge"`
	// KnowledgeFilters apply to every search; a run's knowledge_filters
	// are merged over them.
	KnowledgeFilters filter.Filters `toml:"knowledge_filters"`
	// SearchKnowledge adds the search_knowledge_base tool (default true
	// with Knowledge).
	SearchKnowledge *bool `toml:"search_knowledge"`
	// AddSearchKnowledgeInstructions puts the knowledge base snippet in
	// the system message (default true).
	AddSearchKnowledgeInstructions *bool `toml:"add_search_knowledge_instructions"`
	// EnableAgenticKnowledgeFilters lets the model choose metadata filters
	// (the tool takes a filters argument; the system message lists the
	// valid keys).
	EnableAgenticKnowledgeFilters bool `toml:"enable_agentic_knowledge_filters"`
	// AddKnowledgeToContext retrieves references for each user message and
	// appends them to it (classic RAG).
	AddKnowledgeToContext bool `toml:"add_knowledge_to_context"`

	OutputSchema  *OutputSchema `toml:"output_schema"`
	UseJSONMode   bool          `toml:"use_json_mode"`
	ParseResponse *bool         `toml:"parse_response"` // default true

	PreHooks  []PreHook  `toml:"-"`
	PostHooks []PostHook `toml:"-"`

	Retries             int           `toml:"retries"`
	DelayBetweenRetries time.Duration `toml:"delay_between_retries"` // default 1s
	ExponentialBackoff  bool          `toml:"exponential_backoff"`

	// StreamEvents is the default for RunStream (run.WithStreamEvents
	// overrides it).
	StreamEvents bool `toml:"stream_events"`

	Canceller run.Canceller `toml:"-"`
	Logger    *slog.Logger  `toml:"-"`
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
// FallbackConfig). A rate limit uses OnRateLimit (else OnError); a
// context overflow only OnContextOverflow; other 4xx never fall back.
type Fallbacks struct {
	OnError           []model.Model
	OnRateLimit       []model.Model
	OnContextOverflow []model.Model
}

// PreHook runs before the model; it may change the input. A *CheckError
// ends the run with status ERROR (no retry); other errors are logged.
type PreHook func(ctx context.Context, in *HookInput) error

// PostHook runs after a successful run; a *CheckError fails the run.
type PostHook func(ctx context.Context, out *run.Output) error

// HookInput is what a pre-hook sees and may change.
type HookInput struct {
	Input      string
	RunContext *run.Context
}

// CheckError is a guardrail verdict (agno's InputCheckError /
// OutputCheckError).
type CheckError struct {
	Message string
	// Trigger names the check that fired (agno's check_trigger).
	Trigger string
	// Output marks an output check.
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
	Name   string
	Schema json.RawMessage
	Strict bool
	Type   reflect.Type
}
