package agentos

import (
	"bytes"
	"net/http"

	"github.com/agno-go/agno/run"
)

// sseWriter writes agno's SSE framing: "event: <Name>\ndata: <compact
// JSON>\n\n", flushed per event.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	ok bool
}

func newSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	// Starlette's StreamingResponse adds the charset to text/ types.
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, rc: http.NewResponseController(w), ok: true}
}

// frame renders one event; index (when ≥ 0) adds event_index and run_id,
// as background and resumable streams carry.
func frame(name string, payload []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(name) + len(payload) + 16)
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteString("\ndata: ")
	b.Write(payload)
	b.WriteString("\n\n")
	return b.Bytes()
}

// eventJSON encodes an event, adding event_index when index ≥ 0.
func eventJSON(e run.Event, index int) ([]byte, error) {
	if index >= 0 {
		i := index
		e.Base().EventIndex = &i
	}
	b, err := marshal(e)
	if index >= 0 {
		e.Base().EventIndex = nil
	}
	return b, err
}

// send writes one event; false once the client is gone.
func (s *sseWriter) send(e run.Event, index int) bool {
	b, err := eventJSON(e, index)
	if err != nil {
		return s.ok
	}
	return s.raw(e.Kind(), b)
}

func (s *sseWriter) raw(name string, payload []byte) bool {
	if !s.ok {
		return false
	}
	if _, err := s.w.Write(frame(name, payload)); err != nil {
		s.ok = false
		return false
	}
	if err := s.rc.Flush(); err != nil {
		s.ok = false
	}
	return s.ok
}

// comment writes an SSE comment (heartbeats).
func (s *sseWriter) comment(text string) bool {
	if !s.ok {
		return false
	}
	if _, err := s.w.Write([]byte(": " + text + "\n\n")); err != nil {
		s.ok = false
		return false
	}
	return s.rc.Flush() == nil
}

// json writes v as one event, encoded as Python's json.dumps does (no
// HTML escaping).
func (s *sseWriter) json(name string, v any) bool {
	b, err := marshal(v)
	if err != nil {
		return s.ok
	}
	return s.raw(name, b)
}
