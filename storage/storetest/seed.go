package storetest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Seed stores sessions sess-i, runs run-i (COMPLETED, with a RunStarted
// and a RunCompleted event) and memories mem-i for i in from..n-1: what
// a fault test checks survives the fault.
func Seed(t testing.TB, st storage.Store, from, n int) {
	t.Helper()
	ctx := t.Context()
	for i := from; i < n; i++ {
		sid := fmt.Sprintf("sess-%d", i)
		if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: sid, SessionType: storage.SessionAgent, AgentID: "a", CreatedAt: 1, UpdatedAt: 1}); err != nil {
			t.Fatal(err)
		}
		r := &storage.Run{RunID: fmt.Sprintf("run-%d", i), SessionID: sid, SessionType: storage.SessionAgent, ComponentID: "a",
			Status: run.StatusCompleted, CreatedAt: 1, UpdatedAt: 1, Data: json.RawMessage(`{"content":"answer"}`)}
		if err := st.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendEvents(ctx, r.RunID, json.RawMessage(`{"event":"RunStarted"}`), json.RawMessage(`{"event":"RunCompleted"}`)); err != nil {
			t.Fatal(err)
		}
		if err := st.UpsertMemory(ctx, &storage.Memory{MemoryID: fmt.Sprintf("mem-%d", i), UserID: "u", Memory: "likes tea", UpdatedAt: 1}); err != nil {
			t.Fatal(err)
		}
	}
}

// CheckSeeded fails the test unless everything Seed stored for 0..n-1
// is there, each run with Seed's two events (run-0 may have more: a
// test's own writes go there).
func CheckSeeded(t testing.TB, st storage.Store, n int) {
	t.Helper()
	ctx := t.Context()
	for i := range n {
		if _, err := st.GetSession(ctx, fmt.Sprintf("sess-%d", i)); err != nil {
			t.Errorf("session %d: %v", i, err)
		}
		if r, err := st.GetRun(ctx, fmt.Sprintf("run-%d", i)); err != nil {
			t.Errorf("run %d: %v", i, err)
		} else if content := runContent(r.Data); content != "answer" {
			t.Errorf("run %d data: %s", i, r.Data)
		}
		if ev, err := st.ListEvents(ctx, fmt.Sprintf("run-%d", i), -1); err != nil || len(ev) < 2 || i > 0 && len(ev) != 2 || eventName(ev[1].Data) != "RunCompleted" {
			t.Errorf("events of run %d: %d, %v; want RunStarted, RunCompleted", i, len(ev), err)
		}
		if _, err := st.GetMemory(ctx, fmt.Sprintf("mem-%d", i)); err != nil {
			t.Errorf("memory %d: %v", i, err)
		}
	}
}

// runContent and eventName read JSON as stored: Postgres's jsonb
// spaces it its own way.
func runContent(data json.RawMessage) string {
	var v struct{ Content string }
	_ = json.Unmarshal(data, &v)
	return v.Content
}

func eventName(data json.RawMessage) string {
	var v struct{ Event string }
	_ = json.Unmarshal(data, &v)
	return v.Event
}
