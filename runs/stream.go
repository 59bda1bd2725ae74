package runs

import (
	"sync"
	"time"

	"github.com/agno-go/agno/run"
)

// Limits of a live stream (agno's EventsBuffer).
const (
	maxStreamEvents = 10000
	streamRetention = 30 * time.Minute
)

// Event is one event of a run's stream: its index in the run (agno's
// event_index), its name, and its JSON with event_index and run_id.
type Event struct {
	Index   int64
	Name    string
	Payload []byte
}

// stream is a resumable run's events in this process, for live
// followers and for clients that come back after a disconnect.
type stream struct {
	mu      sync.Mutex
	runID   string
	events  []Event
	dropped int64
	status  run.Status
	done    bool
	doneAt  time.Time
	notify  chan struct{}
	// gen counts reopenings (a paused run continued); genEnds[g] is the
	// event count when generation g ended. A follower follows one
	// generation: a stream of the paused run ends at the pause and never
	// carries the continuation's events a second time.
	gen     int
	genEnds []int64
	// terminal counts the terminal events the current generation's
	// writer has stored (Finish) and not yet added: a continuation waits
	// for them, or the pause's last events would land in its generation.
	terminal int
}

type streams struct {
	mu sync.Mutex
	m  map[string]*stream
}

func newStreams() *streams { return &streams{m: map[string]*stream{}} }

// open returns the run's stream, reopened for a continuation (its events
// keep their indexes), and the generation the caller writes. A
// continuation always writes a generation of its own: it may claim the
// run before the pausing writer's Close ends the pause's generation, and
// that late end must not end the continuation's.
func (ss *streams) open(runID string, next int64, continuation bool) (*stream, int) {
	if s := ss.get(runID); s != nil && continuation {
		s.awaitTerminal(terminalWait)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.purgeLocked()
	if s, ok := ss.m[runID]; ok {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.done && !continuation { // already open (a launch, then its run begins)
			return s, s.gen
		}
		s.genEnds = append(s.genEnds, s.dropped+int64(len(s.events)))
		s.gen++
		s.done, s.status = false, run.StatusRunning
		if end := s.dropped + int64(len(s.events)); next > end { // events stored elsewhere since
			s.dropped, s.events = next, nil
		}
		s.wake()
		return s, s.gen
	}
	s := &stream{runID: runID, status: run.StatusRunning, notify: make(chan struct{}), dropped: next}
	ss.m[runID] = s
	return s, 0
}

func (ss *streams) get(runID string) *stream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.m[runID]
}

func (ss *streams) purgeLocked() {
	now := time.Now()
	for id, s := range ss.m {
		s.mu.Lock()
		old := s.done && now.Sub(s.doneAt) > streamRetention
		s.mu.Unlock()
		if old {
			delete(ss.m, id)
		}
	}
}

// wake tells followers something changed; needs s.mu.
func (s *stream) wake() {
	close(s.notify)
	s.notify = make(chan struct{})
}

// terminalWait bounds a continuation's wait for the pause's terminal
// events (their writer adds them right after its write).
const terminalWait = 2 * time.Second

// expectTerminal counts n terminal events stored before they are added.
func (s *stream) expectTerminal(n int) {
	s.mu.Lock()
	s.terminal += n
	s.mu.Unlock()
}

// awaitTerminal waits, at most limit, until the current generation's
// terminal events are in or it ended.
func (s *stream) awaitTerminal(limit time.Duration) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.done || s.terminal == 0 {
			s.mu.Unlock()
			return
		}
		wait := s.notify
		s.mu.Unlock()
		select {
		case <-wait:
		case <-deadline.C:
			return
		}
	}
}

// add appends an event given its index; terminal: one expectTerminal
// counted.
func (s *stream) add(ev Event, terminal bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if terminal && s.terminal > 0 {
		s.terminal--
	}
	s.events = append(s.events, ev)
	if len(s.events) > maxStreamEvents {
		s.events = s.events[1:]
		s.dropped++
	}
	s.wake()
}

// finish ends generation gen with status. A paused run's writer may get
// here after a continuation reopened the stream: that late finish must
// not end the continuation's stream.
func (s *stream) finish(gen int, status run.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	s.terminal = 0
	s.status, s.done, s.doneAt = status, true, time.Now()
	s.wake()
}

// snapshot is the state of a stream for a follower of the current
// generation.
func (s *stream) snapshot() (gen int, next int64, done bool, status run.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen, s.dropped + int64(len(s.events)), s.done, s.status
}

// since returns the events of generation gen after index last, the index
// of the last one, whether the generation ended, and a channel closed at
// the next change.
func (s *stream) since(gen int, last int64) (evs []Event, next int64, done bool, wait <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.dropped + int64(len(s.events))
	if gen < s.gen {
		end = s.genEnds[gen]
	}
	for i := max(last+1, s.dropped); i < end; i++ {
		evs = append(evs, s.events[i-s.dropped])
	}
	return evs, max(last, end-1), s.done || gen < s.gen, s.notify
}

// payload encodes an event with its event_index and run id (the id of
// the run that emitted it: a member's events keep theirs).
func payload(e run.Event, index int64, runID string) ([]byte, error) {
	b := e.Base()
	i := int(index)
	b.EventIndex = &i
	setRun := b.RunID == ""
	if setRun {
		b.RunID = runID
	}
	out, err := marshal(e)
	b.EventIndex = nil
	if setRun {
		b.RunID = ""
	}
	return out, err
}

// marshal encodes JSON without HTML escaping, as Python's json does.
func marshal(v any) ([]byte, error) { return run.EncodeJSON(v) }

// storedPayload gives an event read from storage its event_index (its
// seq) and run id, as the live stream carries them.
func storedPayload(data []byte, seq int64, runID string) (name string, out []byte, ok bool) {
	doc := map[string]any{}
	if run.DecodeJSON(data, &doc) != nil {
		return "", nil, false
	}
	doc["event_index"] = seq
	if _, has := doc["run_id"]; !has {
		doc["run_id"] = runID
	}
	name, _ = doc["event"].(string)
	out, err := marshal(doc)
	return name, out, err == nil
}
