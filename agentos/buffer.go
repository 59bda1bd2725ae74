package agentos

import (
	"sync"
	"time"

	"github.com/agno-go/agno/run"
)

// Limits of the in-memory event buffer of background runs (agno's
// EventsBuffer).
const (
	maxBufferedEvents = 10000
	bufferRetention   = 30 * time.Minute
)

// buffered is one event of a background run, rendered once.
type buffered struct {
	name    string
	payload []byte // JSON with event_index and run_id
}

// runBuffer keeps a background run's events for live subscribers and for
// clients that resume after a disconnect.
type runBuffer struct {
	mu      sync.Mutex
	runID   string
	events  []buffered
	dropped int
	status  run.Status
	done    bool
	doneAt  time.Time
	notify  chan struct{}
	// gen counts reopenings (a paused run continued); genEnds[g] is the
	// event count when generation g ended. A subscriber follows one
	// generation, so a stream of the paused run ends at the pause and
	// never carries the continuation's events a second time.
	gen     int
	genEnds []int
}

type buffers struct {
	mu sync.Mutex
	m  map[string]*runBuffer
}

func newBuffers() *buffers { return &buffers{m: map[string]*runBuffer{}} }

// start returns the run's buffer, reopened when the run continues after a
// pause so event_index stays monotonic per run, and the generation the
// caller writes (its finish applies to that generation only).
func (b *buffers) start(runID string) (*runBuffer, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.purgeLocked()
	if rb, ok := b.m[runID]; ok {
		rb.mu.Lock()
		rb.genEnds = append(rb.genEnds, rb.dropped+len(rb.events))
		rb.gen++
		rb.done, rb.status = false, run.StatusRunning
		close(rb.notify)
		rb.notify = make(chan struct{})
		gen := rb.gen
		rb.mu.Unlock()
		return rb, gen
	}
	rb := &runBuffer{runID: runID, status: run.StatusRunning, notify: make(chan struct{})}
	b.m[runID] = rb
	return rb, 0
}

func (b *buffers) get(runID string) *runBuffer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[runID]
}

func (b *buffers) purgeLocked() {
	now := time.Now()
	for id, rb := range b.m {
		rb.mu.Lock()
		old := rb.done && now.Sub(rb.doneAt) > bufferRetention
		rb.mu.Unlock()
		if old {
			delete(b.m, id)
		}
	}
}

// add appends an event and returns its index (monotonic per run).
func (rb *runBuffer) add(e run.Event) int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	idx := rb.dropped + len(rb.events)
	e.Base().RunID = orDefault(e.Base().RunID, rb.runID)
	payload, err := eventJSON(e, idx)
	if err != nil {
		return idx
	}
	rb.events = append(rb.events, buffered{name: e.Kind(), payload: payload})
	if len(rb.events) > maxBufferedEvents {
		rb.events = rb.events[1:]
		rb.dropped++
	}
	close(rb.notify)
	rb.notify = make(chan struct{})
	return idx
}

func orDefault(s, d string) string {
	if s != "" {
		return s
	}
	return d
}

// finish marks generation gen of the run ended with status. A paused
// run's writer may get here after a continuation has reopened the buffer:
// that late finish must not end the continuation's stream.
func (rb *runBuffer) finish(gen int, status run.Status) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	if gen != rb.gen {
		return
	}
	rb.status, rb.done, rb.doneAt = status, true, time.Now()
	close(rb.notify)
	rb.notify = make(chan struct{})
}

// since returns events after index last (-1: all), whether the run has
// ended, and a channel closed at the next change.
func (rb *runBuffer) since(last int) (evs []buffered, next int, done bool, status run.Status, wait <-chan struct{}) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	start := last + 1 - rb.dropped
	if start < 0 {
		start = 0
	}
	if start < len(rb.events) {
		evs = append(evs, rb.events[start:]...)
	}
	return evs, rb.dropped + len(rb.events) - 1, rb.done, rb.status, rb.notify
}

// generation is the buffer's current generation, for sinceIn.
func (rb *runBuffer) generation() int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.gen
}

// sinceIn is since for a subscriber of generation gen: it sees only that
// generation's events, and done once it has ended (paused, or finished).
func (rb *runBuffer) sinceIn(gen, last int) (evs []buffered, next int, done bool, wait <-chan struct{}) {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	end := rb.dropped + len(rb.events)
	if gen < rb.gen {
		end = rb.genEnds[gen]
	}
	for i := max(last+1, rb.dropped); i < end; i++ {
		evs = append(evs, rb.events[i-rb.dropped])
	}
	return evs, max(last, end-1), rb.done || gen < rb.gen, rb.notify
}

func (rb *runBuffer) count() int {
	rb.mu.Lock()
	defer rb.mu.Unlock()
	return rb.dropped + len(rb.events)
}
