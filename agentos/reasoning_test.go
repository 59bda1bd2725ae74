package agentos_test

import (
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
)

// A reasoning agent over HTTP: the SSE stream carries agno's Reasoning*
// events, and the session routes return the stored run's
// reasoning_content, reasoning_steps and reasoning_messages, on every
// storage backend.
func TestReasoningOverHTTP(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		steps := modeltest.New(
			modeltest.Response{Content: `{"reasoning_steps":[{"title":"Understand","reasoning":"Read it.","next_action":"continue","confidence":0.5}]}`},
			modeltest.Response{Content: `{"reasoning_steps":[{"title":"Answer","result":"42","next_action":"final_answer","confidence":1.0}]}`},
		)
		thinker, err := agent.New(agent.Config{ID: "thinker", Name: "Thinker", Store: st, Model: modeltest.New(modeltest.Response{Content: "It is 42."}),
			Reasoning: true, ReasoningModel: steps})
		if err != nil {
			t.Fatal(err)
		}
		o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{thinker}, Store: st, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(o.Handler())
		t.Cleanup(func() {
			srv.Close()
			_ = o.Close()
		})

		form := url.Values{"message": {"What is 6 times 7?"}, "stream": {"true"}, "session_id": {"s1"}}
		resp, err := srv.Client().PostForm(srv.URL+"/agents/thinker/runs", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var kinds []string
		var step map[string]any
		for _, e := range readSSE(t, resp) {
			kinds = append(kinds, e.name)
			if e.name == "ReasoningStep" && step == nil {
				step = e.data
			}
		}
		if got := strings.Join(kinds, " "); !strings.Contains(got, "RunStarted ReasoningStarted ReasoningStep ReasoningStep ReasoningCompleted") {
			t.Fatalf("SSE events: %s", got)
		}
		if step["content_type"] != "ReasoningStep" || obj(step["content"])["title"] != "Understand" || step["agent_id"] != "thinker" {
			t.Fatalf("ReasoningStep event: %v", step)
		}

		runs := list(mustCall(t, srv, 200, "GET", "/sessions/s1/runs?type=agent", nil))
		if len(runs) != 1 {
			t.Fatalf("runs: %v", runs)
		}
		r := obj(runs[0])
		stored := list(r["reasoning_steps"])
		if len(stored) != 2 || obj(stored[1])["result"] != "42" || obj(stored[1])["action"] != nil {
			t.Fatalf("reasoning_steps: %v", r["reasoning_steps"])
		}
		if r["reasoning_content"] != "## Answer\nResult: 42\n\n" || len(list(r["reasoning_messages"])) == 0 {
			t.Fatalf("reasoning_content %q, reasoning_messages %v", r["reasoning_content"], r["reasoning_messages"])
		}
	})
}
