package storetest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

func testClosed(t *testing.T, open Opener) {
	st := open(t)
	ctx := t.Context()
	_, _, err := st.EnsureSession(ctx, fullSession("s1"))
	must(t, err)
	must(t, st.CreateRun(ctx, &storage.Run{RunID: "r1", SessionID: "s1"}))
	must(t, st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m1", Memory: "x", UserID: "u"}))
	_, err = st.PutBlob(ctx, "s1", "b1", strings.NewReader("x"))
	must(t, err)
	must(t, st.Close())
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ops := map[string]func() error{
		"EnsureSession": func() error { _, _, err := st.EnsureSession(ctx, fullSession("s2")); return err },
		"GetSession":    func() error { _, err := st.GetSession(ctx, "s1"); return err },
		"UpdateSession": func() error {
			_, err := st.UpdateSession(ctx, "s1", func(*storage.Session) error { return nil })
			return err
		},
		"ListSessions":   func() error { _, _, err := st.ListSessions(ctx, storage.SessionQuery{}); return err },
		"DeleteSessions": func() error { return st.DeleteSessions(ctx, "s1") },
		"CreateRun":      func() error { return st.CreateRun(ctx, &storage.Run{RunID: "r2", SessionID: "s1"}) },
		"UpdateRun":      func() error { return st.UpdateRun(ctx, &storage.Run{RunID: "r1", SessionID: "s1"}) },
		"StartRun": func() error {
			_, err := st.StartRun(ctx, nil, &storage.Run{RunID: "r3", SessionID: "s1"}, false)
			return err
		},
		"SaveRun": func() error { return st.SaveRun(ctx, storage.RunWrite{RunID: "r1"}) },
		"ClaimRun": func() error {
			_, err := st.ClaimRun(ctx, storage.Claim{RunID: "r1", From: run.StatusPaused, To: run.StatusRunning, Version: -1})
			return err
		},
		"RequestCancel": func() error { _, err := st.RequestCancel(ctx, "r1"); return err },
		"Heartbeat":     func() error { return st.Heartbeat(ctx, "i") },
		"Instances":     func() error { _, err := st.Instances(ctx); return err },
		"GetRun":        func() error { _, err := st.GetRun(ctx, "r1"); return err },
		"PutBlob": func() error {
			_, err := st.PutBlob(ctx, "s1", "b2", strings.NewReader("x"))
			return err
		},
		"GetBlob":  func() error { _, err := st.GetBlob(ctx, "s1", "b1"); return err },
		"ListRuns": func() error { _, err := st.ListRuns(ctx, storage.RunQuery{}); return err },
		"AppendEvents": func() error {
			_, err := st.AppendEvents(ctx, "r1", json.RawMessage(`{}`))
			return err
		},
		"ListEvents":     func() error { _, err := st.ListEvents(ctx, "r1", -1); return err },
		"UpsertMemory":   func() error { return st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m2", Memory: "y"}) },
		"GetMemory":      func() error { _, err := st.GetMemory(ctx, "m1"); return err },
		"ListMemories":   func() error { _, _, err := st.ListMemories(ctx, storage.MemoryQuery{}); return err },
		"DeleteMemories": func() error { return st.DeleteMemories(ctx, "m1") },
		"MemoryTopics":   func() error { _, err := st.MemoryTopics(ctx, ""); return err },
		"MemoryStats":    func() error { _, _, err := st.MemoryStats(ctx, "", 0, 0); return err },
	}
	for name, op := range ops {
		wantErr(t, name+" after Close", op(), storage.ErrClosed)
	}
}
