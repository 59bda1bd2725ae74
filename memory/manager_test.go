package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	memstore "github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

var quiet = slog.New(slog.DiscardHandler)

func ptr[T any](v T) *T { return &v }

func seed(t testing.TB, st storage.Store, mems ...*storage.Memory) {
	t.Helper()
	for _, m := range mems {
		if err := st.UpsertMemory(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
}

func newManager(t testing.TB, cfg ManagerConfig) *Manager {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func golden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	// Golden files end with one newline the text does not have.
	return strings.TrimSuffix(string(b), "\n")
}

func toolNames(req *model.Request) []string {
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	return names
}

func toolDef(t *testing.T, req *model.Request, name string) model.ToolDefinition {
	t.Helper()
	for _, d := range req.Tools {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("tool %s not in request (have %v)", name, toolNames(req))
	return model.ToolDefinition{}
}

func get(t *testing.T, st storage.Store, id string) *storage.Memory {
	t.Helper()
	m, err := st.GetMemory(context.Background(), id)
	if err != nil {
		t.Fatalf("memory %s: %v", id, err)
	}
	return m
}

func TestCreateUserMemoriesWritesThroughTools(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	seed(t, st,
		&storage.Memory{MemoryID: "mem-1", Memory: "User's name is Ana", UserID: "ana", AgentID: "old-agent", Topics: []string{"name"}, CreatedAt: 100, UpdatedAt: 100},
		&storage.Memory{MemoryID: "mem-2", Memory: "User lives in Lisbon", UserID: "ana", CreatedAt: 200, UpdatedAt: 200},
		&storage.Memory{MemoryID: "bob-1", Memory: "User is Bob", UserID: "bob", CreatedAt: 50, UpdatedAt: 50},
	)
	fake := modeltest.New(
		modeltest.Response{Content: "Updating.", ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "add_memory", `{"memory":"User likes Go","topics":["programming","preferences"]}`),
			modeltest.ToolCall("c2", "update_memory", `{"memory_id":"mem-1","memory":"User's name is Ana Silva","topics":["name"]}`),
			modeltest.ToolCall("c3", "delete_memory", `{"memory_id":"mem-2"}`),
		}},
		modeltest.Response{Content: " Done."},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	msgs := []model.Message{{Role: model.RoleUser, Content: "I'm Ana Silva, I moved away and I like Go"}}

	got, err := m.CreateUserMemories(ctx, "ana", msgs, "agent-1", "team-1")
	if err != nil {
		t.Fatal(err)
	}

	// The model saw agno's prompt with the existing memories, then the run's messages.
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model calls = %d, want 2", len(reqs))
	}
	first := reqs[0]
	if first.Messages[0].Role != model.RoleSystem || first.Messages[0].Content != golden(t, "manager_system_auto.golden") {
		t.Errorf("system message:\n%s", first.Messages[0].Content)
	}
	if len(first.Messages) != 2 || first.Messages[1].Content != msgs[0].Content || first.Messages[1].Role != model.RoleUser {
		t.Errorf("messages after system = %+v", first.Messages[1:])
	}
	if names := toolNames(first); !slices.Equal(names, []string{"add_memory", "delete_memory", "update_memory"}) {
		t.Errorf("tools = %v, want add/delete/update sorted, no clear_memory", names)
	}
	add := toolDef(t, first, "add_memory")
	if !add.Strict || add.Description != "Use this function to add a memory to the database." {
		t.Errorf("add_memory = %+v", add)
	}
	wantAdd := `{"type":"object","properties":{"memory":{"type":"string","description":"(str) The memory to be added."},"topics":{"type":"array","items":{"type":"string"},"description":"(Optional[List[str]]) The topics of the memory (e.g. [\"name\", \"hobbies\", \"location\"])."}},"additionalProperties":false,"required":["memory","topics"]}`
	if string(add.Parameters) != wantAdd {
		t.Errorf("add_memory parameters:\n%s\nwant\n%s", add.Parameters, wantAdd)
	}
	upd := toolDef(t, first, "update_memory")
	if upd.Description != "Use this function to update an existing memory in the database." ||
		!strings.Contains(string(upd.Parameters), `"memory_id":{"type":"string","description":"(str) The id of the memory to be updated."},"memory":{"type":"string","description":"(str) The updated memory."}`) ||
		!strings.HasSuffix(string(upd.Parameters), `"additionalProperties":false,"required":["memory_id","memory","topics"]}`) {
		t.Errorf("update_memory = %s %s", upd.Description, upd.Parameters)
	}
	del := toolDef(t, first, "delete_memory")
	if del.Description != "Use this function to delete a single memory from the database." ||
		string(del.Parameters) != `{"type":"object","properties":{"memory_id":{"type":"string","description":"(str) The id of the memory to be deleted."}},"additionalProperties":false,"required":["memory_id"]}` {
		t.Errorf("delete_memory = %s %s", del.Description, del.Parameters)
	}

	// The second call carries the tool results in call order.
	second := reqs[1].Messages
	if len(second) != 6 {
		t.Fatalf("second request has %d messages, want system, user, assistant, 3 tool results", len(second))
	}
	if second[2].Role != model.RoleAssistant || len(second[2].ToolCalls) != 3 || second[2].Content != "Updating." {
		t.Errorf("assistant turn = %+v", second[2])
	}
	for i, want := range []struct{ id, text string }{{"c1", "Memory added successfully"}, {"c2", "Memory updated successfully"}, {"c3", "Memory deleted successfully"}} {
		tm := second[3+i]
		if tm.Role != model.RoleTool || tm.ToolCallID != want.id || tm.Content != want.text || tm.ToolCallError {
			t.Errorf("tool result %d = %+v, want %s %q", i, tm, want.id, want.text)
		}
	}

	// The store holds the result; the returned list is the user's memories, oldest first.
	if len(got) != 2 || got[0].MemoryID != "mem-1" {
		t.Fatalf("returned memories = %+v", got)
	}
	updated := get(t, st, "mem-1")
	if updated.Memory != "User's name is Ana Silva" || updated.CreatedAt != 100 || updated.UpdatedAt < 100 ||
		updated.AgentID != "old-agent" || updated.Input != msgs[0].Content || !slices.Equal(updated.Topics, []string{"name"}) {
		t.Errorf("updated memory = %+v", updated)
	}
	if _, err := st.GetMemory(ctx, "mem-2"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("mem-2 still there: %v", err)
	}
	added := got[1]
	if !uuidRE.MatchString(added.MemoryID) || added.Memory != "User likes Go" || added.UserID != "ana" ||
		added.AgentID != "agent-1" || added.TeamID != "team-1" || added.Input != msgs[0].Content ||
		!slices.Equal(added.Topics, []string{"programming", "preferences"}) || added.CreatedAt == 0 || added.UpdatedAt != added.CreatedAt {
		t.Errorf("added memory = %+v", added)
	}
	if b := get(t, st, "bob-1"); b.Memory != "User is Bob" {
		t.Errorf("bob's memory changed: %+v", b)
	}
}

func TestCreateUserMemoriesInputAndFlags(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", `{'memory': 'User plays chess', 'topics': None}`)}},
		modeltest.Response{},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st, UpdateMemories: ptr(false), ClearMemories: true, DeleteMemories: false})
	msgs := []model.Message{
		{Role: model.RoleUser, Content: "I play chess"},
		{Role: model.RoleAssistant, Content: "Nice"},
		{Role: model.RoleUser, Content: ""},
		{Role: model.RoleUser, Content: "on Sundays"},
	}
	got, err := m.CreateUserMemories(ctx, "", msgs, "", "")
	if err != nil {
		t.Fatal(err)
	}
	req := fake.Requests()[0]
	// Automatic mode: update per flag, delete always, clear never.
	if names := toolNames(req); !slices.Equal(names, []string{"add_memory", "delete_memory"}) {
		t.Errorf("tools = %v", names)
	}
	sys := req.Messages[0].Content
	if strings.Contains(sys, "update_memory") || strings.Contains(sys, "clear_memory") || !strings.Contains(sys, "using the `delete_memory` tool.") {
		t.Errorf("system message offers the wrong tools:\n%s", sys)
	}
	if strings.Contains(sys, "\n<existing_memories>\n") {
		t.Error("existing memories block without memories")
	}
	if len(got) != 1 || got[0].UserID != DefaultUserID || got[0].Input != "I play chess, on Sundays" || got[0].Topics != nil || got[0].Memory != "User plays chess" {
		t.Errorf("memories = %+v", got)
	}
	if len(req.Messages) != 5 {
		t.Errorf("the run's messages are passed on as given: %d messages", len(req.Messages))
	}
}

func TestCreateUserMemoriesClearIsNotOffered(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	seed(t, st, &storage.Memory{MemoryID: "m1", Memory: "User likes tea", UserID: "u", CreatedAt: 1, UpdatedAt: 1})
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "clear_memory", `{}`)}},
		modeltest.Response{Content: "ok"},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st, ClearMemories: true})
	if _, err := m.CreateUserMemories(ctx, "u", []model.Message{{Role: model.RoleUser, Content: "forget everything"}}, "", ""); err != nil {
		t.Fatal(err)
	}
	res := fake.Requests()[1].Messages[3]
	if res.Content != "Error: The requested tool does not exist or is not available." || !res.ToolCallError {
		t.Errorf("clear_memory result = %+v", res)
	}
	if mems, _ := m.UserMemories(ctx, "u"); len(mems) != 1 {
		t.Errorf("memories cleared in automatic mode: %+v", mems)
	}
}

func TestCreateUserMemoriesNeedsMessages(t *testing.T) {
	fake := modeltest.New()
	m := newManager(t, ManagerConfig{Model: fake, Store: memstore.New()})
	if _, err := m.CreateUserMemories(context.Background(), "u", nil, "", ""); !errors.Is(err, ErrNoMessages) {
		t.Fatalf("err = %v", err)
	}
	if fake.Calls() != 0 {
		t.Error("model called without messages")
	}
}

func TestToolsStayWithinTheUser(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	seed(t, st,
		&storage.Memory{MemoryID: "ana-1", Memory: "User is Ana", UserID: "ana", CreatedAt: 1, UpdatedAt: 1},
		&storage.Memory{MemoryID: "bob-1", Memory: "User is Bob", UserID: "bob", CreatedAt: 1, UpdatedAt: 1},
	)
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "update_memory", `{"memory_id":"bob-1","memory":"hijacked","topics":null}`),
			modeltest.ToolCall("c2", "update_memory", `{"memory_id":"made-up","memory":"invented","topics":null}`),
			modeltest.ToolCall("c3", "delete_memory", `{"memory_id":"bob-1"}`),
			modeltest.ToolCall("c4", "update_memory", `{"memory_id":"ana-1","memory":"","topics":null}`),
			modeltest.ToolCall("c5", "add_memory", `{"memory":42}`),
		}},
		modeltest.Response{Content: "done"},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	if _, err := m.CreateUserMemories(ctx, "ana", []model.Message{{Role: model.RoleUser, Content: "hi"}}, "", ""); err != nil {
		t.Fatal(err)
	}
	results := fake.Requests()[1].Messages[3:]
	want := []string{
		`Error adding memory: memory "bob-1" not found for this user`,
		`Error adding memory: memory "made-up" not found for this user`,
		"Memory deleted successfully", // agno's answer for a delete that matched nothing
		"Can't update memory with empty string. Use the delete memory function if available.",
	}
	for i, w := range want {
		if results[i].Content != w {
			t.Errorf("result %d = %q, want %q", i, results[i].Content, w)
		}
	}
	if !results[4].ToolCallError || !strings.Contains(results[4].Content, "1 validation error for add_memory\nmemory\n  Input should be a valid string [type=string_type, input_value=42, input_type=int]") {
		t.Errorf("bad arguments result = %+v", results[4])
	}
	if b := get(t, st, "bob-1"); b.Memory != "User is Bob" {
		t.Errorf("bob's memory = %+v", b)
	}
	if _, err := st.GetMemory(ctx, "made-up"); !errors.Is(err, storage.ErrNotFound) {
		t.Error("update created a memory under a made-up id")
	}
	if a := get(t, st, "ana-1"); a.Memory != "User is Ana" {
		t.Errorf("ana's memory = %+v", a)
	}
}

func TestUpdateMemoryTaskFlags(t *testing.T) {
	ctx := context.Background()
	t.Run("defaults: add and update only", func(t *testing.T) {
		st := memstore.New()
		seed(t, st, &storage.Memory{MemoryID: "m1", Memory: "User likes tea", UserID: "u", CreatedAt: 1, UpdatedAt: 1})
		fake := modeltest.New(
			modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "delete_memory", `{"memory_id":"m1"}`)}},
			modeltest.Response{Content: "I can't delete memories."},
		)
		m := newManager(t, ManagerConfig{Model: fake, Store: st})
		out, err := m.UpdateMemoryTask(ctx, "u", "Forget that I like tea", "agent-1", "")
		if err != nil {
			t.Fatal(err)
		}
		if out != "I can't delete memories." {
			t.Errorf("answer = %q", out)
		}
		req := fake.Requests()[0]
		if names := toolNames(req); !slices.Equal(names, []string{"add_memory", "update_memory"}) {
			t.Errorf("tools = %v", names)
		}
		if len(req.Messages) != 2 || req.Messages[1].Role != model.RoleUser || req.Messages[1].Content != "Forget that I like tea" {
			t.Errorf("messages = %+v", req.Messages)
		}
		sys := req.Messages[0].Content
		if !strings.Contains(sys, "ID: m1\nMemory: User likes tea\n") || strings.Contains(sys, "delete_memory") {
			t.Errorf("system message:\n%s", sys)
		}
		if mems, _ := m.UserMemories(ctx, "u"); len(mems) != 1 {
			t.Error("memory deleted although delete is disabled")
		}
	})
	t.Run("delete and clear enabled, add disabled", func(t *testing.T) {
		st := memstore.New()
		seed(t, st,
			&storage.Memory{MemoryID: "u-1", Memory: "a", UserID: "u", CreatedAt: 1, UpdatedAt: 1},
			&storage.Memory{MemoryID: "u-2", Memory: "b", UserID: "u", CreatedAt: 2, UpdatedAt: 2},
			&storage.Memory{MemoryID: "v-1", Memory: "c", UserID: "v", CreatedAt: 1, UpdatedAt: 1},
		)
		fake := modeltest.New(
			modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "clear_memory", `{}`)}},
			modeltest.Response{Content: "All memories cleared."},
		)
		m := newManager(t, ManagerConfig{Model: fake, Store: st, AddMemories: ptr(false), DeleteMemories: true, ClearMemories: true})
		if _, err := m.UpdateMemoryTask(ctx, "u", "clear all my memories", "", ""); err != nil {
			t.Fatal(err)
		}
		req := fake.Requests()[0]
		if names := toolNames(req); !slices.Equal(names, []string{"clear_memory", "delete_memory", "update_memory"}) {
			t.Errorf("tools = %v", names)
		}
		clear := toolDef(t, req, "clear_memory")
		if clear.Description != "Use this function to remove all (or clear all) memories from the database." ||
			string(clear.Parameters) != `{"type":"object","properties":{},"additionalProperties":false,"required":[]}` || !clear.Strict {
			t.Errorf("clear_memory = %+v", clear)
		}
		sys := req.Messages[0].Content
		for _, line := range []string{"  - Decide to update an existing memory, using the `update_memory` tool.\n  - Decide to delete an existing memory, using the `delete_memory` tool.\n  - Decide to clear all memories, using the `clear_memory` tool.\n"} {
			if !strings.Contains(sys, line) {
				t.Errorf("system message lacks %q", line)
			}
		}
		if strings.Contains(sys, "add_memory") {
			t.Error("add_memory offered although disabled")
		}
		if got := fake.Requests()[1].Messages[3].Content; got != "Memory cleared successfully" {
			t.Errorf("clear result = %q", got)
		}
		if mems, _ := m.UserMemories(ctx, "u"); len(mems) != 0 {
			t.Errorf("u still has %d memories", len(mems))
		}
		if mems, _ := m.UserMemories(ctx, "v"); len(mems) != 1 {
			t.Errorf("clear_memory touched another user: v has %d memories", len(mems))
		}
	})
}

func TestSystemMessageOptions(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	seed(t, st, &storage.Memory{MemoryID: "m1", Memory: "User likes tea", UserID: "u", CreatedAt: 1, UpdatedAt: 1})
	fake := modeltest.New(modeltest.Response{Content: "nothing to do"})

	m := newManager(t, ManagerConfig{Model: fake, Store: st, CaptureInstructions: "Only capture food preferences.", AdditionalInstructions: "Answer in one word."})
	if _, err := m.UpdateMemoryTask(ctx, "u", "x", "", ""); err != nil {
		t.Fatal(err)
	}
	sys := fake.Requests()[0].Messages[0].Content
	if !strings.Contains(sys, "<memories_to_capture>\nOnly capture food preferences.\n</memories_to_capture>") ||
		!strings.HasSuffix(sys, "</existing_memories>\nAnswer in one word.") {
		t.Errorf("system message:\n%s", sys)
	}

	m = newManager(t, ManagerConfig{Model: fake, Store: st, SystemMessage: "You manage memories."})
	if _, err := m.UpdateMemoryTask(ctx, "u", "x", "", ""); err != nil {
		t.Fatal(err)
	}
	if sys := fake.Requests()[1].Messages[0].Content; sys != "You manage memories." {
		t.Errorf("custom system message = %q", sys)
	}
}

func TestManagerToolAgenticEntryPoint(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", `{"memory":"User likes tea","topics":["drinks"]}`)}},
		modeltest.Response{Content: "I'll remember that you like tea."},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	f := m.Tool()
	def := f.Definition()
	if def.Name != "update_user_memory" || def.Strict ||
		def.Description != "Use this function to update the Agent's memory of a user.\nDescribe the task in detail and be specific.\nThe task can include adding a memory, updating a memory, deleting a memory, or clearing all memories." ||
		string(def.Parameters) != `{"type":"object","properties":{"task":{"type":"string","description":"The task to update the memory. Be specific and describe the task in detail."}},"required":["task"],"additionalProperties":false}` {
		t.Errorf("definition = %+v (%s)", def, def.Parameters)
	}

	rc := run.NewContext(nil)
	rc.UserID, rc.AgentID, rc.TeamID = "alice", "agent-a", "team-a"
	args := f.DecodeArguments(`{"task":"Remember that Alice likes tea"}`)
	res, err := f.Invoke(run.WithContext(ctx, rc), &tool.Call{Function: f, ToolCallID: "t1"}, args.Values)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "I'll remember that you like tea." {
		t.Errorf("tool result = %q", res.Content)
	}
	mems, err := m.UserMemories(ctx, "alice")
	if err != nil || len(mems) != 1 {
		t.Fatalf("alice's memories = %+v, %v", mems, err)
	}
	if mems[0].AgentID != "agent-a" || mems[0].TeamID != "team-a" || mems[0].Input != "Remember that Alice likes tea" {
		t.Errorf("memory = %+v", mems[0])
	}

	// Outside a run the default user is meant.
	fake2 := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", `{"memory":"x","topics":[]}`)}},
		modeltest.Response{Content: "ok"},
	)
	m2 := newManager(t, ManagerConfig{Model: fake2, Store: st})
	if _, err := m2.Tool().Invoke(ctx, &tool.Call{Function: m2.Tool()}, map[string]any{"task": "x"}); err != nil {
		t.Fatal(err)
	}
	if mems, _ := m2.UserMemories(ctx, ""); len(mems) != 1 || mems[0].UserID != "default" {
		t.Errorf("default user's memories = %+v", mems)
	}
	if _, err := m2.Tool().Invoke(ctx, &tool.Call{Function: m2.Tool()}, map[string]any{}); err == nil || !strings.Contains(err.Error(), "task") {
		t.Errorf("missing task: err = %v", err)
	}
}

func TestUserMemoriesScopedAndOrdered(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	seed(t, st,
		&storage.Memory{MemoryID: "b", Memory: "second", UserID: "u", CreatedAt: 20, UpdatedAt: 90},
		&storage.Memory{MemoryID: "a", Memory: "first", UserID: "u", CreatedAt: 10, UpdatedAt: 95},
		&storage.Memory{MemoryID: "c", Memory: "other user", UserID: "w", CreatedAt: 5, UpdatedAt: 5},
		&storage.Memory{MemoryID: "d", Memory: "nobody's", UserID: "default", CreatedAt: 5, UpdatedAt: 5},
	)
	m := newManager(t, ManagerConfig{Model: modeltest.New(), Store: st})
	mems, err := m.UserMemories(ctx, "u")
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 2 || mems[0].Memory != "first" || mems[1].Memory != "second" {
		t.Errorf("u's memories = %+v", mems)
	}
	if mems, _ := m.UserMemories(ctx, ""); len(mems) != 1 || mems[0].MemoryID != "d" {
		t.Errorf(`"" is the default user: %+v`, mems)
	}
}

func TestModelErrorsAreReturned(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("connection reset")
	msgs := []model.Message{{Role: model.RoleUser, Content: "hi"}}

	m := newManager(t, ManagerConfig{Model: modeltest.New(modeltest.Response{Err: boom}), Store: memstore.New()})
	if _, err := m.CreateUserMemories(ctx, "u", msgs, "", ""); !errors.Is(err, boom) {
		t.Errorf("CreateUserMemories err = %v", err)
	}
	m = newManager(t, ManagerConfig{Model: modeltest.New(modeltest.Response{Status: 503}), Store: memstore.New()})
	_, err := m.UpdateMemoryTask(ctx, "u", "x", "", "")
	if pe, ok := model.AsProviderError(err); !ok || pe.StatusCode != 503 {
		t.Errorf("UpdateMemoryTask err = %v", err)
	}
	// A failing model must not leave half the tools' work unreported: the
	// error comes back even after a successful tool round.
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", `{"memory":"x","topics":[]}`)}},
		modeltest.Response{Err: boom},
	)
	m = newManager(t, ManagerConfig{Model: fake, Store: memstore.New()})
	if _, err := m.CreateUserMemories(ctx, "u", msgs, "", ""); !errors.Is(err, boom) {
		t.Errorf("second-round err = %v", err)
	}
}

func TestStoreErrorsReachTheModel(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: last.Content}
		}
		_ = st.Close() // the store fails under the tool
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", `{"memory":"x","topics":[]}`)}}
	})
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	out, err := m.UpdateMemoryTask(ctx, "u", "remember x", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if out != "Error adding memory: "+storage.ErrClosed.Error() {
		t.Errorf("answer = %q", out)
	}
}

func TestToolLoopIsBounded(t *testing.T) {
	fake := modeltest.New(modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "update_memory", `{"memory_id":"nope","memory":"x","topics":[]}`)}})
	m := newManager(t, ManagerConfig{Model: fake, Store: memstore.New()})
	_, err := m.UpdateMemoryTask(context.Background(), "u", "x", "", "")
	if !errors.Is(err, ErrToolLoop) {
		t.Fatalf("err = %v", err)
	}
	if fake.Calls() != maxToolRounds {
		t.Errorf("model calls = %d, want %d", fake.Calls(), maxToolRounds)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fake := modeltest.New()
	m := newManager(t, ManagerConfig{Model: fake, Store: memstore.New()})
	if _, err := m.UpdateMemoryTask(ctx, "u", "x", "", ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if fake.Calls() != 0 {
		t.Error("model called with a cancelled context")
	}
}

func TestNewManagerValidates(t *testing.T) {
	if _, err := NewManager(ManagerConfig{Store: memstore.New()}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "ManagerConfig.Model") {
		t.Errorf("no model: %v", err)
	}
	if _, err := NewManager(ManagerConfig{Model: modeltest.New()}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "ManagerConfig.Store") {
		t.Errorf("no store: %v", err)
	}
}

// One manager serves many runs at once; each run writes for its own user.
func TestConcurrentUsers(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	fake := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "saved"}
		}
		user := strings.TrimPrefix(last.Content, "I am ")
		args, _ := json.Marshal(map[string]any{"memory": "User is " + user, "topics": []string{"name"}})
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add_memory", string(args))}}
	})
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	const users = 16
	var wg sync.WaitGroup
	errs := make(chan error, users)
	for i := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("user-%d", i)
			_, err := m.CreateUserMemories(ctx, user, []model.Message{{Role: model.RoleUser, Content: "I am " + user}}, "", "")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range users {
		user := fmt.Sprintf("user-%d", i)
		mems, err := m.UserMemories(ctx, user)
		if err != nil || len(mems) != 1 || mems[0].Memory != "User is "+user {
			t.Errorf("%s: %+v %v", user, mems, err)
		}
	}
}

func TestMemoryIDs(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for range 1000 {
		id := newMemoryID()
		if !uuidRE.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		if id[:13] < prev[:min(13, len(prev))] {
			t.Fatalf("id %s sorts before earlier %s", id, prev)
		}
		seen[id], prev = true, id
	}
}
