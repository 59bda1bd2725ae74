// Package workflow is agno's Workflow v2: a deterministic pipeline of
// steps — Step (agent, team, Go function or nested workflow), Steps, Loop,
// Parallel, Condition and Router — sharing one session state, with durable
// human-in-the-loop pauses that a fresh process can continue.
package workflow

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strconv"
	"sync/atomic"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/google/jsonschema-go/jsonschema"
)

// Config configures a Workflow.
type Config struct {
	ID          string `toml:"id"` // default: Name lower-cased with "-"
	Name        string `toml:"name"`
	Description string `toml:"description"`
	Steps       []Node `toml:"steps"`

	Store        storage.Store  `toml:"-"`
	SessionState map[string]any `toml:"session_state"`
	Metadata     map[string]any `toml:"metadata"`
	Dependencies map[string]any `toml:"dependencies"`
	// InputSchema is a JSON schema the workflow input (a JSON object text)
	// must satisfy.
	InputSchema json.RawMessage `toml:"input_schema"`

	StreamEvents bool `toml:"stream_events"`
	// StreamExecutorEvents forwards agents' and teams' own events (default
	// true); their terminal events are always forwarded.
	StreamExecutorEvents *bool    `toml:"stream_executor_events"`
	StoreEvents          bool     `toml:"store_events"`
	EventsToSkip         []string `toml:"events_to_skip"`
	// StoreExecutorOutputs keeps executors' run outputs in the run
	// (default true; paused executors are always kept).
	StoreExecutorOutputs      *bool `toml:"store_executor_outputs"`
	AddWorkflowHistoryToSteps bool  `toml:"add_workflow_history_to_steps"`
	NumHistoryRuns            int   `toml:"num_history_runs"` // default 3

	// Agent makes the workflow conversational: an agent answers each input
	// from the session's earlier runs or runs the workflow (agno's agent).
	Agent *WorkflowAgent `toml:"agent"`

	// Notifier hears about pauses and resumptions (the HITL socket).
	Notifier Notifier `toml:"-"`

	Canceller run.Canceller `toml:"-"`
	Logger    *slog.Logger  `toml:"-"`
}

// Notifier is told when runs of a workflow pause and when they continue,
// so a human channel can announce them.
type Notifier interface {
	Paused(w *Workflow, out *RunOutput)
	Resumed(w *Workflow, runID string)
}

// Workflow is a configured workflow; safe for concurrent use.
type Workflow struct {
	cfg    Config
	ids    map[Node]string
	schema *jsonschema.Resolved
	skip   map[string]bool

	notifier atomic.Pointer[notifierBox]
	agent    *agent.Agent
}

type notifierBox struct{ n Notifier }

// Errors of the workflow API.
var (
	// ErrInvalidInput: the input does not match the input schema.
	ErrInvalidInput = errors.New("workflow: invalid input")
	// ErrRunFailed wraps a failed run's error; the output is returned too.
	ErrRunFailed = errors.New("workflow run failed")
	// ErrExpression: a condition, selector or end condition expression
	// could not be evaluated on the run's data (the run ends ERROR).
	ErrExpression = errors.New("workflow expression failed")
)

// New validates cfg and returns the workflow.
func New(cfg Config) (*Workflow, error) {
	if cfg.ID == "" {
		cfg.ID = agent.DefaultID(cfg.Name)
	}
	if len(cfg.Steps) == 0 {
		return nil, fmt.Errorf("workflow %q: Steps is empty; add at least one step", cfg.ID)
	}
	if cfg.NumHistoryRuns <= 0 {
		cfg.NumHistoryRuns = 3
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &Workflow{cfg: cfg, ids: map[Node]string{}, skip: map[string]bool{}}
	if cfg.Notifier != nil {
		w.SetNotifier(cfg.Notifier)
	}
	for _, e := range cfg.EventsToSkip {
		w.skip[e] = true
	}
	if err := w.prepare(cfg.Steps, "", map[Node]bool{}); err != nil {
		return nil, fmt.Errorf("workflow %q: %w", cfg.ID, err)
	}
	if len(cfg.InputSchema) > 0 {
		var s jsonschema.Schema
		if err := json.Unmarshal(cfg.InputSchema, &s); err != nil {
			return nil, fmt.Errorf("workflow %q: InputSchema is not a JSON schema: %w", cfg.ID, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("workflow %q: InputSchema: %w", cfg.ID, err)
		}
		w.schema = r
	}
	if cfg.Agent != nil {
		a, err := w.newAgent(cfg.Agent)
		if err != nil {
			return nil, fmt.Errorf("workflow %q: %w", cfg.ID, err)
		}
		w.agent = a
	}
	return w, nil
}

// prepare validates nodes and gives every node a stable id, derived from
// the workflow id and the node's place, so a restarted process resolves
// the same ids for a paused run.
func (w *Workflow) prepare(nodes []Node, prefix string, seen map[Node]bool) error {
	for i, n := range nodes {
		addr := prefix + strconv.Itoa(i)
		if n == nil {
			return fmt.Errorf("step %s is nil", addr)
		}
		if seen[n] {
			return fmt.Errorf("step %q (%s) is used twice; each step value may appear once", n.nodeName(), addr)
		}
		seen[n] = true
		if n.nodeName() == "" {
			return fmt.Errorf("step %s has no Name; every step needs one (it keys previous_step_outputs)", addr)
		}
		id := nodeID(n)
		if id == "" {
			sum := sha1.Sum([]byte(w.cfg.ID + "/" + addr + "/" + n.nodeName()))
			sum[6] = sum[6]&0x0f | 0x50
			sum[8] = sum[8]&0x3f | 0x80
			id = fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
		}
		w.ids[n] = id
		switch x := n.(type) {
		case *Step:
			k := 0
			for _, set := range []bool{x.Agent != nil, x.Func != nil, x.Workflow != nil} {
				if set {
					k++
				}
			}
			if k != 1 {
				return fmt.Errorf("step %q needs exactly one of Agent, Func or Workflow (has %d)", x.Name, k)
			}
			if x.Workflow != nil {
				if h := humanStep(x.Workflow.cfg.Steps); h != "" {
					return fmt.Errorf("step %q runs workflow %q, whose step %q waits for a human: a nested workflow cannot pause; move that step into workflow %q", x.Name, x.Workflow.ID(), h, w.cfg.ID)
				}
			}
		case *Loop:
			if len(x.Steps) == 0 {
				return fmt.Errorf("loop %q has no steps", x.Name)
			}
		case *Condition:
			if x.Evaluator == nil {
				return fmt.Errorf("condition %q has no Evaluator", x.Name)
			}
		case *Router:
			if x.Selector == nil && !x.RequiresUserInput {
				return fmt.Errorf("router %q needs a Selector or RequiresUserInput (a human picks)", x.Name)
			}
			if len(x.Choices) == 0 {
				return fmt.Errorf("router %q has no choices", x.Name)
			}
		}
		for bi, list := range children(n) {
			if err := w.prepare(list, addr+"/"+strconv.Itoa(bi)+".", seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// humanStep names the first node that pauses for a human (a review, a
// human-picked route, on_error pause), or "".
func humanStep(nodes []Node) string {
	for _, n := range nodes {
		h := n.human()
		if h.RequiresConfirmation || h.RequiresUserInput || h.RequiresOutputReview {
			return n.nodeName()
		}
		if s, ok := n.(*Step); ok && s.OnError == ErrorPause {
			return n.nodeName()
		}
		for _, list := range children(n) {
			if name := humanStep(list); name != "" {
				return name
			}
		}
		if s, ok := n.(*Step); ok && s.Workflow != nil {
			if name := humanStep(s.Workflow.cfg.Steps); name != "" {
				return name
			}
		}
	}
	return ""
}

// engine is the run engine of the workflow's store (resolved per run:
// AgentOS attaches its engine after the workflow is built).
func (w *Workflow) engine() *runs.Engine { return runs.For(w.cfg.Store) }

// canceller is where runs register their cancel: the configured one,
// else the engine, which a cancel reaches from any instance.
func (w *Workflow) canceller() run.Canceller {
	if w.cfg.Canceller != nil {
		return w.cfg.Canceller
	}
	return w.engine()
}

// lazyCanceller is the workflow's canceller looked up at each call, for
// its agent, built before AgentOS attaches its engine.
type lazyCanceller struct{ w *Workflow }

func (l lazyCanceller) Register(runID string, cancel context.CancelCauseFunc) func() {
	return l.w.canceller().Register(runID, cancel)
}

func (l lazyCanceller) Cancel(ctx context.Context, runID string) (bool, error) {
	return l.w.canceller().Cancel(ctx, runID)
}

// ID returns the workflow id.
func (w *Workflow) ID() string { return w.cfg.ID }

// Name returns the workflow name.
func (w *Workflow) Name() string { return w.cfg.Name }

// Description returns the description.
func (w *Workflow) Description() string { return w.cfg.Description }

// Config returns the configuration (id filled in).
func (w *Workflow) Config() Config { return w.cfg }

// StepID returns the id given to a node of this workflow.
func (w *Workflow) StepID(n Node) string { return w.ids[n] }

// StepApproval returns the Approval of the node with step id id ("" for
// none or no such node).
func (w *Workflow) StepApproval(id string) string {
	for n, nid := range w.ids {
		if nid == id {
			return n.human().Approval
		}
	}
	return ""
}

// SetNotifier sets the pause notifier (AgentOS wires its HITL channels);
// safe while runs are in flight.
func (w *Workflow) SetNotifier(n Notifier) { w.notifier.Store(&notifierBox{n}) }

// Notifier returns the current pause notifier, or nil.
func (w *Workflow) Notifier() Notifier {
	if b := w.notifier.Load(); b != nil {
		return b.n
	}
	return nil
}

// Store returns the workflow's storage (nil without one).
func (w *Workflow) Store() storage.Store { return w.cfg.Store }

func (w *Workflow) streamExecutors() bool {
	return w.cfg.StreamExecutorEvents == nil || *w.cfg.StreamExecutorEvents
}

func (w *Workflow) storeExecutors() bool {
	return w.cfg.StoreExecutorOutputs == nil || *w.cfg.StoreExecutorOutputs
}

func (w *Workflow) request(input string, opts []run.Option) *run.Request {
	req := &run.Request{Input: input, StreamEvents: w.cfg.StreamEvents}
	for _, o := range opts {
		o(req)
	}
	return req
}

// Run runs the workflow. A failed run returns its output (status ERROR)
// and an error wrapping ErrRunFailed, as agno re-raises.
func (w *Workflow) Run(ctx context.Context, input string, opts ...run.Option) (*RunOutput, error) {
	req := w.request(input, opts)
	req.Stream, req.StreamEvents = false, false
	return w.Execute(ctx, req, nil)
}

// RunStream runs the workflow and yields its events.
func (w *Workflow) RunStream(ctx context.Context, input string, opts ...run.Option) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req := w.request(input, opts)
		req.Stream = true
		out, err := w.Execute(ctx, req, func(e run.Event) bool { return yield(e, nil) })
		if err != nil && (out == nil || out.Status != run.StatusError) {
			yield(nil, err)
		}
	}
}

// ContinueRequest continues a paused workflow run.
type ContinueRequest struct {
	RunID     string
	SessionID string
	UserID    string
	// Output is the paused run, when the caller has it; else RunID is
	// loaded from storage.
	Output *RunOutput
	// StepRequirements carry the answers, matched by step_id.
	StepRequirements []*StepRequirement
	Stream           bool
	StreamEvents     bool
	// Resumable: clients may resume the continuation's stream, on any
	// instance (a WebSocket continue); its events are stored as it goes.
	Resumable bool
	// StoreEvents keeps the continuation's events with the run, whatever
	// the workflow's store_events (AgentOS sets it, as agno does).
	StoreEvents bool
}

// Continue resumes a paused run where it stopped. A run that is not
// paused is run.ErrNotPaused (wrapped); an unanswered requirement
// run.ErrUnresolved.
func (w *Workflow) Continue(ctx context.Context, req ContinueRequest) (*RunOutput, error) {
	req.Stream, req.StreamEvents = false, false
	return w.ExecuteContinue(ctx, &req, nil)
}

// ContinueStream is Continue with events.
func (w *Workflow) ContinueStream(ctx context.Context, req ContinueRequest) iter.Seq2[run.Event, error] {
	return func(yield func(run.Event, error) bool) {
		req.Stream = true
		out, err := w.ExecuteContinue(ctx, &req, func(e run.Event) bool { return yield(e, nil) })
		if err != nil && (out == nil || out.Status != run.StatusError) {
			yield(nil, err)
		}
	}
}

// Cancel cancels a running run of this workflow.
func (w *Workflow) Cancel(ctx context.Context, runID string) (bool, error) {
	return w.canceller().Cancel(ctx, runID)
}

// GetRun loads a stored run of this workflow.
func (w *Workflow) GetRun(ctx context.Context, runID string) (*RunOutput, error) {
	out, _, err := w.getRun(ctx, runID)
	return out, err
}

// getRun reads a run and its row; the row's status is the run's (a
// claim moves only it).
func (w *Workflow) getRun(ctx context.Context, runID string) (*RunOutput, *storage.Run, error) {
	if w.cfg.Store == nil {
		return nil, nil, fmt.Errorf("run %s: %w", runID, run.ErrNoStorage)
	}
	rec, err := w.cfg.Store.GetRun(ctx, runID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && rec.ComponentID != w.cfg.ID) {
		return nil, nil, fmt.Errorf("run %s: %w", runID, run.ErrNotFound)
	}
	if err != nil {
		return nil, nil, err
	}
	out := &RunOutput{}
	if err := json.Unmarshal(rec.Data, out); err != nil {
		return nil, nil, fmt.Errorf("run %s is unreadable: %w", runID, err)
	}
	out.Status = rec.Status
	return out, rec, nil
}

// ValidateInput checks an input against the input schema without running.
func (w *Workflow) ValidateInput(input string) error {
	_, err := w.parseInput(input)
	return err
}
