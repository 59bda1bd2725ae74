package agentos_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/agno-go/agno/agentos"
)

// AgentOS stores every workflow run's events, as agno's AgentOS forces
// store_events for workflows: a foreground run and its HTTP continuation
// both leave their events with the run, whatever the workflow's own
// store_events says.
func TestWorkflowEventsStoredOverHTTP(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	const wf = "/workflows/workflow-hitl-step-confirmation"

	var paused map[string]any
	resp := postForm(t, srv, wf+"/runs", url.Values{"message": {"Q3"}, "stream": {"false"}, "session_id": {"s1"}})
	decode(t, resp, &paused)
	runID, _ := paused["run_id"].(string)
	if resp.StatusCode != http.StatusOK || paused["status"] != "PAUSED" || runID == "" {
		t.Fatalf("run: %d %v", resp.StatusCode, paused)
	}
	events := func() []string {
		r, err := srv.Client().Get(srv.URL + wf + "/runs/" + runID + "?session_id=s1")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var doc struct {
			Status string            `json:"status"`
			Events []json.RawMessage `json:"events"`
		}
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range doc.Events {
			var ev struct{ Event string }
			_ = json.Unmarshal(e, &ev)
			names = append(names, ev.Event)
		}
		return names
	}
	if got := events(); len(got) == 0 || got[0] != "WorkflowStarted" || got[len(got)-1] != "WorkflowPaused" {
		t.Fatalf("events of the paused run: %v", got)
	}
	reqs, _ := json.Marshal(paused["step_requirements"])
	var list []map[string]any
	_ = json.Unmarshal(reqs, &list)
	list[len(list)-1]["confirmed"] = true
	reqs, _ = json.Marshal(list)
	resp = postForm(t, srv, wf+"/runs/"+runID+"/continue", url.Values{"session_id": {"s1"}, "stream": {"false"}, "step_requirements": {string(reqs)}})
	var done map[string]any
	decode(t, resp, &done)
	if resp.StatusCode != http.StatusOK || done["status"] != "COMPLETED" {
		t.Fatalf("continue: %d %v", resp.StatusCode, done)
	}
	if got := events(); got[len(got)-1] != "WorkflowCompleted" {
		t.Fatalf("events after the continuation: %v", got)
	}
}
