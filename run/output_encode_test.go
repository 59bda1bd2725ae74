package run

import (
	"encoding/json"
	"testing"
)

// Encode joins the events' stored JSON when every event has it, and gives
// the same bytes as encoding the events; with one missing it encodes them.
func TestEncodeReusesStoredEvents(t *testing.T) {
	events := []Event{
		&RunStarted{EventBase: EventBase{CreatedAt: 1, Event: "RunStarted", RunID: "r"}},
		&RunContent{EventBase: EventBase{CreatedAt: 2, Event: "RunContent", RunID: "r"}, Content: "<b>&</b>"},
	}
	stored := make([]json.RawMessage, len(events))
	for i, e := range events {
		b, err := EncodeJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		stored[i] = b
	}
	encoded := func(o *Output) string {
		t.Helper()
		b, err := o.Encode()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	doc := json.RawMessage(`{"run_id":"r"}`)
	want := encoded(&Output{Stored: doc, Events: events})

	if got := encoded(&Output{Stored: doc, Events: events, StoredEvents: stored}); got != want {
		t.Errorf("from the stored events:\n%s\nencoded:\n%s", got, want)
	}
	// Marked bytes show which path ran: the stored JSON is used as it is.
	marked := []json.RawMessage{stored[0], json.RawMessage(`{"event":"marked"}`)}
	if got := encoded(&Output{Stored: doc, Events: events, StoredEvents: marked}); got == want {
		t.Error("the stored events were not used")
	}
	for name, partial := range map[string][]json.RawMessage{"one missing": {stored[0], nil}, "fewer": stored[:1]} {
		if got := encoded(&Output{Stored: doc, Events: events, StoredEvents: partial}); got != want {
			t.Errorf("%s: %s, want the events encoded: %s", name, got, want)
		}
	}
}
