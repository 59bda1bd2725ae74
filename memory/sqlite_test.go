package memory

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

// The manager against the real SQLite backend: memories written by the
// tools survive a reopen of the database and stay with their user.
func TestManagerOnSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "agno.db")
	st, err := sqlite.Open(ctx, sqlite.Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	seed(t, st,
		&storage.Memory{MemoryID: "ana-1", Memory: "User's name is Ana", UserID: "ana", CreatedAt: 10, UpdatedAt: 10},
		&storage.Memory{MemoryID: "ana-2", Memory: "User lives in Porto", UserID: "ana", CreatedAt: 20, UpdatedAt: 20},
		&storage.Memory{MemoryID: "bob-1", Memory: "User is Bob", UserID: "bob", CreatedAt: 5, UpdatedAt: 5},
	)
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{
			modeltest.ToolCall("c1", "add_memory", `{"memory":"User likes hiking","topics":["hobbies"]}`),
			modeltest.ToolCall("c2", "update_memory", `{"memory_id":"ana-2","memory":"User moved from Porto to Lisbon","topics":["location"]}`),
			modeltest.ToolCall("c3", "delete_memory", `{"memory_id":"bob-1"}`),
		}},
		modeltest.Response{Content: "done"},
	)
	m := newManager(t, ManagerConfig{Model: fake, Store: st})
	if _, err := m.CreateUserMemories(ctx, "ana", []model.Message{{Role: model.RoleUser, Content: "I moved to Lisbon and I hike"}}, "agent-1", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = sqlite.Open(ctx, sqlite.Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m = newManager(t, ManagerConfig{Model: fake, Store: st})
	mems, err := m.UserMemories(ctx, "ana")
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 3 || mems[0].MemoryID != "ana-1" || mems[1].Memory != "User moved from Porto to Lisbon" || mems[1].CreatedAt != 20 {
		t.Fatalf("ana's memories = %+v", mems)
	}
	added := mems[2]
	if !uuidRE.MatchString(added.MemoryID) || added.Memory != "User likes hiking" || added.AgentID != "agent-1" ||
		added.Input != "I moved to Lisbon and I hike" || !slices.Equal(added.Topics, []string{"hobbies"}) {
		t.Errorf("added = %+v", added)
	}
	if bob, _ := m.UserMemories(ctx, "bob"); len(bob) != 1 {
		t.Errorf("ana's delete_memory reached bob's memory: %+v", bob)
	}
	if got := RenderMemories(mems, false); got != "You have access to user info and preferences from previous interactions that you can use to personalize your response:\n\n"+
		"<memories_from_previous_interactions>\n- User's name is Ana\n- User moved from Porto to Lisbon\n- User likes hiking\n</memories_from_previous_interactions>\n\n"+
		"Note: this information is from previous interactions and may be updated in this conversation. You should always prefer information from this conversation over the past memories.\n" {
		t.Errorf("rendered:\n%s", got)
	}
}
