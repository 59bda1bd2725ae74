package agentos_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
)

// A cancel sent before its run exists is the caller's: in JWT mode
// without isolation, alice's cancel of an id nobody has does not cancel
// the run bob starts under it, and her own run under an id she
// cancelled first ends CANCELLED.
func TestCancelBeforeStartIsTheCallers(t *testing.T) {
	// The agent has no store of its own: its runs go through another
	// engine than the OS's, and the intent must still reach them.
	a, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New(modeltest.Response{Content: "ok"})})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: memory.New(),
		Authorization: &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	j := &jwtOS{srv: srv}
	alice, bob := tokenFor(t, "alice", userScopes...), tokenFor(t, "bob", userScopes...)
	status := func(token, runID string) any {
		t.Helper()
		r := j.call(t, token, http.MethodPost, "/agents/helper/runs", url.Values{"message": {"hi"}, "run_id": {runID}, "stream": {"false"}})
		var out map[string]any
		_ = json.Unmarshal([]byte(r.body), &out)
		if r.status != http.StatusOK {
			t.Fatalf("run %s: %d %s", runID, r.status, r.body)
		}
		return out["status"]
	}
	for _, id := range []string{"bobs-run", "alices-run"} {
		if r := j.call(t, alice, http.MethodPost, "/agents/helper/runs/"+id+"/cancel", nil); r.status != http.StatusOK || r.body != "{}" {
			t.Fatalf("alice cancels %s before it starts: %d %s", id, r.status, r.body)
		}
	}
	if st := status(bob, "bobs-run"); st != "COMPLETED" {
		t.Errorf("bob's run under an id alice cancelled first: %v", st)
	}
	if st := status(alice, "alices-run"); st != "CANCELLED" {
		t.Errorf("alice's run under an id she cancelled first: %v", st)
	}
}
