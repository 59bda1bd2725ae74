package agent_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

func openSQLite(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

func systemOf(req *model.Request) string {
	if len(req.Messages) > 0 && req.Messages[0].Role == model.RoleSystem {
		return req.Messages[0].Content
	}
	return ""
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

var nameMemoryID = regexp.MustCompile(`ID: (\S+)\nMemory: The user's name is Ada\n`)

// memoryManagerModel adds two memories when the user has none, and renames
// the user once it sees the name memory among the existing ones.
func memoryManagerModel(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == model.RoleTool {
		return modeltest.Response{Content: "Memories updated."}
	}
	if m := nameMemoryID.FindStringSubmatch(systemOf(req)); m != nil {
		return calls(modeltest.ToolCall("u1", "update_memory", `{"memory_id":"`+m[1]+`","memory":"The user's name is Ada Lovelace","topics":["name"]}`))
	}
	return calls(
		modeltest.ToolCall("a1", "add_memory", `{"memory":"The user's name is Ada","topics":["name"]}`),
		modeltest.ToolCall("a2", "add_memory", `{"memory":"The user lives in Lisbon","topics":["location"]}`),
	)
}

// User memories and the session summary, with the agent, the memory
// manager and the summary manager each on a real OpenAI client talking to
// a fake OpenAI-compatible server, and a SQLite store.
func TestMemoryAndSummaryOverTheWire(t *testing.T) {
	ctx := context.Background()
	store := openSQLite(t)
	mainModel, mainSrv := fakeOpenAI(t, func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; strings.Contains(last.Content, "know about me") {
			return text("You are Ada, from Lisbon.")
		}
		return text("Hello Ada.")
	})
	memModel, memSrv := fakeOpenAI(t, memoryManagerModel)
	sumModel, sumSrv := fakeOpenAI(t, func(*model.Request) modeltest.Response {
		return text(`{"summary":"Ada from Lisbon introduced herself.","topics":["introductions","location"]}`)
	})
	mm, err := memory.NewManager(memory.ManagerConfig{Model: memModel, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := memory.NewSummaryManager(memory.SummaryConfig{Model: sumModel})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, agent.Config{Name: "Pal", Model: mainModel, Store: store,
		MemoryManager: mm, EnableUserMemories: true, SessionSummaryManager: sm, EnableSessionSummaries: true})
	opts := []run.Option{run.WithUserID("u1"), run.WithSessionID("s1")}

	const intro = "Hi, I am Ada and I live in Lisbon"
	if out, err := a.Run(ctx, intro, opts...); err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run 1: err %v status %s content %v", err, out.Status, out.Content)
	}

	// The memory manager's first call: agno's prompt with add, update and
	// delete (never clear) and no existing memories, the user's message,
	// and the three tools as strict functions.
	memReqs := memSrv.Requests()
	if len(memReqs) != 2 {
		t.Fatalf("memory manager made %d calls, want 2 (tool call, then answer)", len(memReqs))
	}
	first := memReqs[0].Request
	sys := systemOf(first)
	for _, want := range []string{
		"You are a Memory Manager that is responsible for managing information and preferences about the user.",
		"<memories_to_capture>\n" + memory.DefaultCaptureInstructions + "\n</memories_to_capture>",
		"  - Decide to add a new memory, using the `add_memory` tool.",
		"  - Decide to update an existing memory, using the `update_memory` tool.",
		"  - Decide to delete an existing memory, using the `delete_memory` tool.",
	} {
		if !strings.Contains(sys, want) {
			t.Fatalf("memory manager system prompt lacks %q:\n%s", want, sys)
		}
	}
	if strings.Contains(sys, "clear_memory") || strings.Contains(sys, "<existing_memories>\nID: ") {
		t.Fatalf("memory manager system prompt offers clear or shows memories:\n%s", sys)
	}
	if len(first.Messages) != 2 || first.Messages[1].Role != model.RoleUser || first.Messages[1].Content != intro {
		t.Fatalf("memory manager messages:\n%s", transcript(first))
	}
	var names []string
	for _, td := range first.Tools {
		names = append(names, td.Name)
		if !td.Strict {
			t.Fatalf("tool %s not strict", td.Name)
		}
	}
	if got := strings.Join(names, ","); got != "add_memory,delete_memory,update_memory" {
		t.Fatalf("memory tools %s", got)
	}
	addSchema := `{"type":"object","properties":{"memory":{"type":"string","description":"(str) The memory to be added."},` +
		`"topics":{"type":"array","items":{"type":"string"},"description":"(Optional[List[str]]) The topics of the memory (e.g. [\"name\", \"hobbies\", \"location\"])."}},` +
		`"additionalProperties":false,"required":["memory","topics"]}`
	if first.Tools[0].Description != "Use this function to add a memory to the database." || !sameJSON(t, first.Tools[0].Parameters, []byte(addSchema)) {
		t.Fatalf("add_memory definition %s %s", first.Tools[0].Description, first.Tools[0].Parameters)
	}
	if results := toolMessages(memReqs[1].Request); len(results) != 2 || results[0].Content != "Memory added successfully" || results[1].Content != "Memory added successfully" {
		t.Fatalf("tool results sent back: %+v", results)
	}

	// The memories are in SQLite, for this user, agent and input.
	mems := userMemories(t, store, "u1")
	if len(mems) != 2 {
		t.Fatalf("stored memories %+v", mems)
	}
	for i, want := range []struct{ text, topic string }{{"The user lives in Lisbon", "location"}, {"The user's name is Ada", "name"}} {
		m := mems[i]
		if m.Memory != want.text || !slices.Equal(m.Topics, []string{want.topic}) || m.UserID != "u1" || m.AgentID != "pal" || m.Input != intro || m.MemoryID == "" {
			t.Fatalf("memory %d: %+v", i, m)
		}
	}

	// The summary manager asked for SessionSummaryResponse as strict JSON
	// schema about the run's conversation; the summary is on the session.
	sumReqs := sumSrv.Requests()
	if len(sumReqs) != 1 {
		t.Fatalf("summary calls %d", len(sumReqs))
	}
	sreq := sumReqs[0].Request
	if rf := sreq.ResponseFormat; rf == nil || rf.Type != "json_schema" || rf.Name != "SessionSummaryResponse" || !rf.Strict {
		t.Fatalf("summary response_format %+v", sreq.ResponseFormat)
	}
	if s := systemOf(sreq); !strings.HasPrefix(s, memory.DefaultSummaryPrompt) ||
		!strings.HasSuffix(s, "<conversation>User: "+intro+"\nAssistant: Hello Ada.\n</conversation>") {
		t.Fatalf("summary system prompt:\n%s", s)
	}
	if len(sreq.Messages) != 2 || sreq.Messages[1].Content != memory.DefaultSummaryRequest {
		t.Fatalf("summary messages:\n%s", transcript(sreq))
	}
	sess, err := store.GetSession(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if sess.Summary == nil || sess.Summary.Summary != "Ada from Lisbon introduced herself." || !slices.Equal(sess.Summary.Topics, []string{"introductions", "location"}) {
		t.Fatalf("stored summary %+v", sess.Summary)
	}
	// The first run's system message was built before any memory existed.
	if s := systemOf(mainSrv.Requests()[0].Request); !strings.Contains(s, "but have not had any interactions with the user yet.") {
		t.Fatalf("run 1 system message:\n%s", s)
	}

	// Second run: the agent sees the memories and the summary; the manager
	// sees the existing memories with their ids and updates one in place.
	if out, err := a.Run(ctx, "What do you know about me?", opts...); err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run 2: err %v status %s", err, out.Status)
	}
	s := systemOf(lastRequest(t, mainSrv))
	for _, want := range []string{
		"<memories_from_previous_interactions>\n- ",
		"\n- The user's name is Ada\n", "\n- The user lives in Lisbon\n",
		"<summary_of_previous_interactions>\nAda from Lisbon introduced herself.\n</summary_of_previous_interactions>",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("run 2 system message lacks %q:\n%s", want, s)
		}
	}
	memReqs = memSrv.Requests()
	if len(memReqs) != 4 || !strings.Contains(systemOf(memReqs[2].Request), "<existing_memories>\nID: ") {
		t.Fatalf("memory manager calls %d; run 2 prompt:\n%s", len(memReqs), systemOf(memReqs[2].Request))
	}
	if results := toolMessages(memReqs[3].Request); len(results) != 1 || results[0].Content != "Memory updated successfully" {
		t.Fatalf("update result: %+v", results)
	}
	after := userMemories(t, store, "u1")
	if len(after) != 2 || after[0].Memory != "The user lives in Lisbon" || after[1].Memory != "The user's name is Ada Lovelace" || after[1].MemoryID != mems[1].MemoryID {
		t.Fatalf("memories after run 2 %+v", after)
	}
	if s := systemOf(lastRequest(t, sumSrv)); !strings.Contains(s, "<conversation>User: "+intro+"\nAssistant: Hello Ada.\n\nUser: What do you know about me?\nAssistant: You are Ada, from Lisbon.\n</conversation>") {
		t.Fatalf("run 2 summary prompt:\n%s", s)
	}
}

// userMemories lists a user's memories ordered by text, so memories
// written in one tool round compare in a fixed order.
func userMemories(t *testing.T, st storage.Store, userID string) []*storage.Memory {
	t.Helper()
	mems, _, err := st.ListMemories(context.Background(), storage.MemoryQuery{UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(mems, func(a, b *storage.Memory) int { return strings.Compare(a.Memory, b.Memory) })
	return mems
}

// Memory extraction runs while the main model call is in flight: each of
// the two model calls waits for the other to arrive before answering. Run
// one after the other (in either order), the first to start gives up
// after the bound and says so, and the test fails.
func TestMemoryExtractionRunsBesideTheMainCall(t *testing.T) {
	const bound = 5 * time.Second
	mainArrived, memArrived := make(chan struct{}), make(chan struct{})
	var mainOnce, memOnce sync.Once
	await := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(bound):
			return false
		}
	}
	store := openSQLite(t)
	mainModel, _ := fakeOpenAI(t, func(*model.Request) modeltest.Response {
		mainOnce.Do(func() { close(mainArrived) })
		if !await(memArrived) {
			return text("the memory call did not arrive while the main call was in flight")
		}
		return text("answered beside memory extraction")
	})
	memModel, _ := fakeOpenAI(t, func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return text("done")
		}
		memOnce.Do(func() { close(memArrived) })
		if !await(mainArrived) {
			return text("the main call did not arrive while the memory call was in flight")
		}
		return calls(modeltest.ToolCall("a1", "add_memory", `{"memory":"The user's name is Ada","topics":["name"]}`))
	})
	mm, err := memory.NewManager(memory.ManagerConfig{Model: memModel, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	a := newAgent(t, agent.Config{Name: "Pal", Model: mainModel, Store: store, MemoryManager: mm, EnableUserMemories: true})
	out, err := a.Run(context.Background(), "I am Ada", run.WithUserID("u1"))
	if err != nil || out.Content != "answered beside memory extraction" {
		t.Fatalf("err %v content %v", err, out.Content)
	}
	if mems := userMemories(t, store, "u1"); len(mems) != 1 || mems[0].Memory != "The user's name is Ada" {
		t.Fatalf("memories %+v (the memory model's call did not overlap the main call)", mems)
	}
}
