package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
)

// memoryModel answers the three kinds of calls a memory-enabled agent
// makes: the memory manager (add_memory tool), the session summary
// (<conversation> prompt) and the agent itself.
func memoryModel() (*modeltest.Fake, *[]string) {
	var mu sync.Mutex
	var mainSystems []string
	return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		hasTool := func(name string) bool {
			for _, t := range req.Tools {
				if t.Name == name {
					return true
				}
			}
			return false
		}
		sys := ""
		if len(req.Messages) > 0 && req.Messages[0].Role == model.RoleSystem {
			sys = req.Messages[0].Content
		}
		last := req.Messages[len(req.Messages)-1]
		switch {
		case hasTool("add_memory"):
			if last.Role == model.RoleTool {
				return modeltest.Response{Content: "Memory saved."}
			}
			if strings.Contains(last.Content, "Ada") {
				return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("m1", "add_memory", `{"memory":"The user's name is Ada","topics":["name"]}`)}}
			}
			return modeltest.Response{Content: "Nothing to remember."}
		case strings.Contains(sys, "<conversation>"):
			return modeltest.Response{Content: `{"summary":"Ada introduced herself.","topics":["introductions"]}`}
		}
		mu.Lock()
		mainSystems = append(mainSystems, sys)
		mu.Unlock()
		return modeltest.Response{Content: "Nice to meet you."}
	}), &mainSystems
}

func TestUserMemoriesAndSessionSummary(t *testing.T) {
	store := memory.New()
	m, systems := memoryModel()
	a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: store, EnableUserMemories: true, EnableSessionSummaries: true})
	ctx := context.Background()
	var kinds []string
	for ev, err := range a.RunStream(ctx, "Hi, I am Ada", run.WithUserID("u1"), run.WithSessionID("s1"), run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind())
	}
	k := strings.Join(kinds, " ")
	if !strings.Contains(k, "MemoryUpdateStarted MemoryUpdateCompleted") || !strings.Contains(k, "SessionSummaryStarted SessionSummaryCompleted") {
		t.Fatalf("events %s", k)
	}
	mems, _, _ := store.ListMemories(ctx, storage.MemoryQuery{UserID: "u1"})
	if len(mems) != 1 || mems[0].Memory != "The user's name is Ada" || mems[0].AgentID != "pal" {
		t.Fatalf("memories %+v", mems)
	}
	sess, _ := store.GetSession(ctx, "s1")
	if sess.Summary == nil || sess.Summary.Summary != "Ada introduced herself." {
		t.Fatalf("summary %+v", sess.Summary)
	}
	// The next run sees the memory and the summary in its system message.
	if _, err := a.Run(ctx, "What is my name?", run.WithUserID("u1"), run.WithSessionID("s1")); err != nil {
		t.Fatal(err)
	}
	sys := (*systems)[len(*systems)-1]
	if !strings.Contains(sys, "<memories_from_previous_interactions>\n- The user's name is Ada\n</memories_from_previous_interactions>") ||
		!strings.Contains(sys, "<summary_of_previous_interactions>\nAda introduced herself.\n</summary_of_previous_interactions>") {
		t.Fatalf("system message: %s", sys)
	}
}

func TestAgenticMemoryTool(t *testing.T) {
	store := memory.New()
	m, _ := memoryModel()
	a := newAgent(t, agent.Config{Model: m, Store: store, EnableAgenticMemory: true})
	if names := strings.Join(a.ToolNames(), ","); names != "update_user_memory" {
		t.Fatalf("tools %s", names)
	}
	if _, err := agent.New(agent.Config{Model: m, EnableUserMemories: true}); err == nil || !strings.Contains(err.Error(), "need a Store") {
		t.Fatalf("memories without store: %v", err)
	}
}
