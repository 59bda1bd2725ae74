package agentos

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/memory"
	storemem "github.com/agno-go/agno/storage/memory"
)

// Agents' memory and session summary managers are listed as
// memory_manager and session_summary_manager, id {owner_id}__{kind}.
func TestRegistryListsMemoryManagers(t *testing.T) {
	store := storemem.New()
	summarizer := fakeModel("anthropic", "claude-haiku")
	sm, err := memory.NewSummaryManager(memory.SummaryConfig{Model: summarizer, LastNRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	// One agent gets default managers built from its model and store, the
	// other its own managers; a third has none.
	auto := newAgent(t, agent.Config{Name: "Auto", Store: store, EnableUserMemories: true, EnableSessionSummaries: true})
	mm, err := memory.NewManager(memory.ManagerConfig{Model: fakeModel("openai", "gpt-5.4-mini"), Store: store, DeleteMemories: true})
	if err != nil {
		t.Fatal(err)
	}
	custom := newAgent(t, agent.Config{Name: "Custom", Store: store, MemoryManager: mm, SessionSummaryManager: sm})
	plain := newAgent(t, agent.Config{Name: "Plain", Store: store})
	o, err := New(Config{Store: store, Agents: []*agent.Agent{auto, custom, plain}})
	if err != nil {
		t.Fatal(err)
	}
	h := o.Handler()
	got := map[string]string{}
	for _, kind := range []ResourceType{ResourceMemoryManager, ResourceSessionSummaryManager} {
		for _, e := range listRegistry(t, h, url.Values{"resource_type": {string(kind)}}).Data {
			b, _ := json.Marshal(e)
			got[e.ID] = string(b)
		}
	}
	want := map[string]string{
		"auto__memory_manager": `{"name":"auto__memory_manager","type":"memory_manager","id":"auto__memory_manager","metadata":{"add_memories":true,"class_path":"agno.memory.manager.MemoryManager",` +
			`"clear_memories":false,"db_class":"github.com/agno-go/agno/storage/memory.Store","delete_memories":false,"model_class":"github.com/agno-go/agno/model/modeltest.Fake","model_id":"gpt-5.4","owner_id":"auto","owner_type":"agent","update_memories":true}}`,
		"custom__memory_manager": `{"name":"custom__memory_manager","type":"memory_manager","id":"custom__memory_manager","metadata":{"add_memories":true,"class_path":"agno.memory.manager.MemoryManager",` +
			`"clear_memories":false,"db_class":"github.com/agno-go/agno/storage/memory.Store","delete_memories":true,"model_class":"github.com/agno-go/agno/model/modeltest.Fake","model_id":"gpt-5.4-mini","owner_id":"custom","owner_type":"agent","update_memories":true}}`,
		"auto__session_summary_manager": `{"name":"auto__session_summary_manager","type":"session_summary_manager","id":"auto__session_summary_manager","metadata":{"class_path":"agno.session.summary.SessionSummaryManager",` +
			`"model_class":"github.com/agno-go/agno/model/modeltest.Fake","model_id":"gpt-5.4","owner_id":"auto","owner_type":"agent"}}`,
		"custom__session_summary_manager": `{"name":"custom__session_summary_manager","type":"session_summary_manager","id":"custom__session_summary_manager","metadata":{"class_path":"agno.session.summary.SessionSummaryManager",` +
			`"last_n_runs":3,"model_class":"github.com/agno-go/agno/model/modeltest.Fake","model_id":"claude-haiku","owner_id":"custom","owner_type":"agent"}}`,
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s:\n got %s\nwant %s", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("entries %v", got)
	}
	counts := o.registry().Counts()
	if counts[ResourceMemoryManager] != 2 || counts[ResourceSessionSummaryManager] != 2 {
		t.Errorf("counts %v", counts)
	}
	// The managers' own models are not listed as served models here; the
	// summarizer's is, through nothing else, absent.
	if p := listRegistry(t, h, url.Values{"resource_type": {"model"}, "name": {"claude-haiku"}}); p.Meta.TotalCount != 0 {
		t.Errorf("manager model listed as a model: %+v", p.Data)
	}
}
