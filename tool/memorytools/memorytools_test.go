package memorytools_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/memorytools"
	"github.com/agno-go/agno/tool/tooltest"
)

// sqliteStore is a real SQLite store in the test's directory.
func sqliteStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestConformance runs the toolkit suite on [toolkits.memory_tools]
// against agno v2.6.13's MemoryTools (tools/memory.py) with its
// defaults.
func TestConformance(t *testing.T) {
	// Outside a run there is no user whose memories to act on, and no
	// session state for the notes.
	const noRun = "has no run"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "memory_tools",
		Name:    "memory_tools",
		Functions: []tooltest.Function{
			{Name: "think", Args: []string{"thought"}},
			{Name: "get_memories"},
			{Name: "add_memory", Args: []string{"memory", "topics"}},
			{Name: "update_memory", Args: []string{"memory_id", "memory", "topics"}},
			{Name: "delete_memory", Args: []string{"memory_id"}},
			{Name: "analyze", Args: []string{"analysis"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			st := sqliteStore(t)
			env.Resolve = func(kind, name string) (any, error) {
				if kind != tool.ResourceStore {
					t.Errorf("resolved %s %q", kind, name)
				}
				return st, nil
			}
			return ""
		},
		Failures: map[string][]tooltest.Call{
			"think":         {{Args: `{"thought": "x"}`, Want: noRun}},
			"get_memories":  {{Args: `{}`, Want: noRun}},
			"add_memory":    {{Args: `{"memory": "m"}`, Want: noRun}},
			"update_memory": {{Args: `{"memory_id": "m1"}`, Want: noRun}},
			"delete_memory": {{Args: `{"memory_id": "m1"}`, Want: noRun}},
			"analyze":       {{Args: `{"analysis": "x"}`, Want: noRun}},
		},
		Unbounded: "get_memories returns the user's memories, which the memory tools and manager wrote",
		BadOptions: []tooltest.BadOption{
			{Table: "enable_get_memory = false", Key: "enable_get_memory"},
		},
	})
}

// call runs one tool of tk inside a run of user.
func call(t *testing.T, tk *tool.Toolkit, rc *run.Context, name, args string) map[string]any {
	t.Helper()
	fns, err := tk.Functions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if f.Name != name {
			continue
		}
		a := f.DecodeArguments(args)
		if a.Error != "" {
			t.Fatalf("%s(%s): %s", name, args, a.Error)
		}
		res, err := f.InvokeArgs(run.WithContext(context.Background(), rc), &tool.Call{Function: f}, a)
		if err != nil {
			t.Fatalf("%s(%s): %v", name, args, err)
		}
		var out map[string]any
		if strings.HasPrefix(res.Content, "[") {
			var list []any
			if err := json.Unmarshal([]byte(res.Content), &list); err != nil {
				t.Fatalf("%s: %q: %v", name, res.Content, err)
			}
			return map[string]any{"list": list, "text": res.Content}
		}
		if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
			t.Fatalf("%s: %q: %v", name, res.Content, err)
		}
		out["text"] = res.Content
		return out
	}
	t.Fatalf("no function %s", name)
	return nil
}

// add, get, update and delete against real SQLite storage, each acting on
// the run's user only, each answered as agno's JSON and recorded in
// memory_operations.
func TestMemoryOperations(t *testing.T) {
	st := sqliteStore(t)
	ctx := context.Background()
	// Another user's memory: never listed, updated or deleted.
	if err := st.UpsertMemory(ctx, &storage.Memory{MemoryID: "other", Memory: "Bob's secret", UserID: "bob"}); err != nil {
		t.Fatal(err)
	}
	tk, err := memorytools.New(memorytools.Config{Store: st, All: true})
	if err != nil {
		t.Fatal(err)
	}
	rc := run.NewContext(nil)
	rc.UserID = "ann"

	added := call(t, tk, rc, "add_memory", `{"memory": "Ann is vegetarian", "topics": ["food"]}`)
	mem, _ := added["memory"].(map[string]any)
	id, _ := mem["memory_id"].(string)
	if added["success"] != true || added["operation"] != "add_memory" || id == "" || mem["user_id"] != "ann" || mem["memory"] != "Ann is vegetarian" {
		t.Fatalf("add_memory: %v", added)
	}
	if !strings.HasPrefix(added["text"].(string), "{\n  \"success\": true,\n  \"operation\": \"add_memory\",\n  \"memory\": {\n    \"memory_id\": ") {
		t.Errorf("add_memory is not json.dumps(indent=2): %s", added["text"])
	}
	if stored, err := st.GetMemory(ctx, id); err != nil || stored.Memory != "Ann is vegetarian" || stored.UserID != "ann" || strings.Join(stored.Topics, ",") != "food" {
		t.Fatalf("stored %+v %v", stored, err)
	}

	got := call(t, tk, rc, "get_memories", `{}`)
	list, _ := got["list"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["memory_id"] != id {
		t.Fatalf("get_memories: %s", got["text"])
	}

	updated := call(t, tk, rc, "update_memory", `{"memory_id": "`+id+`", "memory": "Ann is pescatarian"}`)
	if updated["success"] != true || updated["memory"].(map[string]any)["memory"] != "Ann is pescatarian" {
		t.Fatalf("update_memory: %v", updated)
	}
	if stored, _ := st.GetMemory(ctx, id); stored.Memory != "Ann is pescatarian" || strings.Join(stored.Topics, ",") != "food" {
		t.Errorf("update kept the topics? %+v", stored)
	}

	for _, fn := range []string{"update_memory", "delete_memory"} {
		r := call(t, tk, rc, fn, `{"memory_id": "other", "memory": "x"}`)
		if r["success"] != false || r["error"] != "Memory with ID other not found" {
			t.Errorf("%s of bob's memory: %v", fn, r)
		}
	}
	if m, err := st.GetMemory(ctx, "other"); err != nil || m.Memory != "Bob's secret" {
		t.Errorf("bob's memory: %+v %v", m, err)
	}

	deleted := call(t, tk, rc, "delete_memory", `{"memory_id": "`+id+`"}`)
	if deleted["success"] != true || deleted["memory_id"] != id || deleted["deleted_memory"].(map[string]any)["memory"] != "Ann is pescatarian" {
		t.Fatalf("delete_memory: %v", deleted)
	}
	if _, err := st.GetMemory(ctx, id); err == nil {
		t.Errorf("the memory is still stored")
	}
	if got := call(t, tk, rc, "get_memories", `{}`); got["text"] != "[]" {
		t.Errorf("get_memories after delete: %s", got["text"])
	}

	ops, _ := rc.StateSnapshot()["memory_operations"].([]any)
	var names []string
	for _, o := range ops {
		names = append(names, o.(map[string]any)["operation"].(string))
	}
	if strings.Join(names, ",") != "add_memory,get_memories,update_memory,delete_memory,get_memories" {
		t.Errorf("memory_operations %v", names)
	}
}

// An agent run: the model thinks, adds a memory and analyzes; the memory
// is the run's user's, the notes are in the session state.
func TestAgentRun(t *testing.T) {
	st := sqliteStore(t)
	tk, err := memorytools.New(memorytools.Config{Store: st, EnableThink: true, EnableAddMemory: true, EnableAnalyze: true, AddInstructions: true, AddFewShot: true})
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c1", "think", `{"thought":"Store the allergy."}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c2", "add_memory", `{"memory":"Allergic to nuts","topics":["allergies"]}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c3", "analyze", `{"analysis":"Stored."}`)}},
		modeltest.Response{Content: "Noted."},
	)
	a, err := agent.New(agent.Config{Name: "M", Model: fake, Tools: []tool.Provider{tk}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "I'm allergic to nuts", run.WithUserID("carol"))
	if err != nil || out.Content != "Noted." {
		t.Fatalf("%v %v", err, out)
	}
	mems, _, err := st.ListMemories(context.Background(), storage.MemoryQuery{UserID: "carol"})
	if err != nil || len(mems) != 1 || mems[0].Memory != "Allergic to nuts" {
		t.Fatalf("carol's memories %v %v", mems, err)
	}
	if th, _ := out.SessionState["memory_thoughts"].([]any); len(th) != 1 || th[0] != "Store the allergy." {
		t.Errorf("memory_thoughts %v", out.SessionState["memory_thoughts"])
	}
	var last string
	for _, m := range out.Messages {
		if m.Role == model.RoleTool {
			last = m.Content
		}
	}
	if last != "Memory Analysis:\n                - Stored." {
		t.Errorf("analyze answered %q", last)
	}
	if !strings.Contains(tk.Instructions(), "#### Example 4: Retrieving Memories") {
		t.Errorf("few-shot examples missing: %q", tk.Instructions())
	}
}

// Without a store from the host there is no toolkit, and the error says
// why.
func TestNoStore(t *testing.T) {
	tk, _ := tool.LookupToolkit("memory_tools")
	if _, err := tk.New(tool.ToolkitEnv{}, nil); err == nil || !strings.Contains(err.Error(), "memory_tools keeps the memories in the host's store") || !strings.Contains(err.Error(), "ToolkitEnv.Resolve is nil") {
		t.Errorf("no store: %v", err)
	}
}
