// Package team is agno's Team: a leader model that coordinates members
// (agents or nested teams) in one of four modes — coordinate, route,
// broadcast, tasks. Members' events travel verbatim in the team's stream,
// tagged with their own agent_id and run_id and parent_run_id = the team
// run; a member that pauses for a human pauses the team, and Continue
// resumes that member where it stopped.
package team

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// Mode is how the leader uses its members.
type Mode string

// Team modes (agno v2.6.13).
const (
	// ModeCoordinate: the leader delegates tasks to chosen members and
	// writes the answer from their results.
	ModeCoordinate Mode = "coordinate"
	// ModeRoute: the leader picks one member; its answer is the team's.
	ModeRoute Mode = "route"
	// ModeBroadcast: every member gets the same task; the leader
	// synthesises.
	ModeBroadcast Mode = "broadcast"
	// ModeTasks: the leader plans a task list and executes it with members
	// until done or MaxIterations.
	ModeTasks Mode = "tasks"
)

// Valid reports a known mode.
func (m Mode) Valid() bool {
	switch m {
	case ModeCoordinate, ModeRoute, ModeBroadcast, ModeTasks:
		return true
	}
	return false
}

// Config configures a Team. Fields shared with agents mean the same.
type Config struct {
	ID          string `toml:"id"`
	Name        string `toml:"name"`
	Description string `toml:"description"`
	Role        string `toml:"role"`

	Model   model.Model    `toml:"model"`
	Members []run.Executor `toml:"members"`
	Mode    Mode           `toml:"mode"` // default coordinate
	// RespondDirectly and DelegateToAllMembers are agno's legacy switches
	// for route and broadcast; an explicit Mode wins.
	RespondDirectly      bool `toml:"respond_directly"`
	DelegateToAllMembers bool `toml:"delegate_to_all_members"`
	// DetermineInputForMembers lets the leader write each member's task
	// (default true); false sends the user's input unchanged.
	DetermineInputForMembers *bool `toml:"determine_input_for_members"`
	MaxIterations            int   `toml:"max_iterations"` // tasks mode, default 10
	AddTeamHistoryToMembers  bool  `toml:"add_team_history_to_members"`
	NumTeamHistoryRuns       int   `toml:"num_team_history_runs"` // default 3
	ShareMemberInteractions  bool  `toml:"share_member_interactions"`
	GetMemberInformationTool bool  `toml:"get_member_information_tool"`
	// AddMemberToolsToContext lists member tools in the roster.
	AddMemberToolsToContext bool `toml:"add_member_tools_to_context"`
	// StreamMemberEvents forwards members' events into the team stream
	// (default true).
	StreamMemberEvents   *bool `toml:"stream_member_events"`
	StoreMemberResponses bool  `toml:"store_member_responses"`

	Instructions       []string                                                     `toml:"instructions"`
	InstructionsFunc   func(ctx context.Context, rc *run.Context) ([]string, error) `toml:"-"`
	ExpectedOutput     string                                                       `toml:"expected_output"`
	AdditionalContext  string                                                       `toml:"additional_context"`
	Markdown           bool                                                         `toml:"markdown"`
	AddNameToContext   bool                                                         `toml:"add_name_to_context"`
	AddDatetime        bool                                                         `toml:"add_datetime_to_context"`
	UseInstructionTags bool                                                         `toml:"use_instruction_tags"`

	Tools         []tool.Provider `toml:"tools"`
	ToolHooks     []tool.Hook     `toml:"-"`
	ToolCallLimit int             `toml:"tool_call_limit"`

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

	Store                    storage.Store  `toml:"-"`
	SessionState             map[string]any `toml:"session_state"`
	AddSessionStateToContext bool           `toml:"add_session_state_to_context"`
	Dependencies             map[string]any `toml:"dependencies"`
	Metadata                 map[string]any `toml:"metadata"`
	AddHistoryToContext      bool           `toml:"add_history_to_context"`
	NumHistoryRuns           int            `toml:"num_history_runs"`
	StoreEvents              bool           `toml:"store_events"`
	EventsToSkip             []string       `toml:"events_to_skip"`

	// Knowledge is the team leader's knowledge base, used as an agent's
	// (agno's team knowledge): the search_knowledge_base tool by default,
	// or references in the user message with AddKnowledgeToContext.
	Knowledge                      agent.Knowledge `toml:"knowledge"`
	KnowledgeFilters               filter.Filters  `toml:"knowledge_filters"`
	SearchKnowledge                *bool           `toml:"search_knowledge"`                  // default true with Knowledge
	AddSearchKnowledgeInstructions *bool           `toml:"add_search_knowledge_instructions"` // default true
	EnableAgenticKnowledgeFilters  bool            `toml:"enable_agentic_knowledge_filters"`
	AddKnowledgeToContext          bool            `toml:"add_knowledge_to_context"`

	OutputSchema *agent.OutputSchema `toml:"output_schema"`
	PreHooks     []agent.PreHook     `toml:"-"`
	PostHooks    []agent.PostHook    `toml:"-"`

	Retries             int           `toml:"retries"`
	DelayBetweenRetries time.Duration `toml:"delay_between_retries"`
	StreamEvents        bool          `toml:"stream_events"`

	Canceller run.Canceller `toml:"-"`
	Logger    *slog.Logger  `toml:"-"`
}

// Team is a configured team; safe for concurrent use.
type Team struct {
	cfg         Config
	mode        Mode
	spec        *engine.Spec
	leaderTools []tool.Provider
}

// New validates cfg and returns the team.
func New(cfg Config) (*Team, error) {
	if cfg.Model == nil {
		return nil, errors.New("team: Model is required (the leader's model)")
	}
	if len(cfg.Members) == 0 {
		return nil, errors.New("team: Members is empty; add at least one agent or team")
	}
	mode := cfg.Mode
	switch {
	case mode == "" && cfg.RespondDirectly:
		mode = ModeRoute
	case mode == "" && cfg.DelegateToAllMembers:
		mode = ModeBroadcast
	case mode == "":
		mode = ModeCoordinate
	case !mode.Valid():
		return nil, fmt.Errorf("team: Mode %q is not one of coordinate, route, broadcast, tasks", mode)
	}
	if cfg.ID == "" {
		cfg.ID = agent.DefaultID(cfg.Name)
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = 10
	}
	if cfg.NumTeamHistoryRuns <= 0 {
		cfg.NumTeamHistoryRuns = 3
	}
	seen := map[string]bool{}
	for i, m := range cfg.Members {
		if m == nil {
			return nil, fmt.Errorf("team %q: member %d is nil", cfg.ID, i)
		}
		if seen[m.ID()] {
			return nil, fmt.Errorf("team %q: two members have the id %q; give them distinct ids", cfg.ID, m.ID())
		}
		seen[m.ID()] = true
	}
	t := &Team{cfg: cfg, mode: mode}
	tools := append([]tool.Provider(nil), cfg.Tools...)
	tools = append(tools, t.modeTools()...)
	t.leaderTools = tools
	// The leader is an agent with the team's options (those of the same
	// name and type) and the mode's tools.
	spec := &engine.Spec{AgentConfig: engine.OptionsOf(cfg), Team: true, StoreMemberResponses: cfg.StoreMemberResponses,
		TeamContext: t.teamContext, ContinueMember: t.continueMembers}
	spec.Tools = tools
	if mode == ModeTasks {
		spec.Iterations = t.iterations()
	}
	if err := spec.Prepare(); err != nil {
		return nil, fmt.Errorf("team %q: %w", cfg.ID, err)
	}
	t.spec = spec
	return t, nil
}

// ID returns the team id.
func (t *Team) ID() string { return t.cfg.ID }

// Name returns the team name.
func (t *Team) Name() string { return t.cfg.Name }

// Role returns the team's role when it is a member of another team.
func (t *Team) Role() string { return t.cfg.Role }

// Description returns the description.
func (t *Team) Description() string { return t.cfg.Description }

// Mode returns the mode in effect.
func (t *Team) Mode() Mode { return t.mode }

// Members returns the members.
func (t *Team) Members() []run.Executor { return t.cfg.Members }

// Config returns the configuration (id filled in).
func (t *Team) Config() Config { return t.cfg }

// LeaderTools are the tools the leader's model is given: the team's own
// and those of its mode (delegate_task_to_member, …), as agno lists them.
func (t *Team) LeaderTools() []tool.Provider { return t.leaderTools }

// ToolNames lists the leader's tools.
func (t *Team) ToolNames() []string { return t.spec.ToolNames() }

func (t *Team) streamMembers() bool {
	return t.cfg.StreamMemberEvents == nil || *t.cfg.StreamMemberEvents
}

func (t *Team) request(input string, opts []run.Option) *run.Request {
	req := &run.Request{Input: input, StreamEvents: t.cfg.StreamEvents}
	for _, o := range opts {
		o(req)
	}
	return req
}

// Run runs the team and returns its output (status ERROR on failure).
func (t *Team) Run(ctx context.Context, input string, opts ...run.Option) (*run.Output, error) {
	req := t.request(input, opts)
	req.Stream, req.StreamEvents = false, false
	return t.execute(ctx, req, nil)
}

// RunStream runs the team and yields team and member events. Breaking out
// cancels the run and its members.
func (t *Team) RunStream(ctx context.Context, input string, opts ...run.Option) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req := t.request(input, opts)
		req.Stream = true
		if _, err := t.execute(ctx, req, func(e run.Event) bool { return yield(e, nil) }); err != nil {
			yield(nil, err)
		}
	}
}

// Execute implements run.Executor.
func (t *Team) Execute(ctx context.Context, req *run.Request, emit run.Emitter) (*run.Output, error) {
	return t.execute(ctx, req, emit)
}

// Continue resumes a paused team run: member requirements go to the member
// that paused, which continues where it stopped.
func (t *Team) Continue(ctx context.Context, req run.ContinueRequest) (*run.Output, error) {
	req.Stream, req.StreamEvents = false, false
	return t.resume(ctx, &req, nil)
}

// ContinueStream is Continue with events.
func (t *Team) ContinueStream(ctx context.Context, req run.ContinueRequest) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req.Stream = true
		if _, err := t.resume(ctx, &req, func(e run.Event) bool { return yield(e, nil) }); err != nil {
			yield(nil, err)
		}
	}
}

// ExecuteContinue implements run.Executor.
func (t *Team) ExecuteContinue(ctx context.Context, req *run.ContinueRequest, emit run.Emitter) (*run.Output, error) {
	return t.resume(ctx, req, emit)
}

// Cancel cancels a team run; its running members are cancelled with it.
func (t *Team) Cancel(ctx context.Context, runID string) (bool, error) {
	return t.spec.Cancel(ctx, runID)
}

// Close releases connection-backed tools of the team and its members.
func (t *Team) Close() error {
	var errs []error
	for _, p := range t.cfg.Tools {
		if c, ok := p.(tool.Connector); ok {
			errs = append(errs, c.Close())
		}
	}
	for _, m := range t.cfg.Members {
		if c, ok := m.(interface{ Close() error }); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// findMember searches members and nested teams, so the leader can address
// a grandchild directly (agno's _find_member_by_id).
func (t *Team) findMember(id string) run.Executor {
	for _, m := range t.cfg.Members {
		if m.ID() == id {
			return m
		}
	}
	for _, m := range t.cfg.Members {
		if sub, ok := m.(*Team); ok {
			if found := sub.findMember(id); found != nil {
				return found
			}
		}
	}
	return nil
}
