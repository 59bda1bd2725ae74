package agentos_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
)

// POST /optimize-memories merges a user's memories with one model call
// (agno's summarize strategy), through an OpenAI-wire model.
func TestOptimizeMemories(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{APIKey: "sk-test", Responder: func(req *model.Request) modeltest.Response {
		return modeltest.Response{Content: "  Alice likes green tea, has a dog and works at night.  "}
	}})
	defer fake.Close()
	m, err := openai.New(openai.Config{ID: "gpt-4o-mini", BaseURL: fake.URL, APIKey: "sk-test", HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Chat", Model: m, Store: store, EnableUserMemories: true})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(srv.Close)
	ctx := context.Background()
	seed := func() {
		for i, mem := range []storage.Memory{
			{MemoryID: "m1", Memory: "Likes green tea", Topics: []string{"food"}, UserID: "alice", AgentID: "chat"},
			{MemoryID: "m2", Memory: "Has a dog named Rex", Topics: []string{"pets", "food"}, UserID: "alice", AgentID: "chat"},
			{MemoryID: "m3", Memory: "Works at night", UserID: "alice", AgentID: "chat"},
			{MemoryID: "b1", Memory: "Bob's memory", UserID: "bob"},
		} {
			mem.CreatedAt, mem.UpdatedAt = int64(1000+i), int64(1000+i)
			if err := store.UpsertMemory(ctx, &mem); err != nil {
				t.Fatal(err)
			}
		}
	}
	seed()

	// Preview: nothing changes.
	out := obj(mustCall(t, srv, 200, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "model": "openai:gpt-4o-mini", "apply": false}))
	mems := list(out["memories"])
	merged := obj(mems[0])
	if len(mems) != 1 || merged["memory"] != "Alice likes green tea, has a dog and works at night." || merged["user_id"] != "alice" ||
		merged["agent_id"] != "chat" || merged["team_id"] != nil || strings.Join(strs(merged["topics"]), ",") != "food,pets" {
		t.Fatalf("merged memory %v", merged)
	}
	wantISO(t, "updated_at", merged["updated_at"])
	// Tokens are a quarter of the characters, as agno counts without tiktoken.
	before := len("Likes green tea")/4 + len("Has a dog named Rex")/4 + len("Works at night")/4
	after := len("Alice likes green tea, has a dog and works at night.") / 4
	if out["memories_before"] != 3.0 || out["memories_after"] != 1.0 || out["tokens_before"] != float64(before) ||
		out["tokens_after"] != float64(after) || out["tokens_saved"] != 0.0 || out["reduction_percentage"] != 0.0 {
		t.Fatalf("counts %v (before %d after %d)", out, before, after)
	}
	if got, _, _ := store.ListMemories(ctx, storage.MemoryQuery{UserID: "alice"}); len(got) != 3 {
		t.Fatalf("apply=false changed the memories: %d left", len(got))
	}
	// The model got agno's prompt with every memory, oldest first.
	reqs := fake.Requests()
	var body struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	if err := reqs[len(reqs)-1].Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "gpt-4o-mini" || len(body.Messages) != 2 || !strings.HasPrefix(body.Messages[0].Content, "You are a memory compression assistant.") ||
		body.Messages[1].Content != "Summarize these memories into a single summary:\n\nMemory 1: Likes green tea\n\nMemory 2: Has a dog named Rex\n\nMemory 3: Works at night" {
		t.Fatalf("model request %+v", body)
	}

	// Applied (the default), with the memory manager's model.
	calls := fake.Calls()
	out = obj(mustCall(t, srv, 200, "POST", "/optimize-memories", map[string]any{"user_id": "alice"}))
	if fake.Calls() != calls+1 {
		t.Fatalf("the memory manager's model was not used")
	}
	id := obj(list(out["memories"])[0])["memory_id"].(string)
	left, _, _ := store.ListMemories(ctx, storage.MemoryQuery{UserID: "alice"})
	if len(left) != 1 || left[0].MemoryID != id || left[0].Memory != "Alice likes green tea, has a dog and works at night." {
		t.Fatalf("after apply: %+v", left)
	}
	if bob, _, _ := store.ListMemories(ctx, storage.MemoryQuery{UserID: "bob"}); len(bob) != 1 {
		t.Fatalf("another user's memories changed: %+v", bob)
	}

	wantDetail(t, mustCall(t, srv, 404, "POST", "/optimize-memories", map[string]any{"user_id": "carol"}), "No memories found for user carol")
	wantFieldError(t, mustCall(t, srv, 422, "POST", "/optimize-memories", map[string]any{"model": "openai:gpt-4o-mini"}), "body", "user_id")
	wantFieldError(t, mustCall(t, srv, 422, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "apply": "yes please"}), "body", "apply")
	wantDetail(t, mustCall(t, srv, 400, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "model": "gpt-4o"}),
		"Invalid model string format: 'gpt-4o'. Model strings should be in format '<provider>:<model_id>' e.g. 'openai:gpt-4o'")
	v := mustCall(t, srv, 400, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "model": "nope:x"})
	if d, _ := obj(v)["detail"].(string); !strings.HasPrefix(d, "Model provider 'nope' is not supported") {
		t.Fatalf("unknown provider: %v", v)
	}
	// A model the OS does not serve is built from its key variable; with
	// no key it is the client's choice (400) or a default the server
	// cannot use (503), never a 500.
	t.Setenv("OPENAI_API_KEY", "")
	v = mustCall(t, srv, 400, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "model": "openai:gpt-4.1"})
	if d, _ := obj(v)["detail"].(string); !strings.HasPrefix(d, "Failed to optimize memories: model 'openai:gpt-4.1' cannot be used") ||
		!strings.Contains(d, "OPENAI_API_KEY") || !strings.Contains(d, "model field") {
		t.Fatalf("missing key: %v", v)
	}
	bare, err := agentos.New(agentos.Config{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	bareSrv := httptest.NewServer(bare.Handler())
	defer bareSrv.Close()
	v = mustCall(t, bareSrv, 503, "POST", "/optimize-memories", map[string]any{"user_id": "alice"})
	if d, _ := obj(v)["detail"].(string); !strings.Contains(d, "model 'openai:gpt-4o' cannot be used") || !strings.Contains(d, "OPENAI_API_KEY") {
		t.Fatalf("missing key of the default model: %v", v)
	}
	// A model that fails leaves the memories as they were.
	seed()
	failing := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Status: 400, ErrorMessage: "boom"}}})
	defer failing.Close()
	bad, _ := openai.New(openai.Config{ID: "broken", BaseURL: failing.URL, APIKey: "k", MaxRetries: -1, HTTPClient: failing.Client()})
	b, _ := agent.New(agent.Config{Name: "Broken", Model: bad})
	if err := o.Replace(agentos.Catalog{Agents: []*agent.Agent{a, b}}); err != nil {
		t.Fatal(err)
	}
	v = mustCall(t, srv, 502, "POST", "/optimize-memories", map[string]any{"user_id": "alice", "model": "openai:broken"})
	if d, _ := obj(v)["detail"].(string); !strings.HasPrefix(d, "Failed to optimize memories: the model call failed: ") {
		t.Fatalf("model failure: %v", v)
	}
	if got, _, _ := store.ListMemories(ctx, storage.MemoryQuery{UserID: "alice"}); len(got) != 4 {
		t.Fatalf("a failed optimisation changed the memories: %d", len(got))
	}
}

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, x.(string))
	}
	return out
}
