// Package engine runs agents and team leaders: the model ↔ tool loop,
// human-in-the-loop pauses and continues, hooks, retries, history, session
// state and persistence. package agent and package team are its two
// front ends; everything per run lives in a runState, never in the Spec,
// so one Spec serves any number of concurrent runs.
package engine

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"runtime"
	"strings"

	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/tool"
)

// Spec is the immutable description of an agent or a team leader: the
// validated options themselves (agent.New hands over its Config; team.New
// projects a team's options onto it by name), the team leader's hooks,
// and what Prepare derives from them. Runs never write to it.
type Spec struct {
	AgentConfig

	// Team switches events to their Team* names and runs to team runs.
	Team bool
	// StoreMemberResponses keeps member outputs in the stored team run.
	StoreMemberResponses bool
	// TeamContext opens a team leader's system message (roster and
	// how-to-respond); team prompts follow agno's team order.
	TeamContext func(rc *run.Context) string
	// Iterations wraps the model loop in an outer loop (tasks mode).
	Iterations *Iterations
	// ContinueMember resolves requirements that belong to team members:
	// it continues each member's run where it paused.
	ContinueMember func(ctx context.Context, mc *MemberContinuation) (*MemberResult, error)

	// Derived at Prepare, with agno's defaults; the options stay as given.
	logger          *slog.Logger
	systemRole      model.Role
	historyRuns     int
	historyMessages int
	// summaryInContext puts the stored session summary in the system
	// message; memoriesInContext the user's memories.
	summaryInContext, memoriesInContext bool

	// Resolved at Prepare.
	static     []*tool.Function
	staticDefs []model.ToolDefinition
	dynamic    []tool.Provider
	toolInstr  []string
	// reasoner is set when the spec reasons before answering.
	reasoner *reasoner
	// schemaPrompt is OutputSchema's JSON prompt, built once.
	schemaPrompt string
}

// fallbacks are the per-failure lists, or FallbackModels for every
// failure.
func (s *Spec) fallbacks() Fallbacks {
	if s.Fallbacks != nil {
		return *s.Fallbacks
	}
	return Fallbacks{OnError: s.FallbackModels}
}

// hasKnowledgeTool reports whether runs get the search_knowledge_base
// tool: with a knowledge base, unless SearchKnowledge is false.
func (s *Spec) hasKnowledgeTool() bool { return s.Knowledge != nil && !off(s.SearchKnowledge) }

// off reports an option explicitly set to false (a *bool defaulting to
// true).
func off(b *bool) bool { return b != nil && !*b }

// canceller is where runs register their cancel: the spec's own, else
// the run engine of its store (resolved per run: AgentOS attaches its
// engine after the spec is built), which a cancel reaches from any
// instance.
func (s *Spec) canceller() run.Canceller {
	if s.Canceller != nil {
		return s.Canceller
	}
	return runs.For(s.Store)
}

// Cancel cancels a run of this spec wherever it executes.
func (s *Spec) Cancel(ctx context.Context, runID string) (bool, error) {
	return s.canceller().Cancel(ctx, runID)
}

// Iterations is an outer loop around the model loop: each iteration runs
// the model loop to its end; Before may add a user message and events,
// After reports events and whether the goal is reached.
type Iterations struct {
	Max    int
	Before func(rc *run.Context, iteration int) (message string, events []run.Event)
	After  func(rc *run.Context, iteration int) (events []run.Event, done bool)
}

// MemberContinuation is handed to Spec.ContinueMember.
type MemberContinuation struct {
	RunContext   *run.Context
	Requirements []*run.Requirement
	// MemberRun finds a member's paused run by id (in this run's member
	// responses, else in storage).
	MemberRun func(runID string) (*run.Output, error)
	Emit      run.Emitter
}

// MemberResult is what continuing members produced.
type MemberResult struct {
	// Content replaces the delegate tool's "requires human input" result.
	Content string
	// Pending are requirements of members that paused again.
	Pending []*run.Requirement
	// Runs are the members' new outputs.
	Runs []*run.Output
}

// Prepare validates the spec and resolves static tools, so runs only do
// per-run work. It must be called once before Execute.
func (s *Spec) Prepare() error {
	s.systemRole = s.SystemMessageRole
	if s.systemRole == "" {
		s.systemRole = model.RoleSystem
	}
	s.logger = s.Logger
	if s.logger == nil {
		s.logger = slog.Default()
	}
	s.historyRuns, s.historyMessages = s.NumHistoryRuns, s.NumHistoryMessages
	switch {
	case s.historyRuns == 0 && s.historyMessages == 0:
		s.historyRuns = 3
	case s.historyRuns > 0 && s.historyMessages > 0:
		s.historyMessages = 0 // agno: the two are exclusive and runs wins
	}
	if err := s.setupMemory(); err != nil {
		return err
	}
	// Tools stays as given; the memory and knowledge tools go after it.
	tools := s.Tools
	if s.EnableAgenticMemory && s.MemoryManager != nil {
		tools = append(append([]tool.Provider(nil), tools...), s.MemoryManager.Tool())
	}
	if err := s.prepareKnowledge(&tools); err != nil {
		return err
	}
	// A lone *tool.Function (the common case) lends the agent its shared,
	// precomputed set and definition instead of a copy per agent.
	var lent []model.ToolDefinition
	for _, p := range tools {
		if _, ok := p.(tool.Connector); ok {
			s.dynamic = append(s.dynamic, p)
			s.addToolkitInstructions(p) // fixed at construction, not by the connection
			continue
		}
		if f, ok := p.(*tool.Function); ok {
			fns, defs, err := f.Prepared()
			if err != nil {
				return err
			}
			switch {
			case s.static == nil:
				s.static, lent = fns, defs // len == cap: a later append copies
			case s.hasStatic(f.Name):
				continue // first wins, as in agno
			default:
				s.static = append(s.static, f)
			}
			s.addInstructions(f)
			continue
		}
		fns, err := p.Functions(context.Background())
		if err != nil {
			return err
		}
		for _, f := range fns {
			if err := f.Validate(); err != nil {
				return err
			}
			if s.hasStatic(f.Name) {
				continue // first wins, as in agno
			}
			s.static = append(s.static, f)
			s.addInstructions(f)
		}
		s.addToolkitInstructions(p)
	}
	if s.OutputSchema != nil {
		s.schemaPrompt = jsonOutputPrompt(s.OutputSchema)
	}
	if err := s.prepareReasoning(); err != nil {
		return err
	}
	if len(s.static) == 1 && lent != nil {
		s.staticDefs = lent
	} else {
		s.staticDefs = definitions(s.static)
	}
	return nil
}

// setupMemory makes the memory and summary managers from the model and
// store when the options turn memories or summaries on without one; they
// are kept in the options, as agno's agent keeps them.
func (s *Spec) setupMemory() error {
	if s.EnableUserMemories || s.EnableAgenticMemory || s.MemoryManager != nil {
		if s.MemoryManager == nil {
			if s.Store == nil {
				return errors.New("user memories need a Store (set Config.Store) to keep memories in")
			}
			m, err := memory.NewManager(memory.ManagerConfig{Model: s.Model, Store: s.Store, Logger: s.Logger})
			if err != nil {
				return err
			}
			s.MemoryManager = m
		}
		s.memoriesInContext = !off(s.AddMemoriesToContext)
	}
	if s.EnableSessionSummaries || s.SessionSummaryManager != nil {
		if s.Store == nil {
			return errors.New("session summaries need a Store (set Config.Store) to keep the summary on the session")
		}
		if s.SessionSummaryManager == nil {
			sm, err := memory.NewSummaryManager(memory.SummaryConfig{Model: s.Model, Logger: s.Logger})
			if err != nil {
				return err
			}
			s.SessionSummaryManager = sm
		}
	}
	s.summaryInContext = s.AddSessionSummary || (s.EnableSessionSummaries && !off(s.AddSessionSummaryToContext))
	return nil
}

// defaultSkip is agno's events_to_skip default: content deltas are not
// stored.
var defaultSkip = []string{"RunContent"}

// skips reports whether an event kind is kept out of storage.
func (s *Spec) skips(kind string) bool {
	skip := s.EventsToSkip
	if skip == nil {
		skip = defaultSkip
	}
	for _, k := range skip {
		if k == kind || (len(kind) > 4 && kind[:4] == "Team" && k == kind[4:]) {
			return true
		}
	}
	return false
}

// addToolkitInstructions keeps a toolkit's instructions (agno's
// add_instructions) for the system message.
func (s *Spec) addToolkitInstructions(p tool.Provider) {
	if tk, ok := p.(interface{ Instructions() string }); ok {
		if in := tk.Instructions(); in != "" {
			s.toolInstr = append(s.toolInstr, in)
		}
	}
}

func (s *Spec) addInstructions(f *tool.Function) {
	if f.AddInstructions && f.Instructions != "" {
		s.toolInstr = append(s.toolInstr, f.Instructions)
	}
}

func (s *Spec) hasStatic(name string) bool {
	for _, f := range s.static {
		if f.Name == name {
			return true
		}
	}
	return false
}

// ToolNames lists the static tool names.
func (s *Spec) ToolNames() []string {
	names := make([]string, len(s.static))
	for i, f := range s.static {
		names[i] = f.Name
	}
	return names
}

// definitions returns tool definitions sorted by name (stable prompts for
// provider caching, as agno sends them).
func definitions(fns []*tool.Function) []model.ToolDefinition {
	defs := make([]model.ToolDefinition, len(fns))
	for i, f := range fns {
		defs[i] = f.Definition()
	}
	for i := 1; i < len(defs); i++ {
		for j := i; j > 0 && defs[j].Name < defs[j-1].Name; j-- {
			defs[j], defs[j-1] = defs[j-1], defs[j]
		}
	}
	return defs
}

// FuncName names a hook function for events by its bare name, as agno's
// hook.__name__: "check" for pkg.check and for a method value (*T).check.
// A function literal keeps its compiler name ("func1").
func FuncName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	name := strings.TrimSuffix(runtime.FuncForPC(v.Pointer()).Name(), "-fm")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	parts := strings.Split(name, ".")
	// Nested literals end in bare numbers ("outer.func1.2").
	for i := len(parts) - 1; i > 0; i-- {
		if strings.Trim(parts[i], "0123456789") != "" {
			return parts[i]
		}
	}
	return name
}
