package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/agno-go/agno/storage"
)

// A run stored in one write (it ended before anything of it was written)
// keeps its events in its row's events column: a JSON array of their
// documents, seq 0, 1, …. That is one value where a row per event costs an
// insert and an index entry each. Events written later (a continuation)
// are rows of the events table, numbered after those.

// InlineEvents is the events column value for evs when they are a run's
// first events, seq 0…n-1 in order: the JSON array of their documents.
// nil otherwise (no events, or not from 0: they go to the events table).
func InlineEvents(evs []storage.Event) any {
	if len(evs) == 0 {
		return nil
	}
	n := 1
	for i, e := range evs {
		if e.Seq != int64(i) {
			return nil
		}
		n += len(e.Data) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range evs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.Data...)
	}
	return string(append(b, ']'))
}

// FirstSeq is the lowest seq of evs (0 for none).
func FirstSeq(evs []storage.Event) int64 {
	if len(evs) == 0 {
		return 0
	}
	first := evs[0].Seq
	for _, e := range evs[1:] {
		first = min(first, e.Seq)
	}
	return first
}

// SeqTaken refuses events numbered among the n a run keeps inline.
func SeqTaken(runID string, first, n int64) error {
	if first < n {
		return fmt.Errorf("run %q: event seq %d is taken (its first %d events are stored): %w", runID, first, n, storage.ErrConflict)
	}
	return nil
}

// ListEventsSQL selects a run's events after seq arg 2 (run_id arg 1) as
// (seq, data) rows in seq order for ScanEvents: first the inline array,
// with seq -1, then the rows of the events table.
func (d *Dialect) ListEventsSQL() string {
	return "SELECT -1 AS seq, events AS data FROM " + d.Runs + " WHERE run_id = " + d.Arg(1) + " AND events IS NOT NULL" +
		" UNION ALL SELECT seq, data FROM " + d.Events + " WHERE run_id = " + d.Arg(1) + " AND seq > " + d.Arg(2) + " ORDER BY 1"
}

// eventRows collects the rows of ListEventsSQL: the inline events after
// seq after, then the table's. A table row numbered among the inline
// events is not the run's (the inline ones were its first) and is left
// out.
type eventRows struct {
	runID         string
	after, inline int64
	out           []storage.Event
}

func (e *eventRows) add(sc Scanner) error {
	var seq int64
	var data []byte
	if err := sc.Scan(&seq, &data); err != nil {
		return err
	}
	if seq < 0 {
		var docs []json.RawMessage
		if err := json.Unmarshal(data, &docs); err != nil {
			return fmt.Errorf("storage: the events of run %q are not a JSON array: %w", e.runID, err)
		}
		e.inline = int64(len(docs))
		for i := max(e.after+1, 0); i < e.inline; i++ {
			e.out = append(e.out, storage.Event{RunID: e.runID, Seq: i, Data: docs[i]})
		}
		return nil
	}
	if seq >= e.inline {
		e.out = append(e.out, storage.Event{RunID: e.runID, Seq: seq, Data: data})
	}
	return nil
}
