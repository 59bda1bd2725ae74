package engine

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// AgentConfig configures an agent (agent.Config). Field names follow agno's Agent; defaults are
// agno's unless noted. Each toml tag is the key of the option in an agent
// file; "-" marks what only Go code can give (functions, stores,
// loggers, managers).
type AgentConfig struct {
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

// OptionsOf projects a struct of options (a team.Config) onto an
// AgentConfig by declaration: each field whose name and type match an
// AgentConfig field carries over; the others are the caller's own. A team
// leader runs as an agent with the team's options this way, with no
// hand-kept list of the fields they share.
func OptionsOf(src any) AgentConfig {
	v := reflect.ValueOf(src)
	var out AgentConfig
	dst := reflect.ValueOf(&out).Elem()
	for _, p := range sharedFields(v.Type()) {
		dst.Field(p[1]).Set(v.Field(p[0]))
	}
	return out
}

// SharedFields lists the names of t's fields OptionsOf carries over.
func SharedFields(t reflect.Type) []string {
	var names []string
	for _, p := range sharedFields(t) {
		names = append(names, t.Field(p[0]).Name)
	}
	return names
}

var shared sync.Map // reflect.Type → [][2]int (source index, AgentConfig index)

func sharedFields(t reflect.Type) [][2]int {
	if p, ok := shared.Load(t); ok {
		return p.([][2]int)
	}
	at := reflect.TypeFor[AgentConfig]()
	var pairs [][2]int
	for i := range t.NumField() {
		f := t.Field(i)
		if g, ok := at.FieldByName(f.Name); ok && f.IsExported() && g.Type == f.Type && len(g.Index) == 1 {
			pairs = append(pairs, [2]int{i, g.Index[0]})
		}
	}
	shared.Store(t, pairs)
	return pairs
}
