package engine

import (
	"context"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/media"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// runState is everything one run owns.
type runState struct {
	spec *Spec
	// schema is the run's structured-output schema: the request's, else
	// the spec's.
	schema *OutputSchema
	req    *run.Request
	out    *run.Output
	rc     *run.Context

	ctx    context.Context
	cancel context.CancelCauseFunc

	stream       bool
	streamEvents bool
	emit         run.Emitter
	consumerGone bool

	messages  []model.Message
	functions []*tool.Function
	defs      []model.ToolDefinition

	toolCalls int
	started   time.Time

	// stateAtLoad is the session state as loaded, to write back only what
	// this run changed.
	stateAtLoad map[string]any
	session     *storage.Session
	media       media.Loader
	// refs collects the knowledge references of the run (nil without a
	// knowledge base).
	refs *referenceLog
	// h is the run in the engine (nil: a nested run, which its parent
	// stores); refused: its id was taken, nothing of it is stored.
	h        *runs.Run
	refused  bool
	children []*storage.Run

	// content accumulated across loop iterations.
	content   []byte
	reasoning []byte
	// toolReasoning is the reasoning_content think/analyze calls added;
	// toolReasoningStarted: ReasoningStarted was sent for them.
	toolReasoning        []byte
	toolReasoningStarted bool
	// unstored are the ids of messages the model sees but the stored run
	// leaves out (reasoning framing).
	unstored map[string]bool

	mu sync.Mutex // guards out.Events appends from concurrent emitters

	onDone []func()
	// stopAfter: a call resolved on continue had stop_after_tool_call.
	stopAfter bool
	// concluding holds the terminal events back until the run is stored,
	// so a client acting on RunPaused or RunCompleted finds it in storage.
	concluding bool
	held       []run.Event
}

// base returns the identity fields every event of this run carries.
func (s *runState) base() run.EventBase {
	b := run.EventBase{
		RunID:       s.out.RunID,
		SessionID:   s.out.SessionID,
		ParentRunID: s.out.ParentRunID,
		NestedDepth: s.req.NestedDepth,
	}
	if s.spec.Team {
		b.TeamID, b.TeamName = s.spec.ID, s.spec.Name
	} else {
		b.AgentID, b.AgentName = s.spec.ID, s.spec.Name
	}
	applyTags(s.req.Workflow, &b)
	return b
}

// send emits one of this run's own events. Events are recorded for
// storage when store_events is on and the kind is not skipped.
func (s *runState) send(e run.Event) {
	run.Stamp(e)
	s.record(e)
	if s.consumerGone || s.emit == nil {
		return
	}
	if s.concluding {
		s.held = append(s.held, e)
		return
	}
	s.deliver(e)
}

func (s *runState) deliver(e run.Event) {
	if s.consumerGone || s.emit == nil {
		return // a non-streamed run: its output carries the end
	}
	if !s.emit(e) {
		s.consumerGone = true
		s.cancel(context.Canceled)
	}
}

// forward passes a nested run's event (a member, a sub-agent) through
// unchanged, as agno bubbles them; only workflow tags are added.
func (s *runState) forward(e run.Event) bool {
	if s.req.Workflow != nil {
		b := e.Base()
		if b.WorkflowRunID == "" {
			applyTags(s.req.Workflow, b)
		}
	}
	s.record(e)
	if s.consumerGone || s.emit == nil {
		return !s.consumerGone
	}
	if !s.emit(e) {
		s.consumerGone = true
		s.cancel(context.Canceled)
		return false
	}
	return true
}

// record keeps an event in the run's output and, unless the run's whole
// stream is stored (resumable), queues it for storage.
func (s *runState) record(e run.Event) {
	if !s.storeEvents() || s.spec.skips(e.Kind()) {
		return
	}
	data := s.h.Record(e)
	s.mu.Lock()
	s.out.Events = append(s.out.Events, e)
	s.out.StoredEvents = append(s.out.StoredEvents, data)
	s.mu.Unlock()
}

func (st *runState) storeEvents() bool { return st.spec.StoreEvents || st.req.StoreEvents }

// wantsEvent reports whether an optional (stream_events-only) event is
// emitted or stored; building it is skipped otherwise.
func (s *runState) wantsEvent() bool {
	return (s.streamEvents && s.emit != nil) || s.storeEvents()
}

// sendOptional emits an event that only appears with stream_events.
func (s *runState) sendOptional(e run.Event) {
	if !s.streamEvents {
		run.Stamp(e)
		s.record(e)
		return
	}
	s.send(e)
}
