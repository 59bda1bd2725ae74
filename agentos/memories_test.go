package agentos_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/storage"
)

// memoryTexts lists the memory texts of a page, in order.
func memoryTexts(page map[string]any) string {
	var out []string
	for _, d := range list(page["data"]) {
		out = append(out, obj(d)["memory"].(string))
	}
	return strings.Join(out, ",")
}

func TestMemoryValidation(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		wantDetail(t, mustCall(t, srv, 400, "POST", "/memories", map[string]any{"memory": "likes tea"}), "User ID is required")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", map[string]any{"user_id": "alice"}), "body", "memory")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", map[string]any{"memory": nil, "user_id": "alice"}), "body", "memory")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", map[string]any{"memory": "", "user_id": "alice"}), "body", "memory")
		v := mustCall(t, srv, 422, "POST", "/memories", map[string]any{"memory": strings.Repeat("é", 5001), "user_id": "alice"})
		wantFieldError(t, v, "body", "memory")
		if typ := obj(list(obj(v)["detail"])[0])["type"]; typ != "string_too_long" {
			t.Errorf("type = %v, want string_too_long", typ)
		}
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", map[string]any{"memory": "x", "user_id": "alice", "topics": "food"}), "body", "topics")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", map[string]any{"memory": "x", "user_id": 7}), "body", "user_id")
		wantFieldError(t, mustCall(t, srv, 422, "POST", "/memories", nil), "body")
		wantFieldError(t, mustCall(t, srv, 422, "PATCH", "/memories/x", map[string]any{"memory": ""}), "body", "memory")
		wantDetail(t, mustCall(t, srv, 400, "PATCH", "/memories/x", map[string]any{"memory": "y"}), "User ID is required")
		// 5000 characters (not bytes) is the limit.
		m := obj(mustCall(t, srv, 200, "POST", "/memories", map[string]any{"memory": strings.Repeat("é", 5000), "user_id": "u"}))
		if len([]rune(m["memory"].(string))) != 5000 {
			t.Errorf("stored %d characters", len([]rune(m["memory"].(string))))
		}
		wantFieldError(t, mustCall(t, srv, 422, "DELETE", "/memories", map[string]any{"memory_ids": []string{}}), "body", "memory_ids")
		wantFieldError(t, mustCall(t, srv, 422, "DELETE", "/memories", map[string]any{"user_id": "u"}), "body", "memory_ids")
		for q, param := range map[string]string{"limit=0": "limit", "page=-1": "page", "page=x": "page", "sort_by=memory": "sort_by", "sort_order=sideways": "sort_order"} {
			wantFieldError(t, mustCall(t, srv, 422, "GET", "/memories?"+q, nil), "query", param)
		}
		wantFieldError(t, mustCall(t, srv, 422, "GET", "/user_memory_stats?limit=-2", nil), "query", "limit")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/memories?db_id=x", nil), "No database found with id 'x'")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/memories?db_id=agno-db&table=agno_sessions", nil), "No database with id 'agno-db' has table 'agno_sessions'")
		mustCall(t, srv, 200, "GET", "/memories?db_id=agno-db&table=agno_memories", nil)
	})
}

func TestMemoryRoutes(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Store) {
		srv := dataOS(t, st)
		ctx := t.Context()

		created := obj(mustCall(t, srv, 200, "POST", "/memories", map[string]any{"memory": "Likes green tea", "user_id": "alice", "topics": []string{"food", "drink"}}))
		id, _ := created["memory_id"].(string)
		if len(id) != 36 || created["memory"] != "Likes green tea" || created["user_id"] != "alice" || fmt.Sprint(created["topics"]) != "[food drink]" {
			t.Errorf("created = %v", created)
		}
		for _, k := range []string{"agent_id", "team_id"} {
			if v, ok := created[k]; !ok || v != nil {
				t.Errorf("UserMemorySchema keeps %s as null: %v", k, created)
			}
		}
		wantISO(t, "updated_at", created["updated_at"])
		noTopics := obj(mustCall(t, srv, 200, "POST", "/memories", map[string]any{"memory": "Has a dog", "user_id": "alice"}))
		if l, ok := noTopics["topics"].([]any); !ok || len(l) != 0 {
			t.Errorf("topics default to [], got %v", noTopics["topics"])
		}

		// Fixed timestamps for ordering, one written by an agent.
		base := time.Date(2025, 9, 1, 7, 53, 17, 0, time.UTC).Unix()
		for i, m := range []storage.Memory{
			{MemoryID: "m-a", Memory: "Works at night", Topics: []string{"work"}, UserID: "bob", CreatedAt: base, UpdatedAt: base + 30},
			{MemoryID: "m-b", Memory: "Drinks coffee", Topics: []string{"drink"}, UserID: "bob", AgentID: "chat-agent", CreatedAt: base + 10, UpdatedAt: base + 20},
			{MemoryID: "m-c", Memory: "Plays chess", Topics: []string{"hobby"}, UserID: "bob", TeamID: "support-team", CreatedAt: base + 20, UpdatedAt: base + 10},
		} {
			if err := st.UpsertMemory(ctx, &m); err != nil {
				t.Fatal(i, err)
			}
		}
		page := obj(mustCall(t, srv, 200, "GET", "/memories?user_id=bob", nil))
		if got := memoryTexts(page); got != "Works at night,Drinks coffee,Plays chess" {
			t.Errorf("default order (updated_at desc) = %s", got)
		}
		if m := obj(page["meta"]); m["total_count"] != 3.0 || m["page"] != 1.0 || m["limit"] != 20.0 || m["total_pages"] != 1.0 {
			t.Errorf("meta = %v", m)
		}
		if got := memoryTexts(obj(mustCall(t, srv, 200, "GET", "/memories?user_id=bob&sort_by=created_at&sort_order=asc", nil))); got != "Works at night,Drinks coffee,Plays chess" {
			t.Errorf("created_at asc = %s", got)
		}
		if got := memoryTexts(obj(mustCall(t, srv, 200, "GET", "/memories?user_id=bob&sort_by=updated_at&sort_order=asc", nil))); got != "Plays chess,Drinks coffee,Works at night" {
			t.Errorf("updated_at asc = %s", got)
		}
		p2 := obj(mustCall(t, srv, 200, "GET", "/memories?user_id=bob&limit=2&page=2", nil))
		if got, m := memoryTexts(p2), obj(p2["meta"]); got != "Plays chess" || m["total_pages"] != 2.0 || m["page"] != 2.0 || m["total_count"] != 3.0 {
			t.Errorf("page 2 = %s %v", got, m)
		}
		for q, want := range map[string]string{
			"agent_id=chat-agent":            "Drinks coffee",
			"team_id=support-team":           "Plays chess",
			"topics=drink":                   "Likes green tea,Drinks coffee",
			"topics=food,%20drink":           "Likes green tea",
			"topics=drink&user_id=bob":       "Drinks coffee",
			"search_content=CHESS":           "Plays chess",
			"search_content=tea&user_id=bob": "",
		} {
			if got := memoryTexts(obj(mustCall(t, srv, 200, "GET", "/memories?"+q, nil))); got != want {
				t.Errorf("?%s = %q, want %q", q, got, want)
			}
		}
		agentMem := obj(mustCall(t, srv, 200, "GET", "/memories/m-b", nil))
		if agentMem["agent_id"] != "chat-agent" || agentMem["updated_at"] != "2025-09-01T07:53:37Z" {
			t.Errorf("agent memory = %v", agentMem)
		}

		// One memory, user isolation.
		wantDetail(t, mustCall(t, srv, 404, "GET", "/memories/m-b?user_id=alice", nil), "Memory with ID m-b not found")
		wantDetail(t, mustCall(t, srv, 404, "GET", "/memories/nope", nil), "Memory with ID nope not found")
		mustCall(t, srv, 200, "GET", "/memories/m-b?user_id=bob", nil)

		// PATCH replaces text and topics of the user's own memory only.
		wantDetail(t, mustCall(t, srv, 404, "PATCH", "/memories/m-b", map[string]any{"memory": "stolen", "user_id": "alice"}), "Memory with ID m-b not found")
		wantDetail(t, mustCall(t, srv, 404, "PATCH", "/memories/nope", map[string]any{"memory": "x", "user_id": "bob"}), "Memory with ID nope not found")
		up := obj(mustCall(t, srv, 200, "PATCH", "/memories/m-b", map[string]any{"memory": "Drinks espresso", "user_id": "bob", "topics": []string{"drink", "coffee"}}))
		if up["memory"] != "Drinks espresso" || fmt.Sprint(up["topics"]) != "[drink coffee]" || up["agent_id"] != "chat-agent" || up["memory_id"] != "m-b" {
			t.Errorf("patched = %v", up)
		}
		if up["updated_at"] == agentMem["updated_at"] {
			t.Errorf("updated_at did not move: %v", up["updated_at"])
		}
		stored, err := st.GetMemory(ctx, "m-b")
		if err != nil || stored.Memory != "Drinks espresso" || stored.CreatedAt != base+10 {
			t.Errorf("stored after patch = %+v, %v", stored, err)
		}

		// Topics and stats.
		topics := list(mustCall(t, srv, 200, "GET", "/memory_topics?user_id=bob", nil))
		if fmt.Sprint(topics) != "[coffee drink hobby work]" {
			t.Errorf("bob's topics = %v", topics)
		}
		if all := list(mustCall(t, srv, 200, "GET", "/memory_topics", nil)); fmt.Sprint(all) != "[coffee drink food hobby work]" {
			t.Errorf("all topics = %v", all)
		}
		if none := mustCall(t, srv, 200, "GET", "/memory_topics?user_id=nobody", nil); fmt.Sprint(none) != "[]" {
			t.Errorf("no topics = %v", none)
		}
		stats := obj(mustCall(t, srv, 200, "GET", "/user_memory_stats", nil))
		byUser := map[string]map[string]any{}
		for _, d := range list(stats["data"]) {
			byUser[obj(d)["user_id"].(string)] = obj(d)
		}
		if byUser["alice"]["total_memories"] != 2.0 || byUser["bob"]["total_memories"] != 3.0 || obj(stats["meta"])["total_count"] != 2.0 {
			t.Errorf("stats = %v", stats)
		}
		wantISO(t, "last_memory_updated_at", byUser["bob"]["last_memory_updated_at"])
		one := obj(mustCall(t, srv, 200, "GET", "/user_memory_stats?limit=1&page=2", nil))
		if m := obj(one["meta"]); len(list(one["data"])) != 1 || m["total_pages"] != 2.0 || m["page"] != 2.0 || m["limit"] != 1.0 {
			t.Errorf("stats page 2 = %v", one)
		}
		only := obj(mustCall(t, srv, 200, "GET", "/user_memory_stats?user_id=bob", nil))
		if l := list(only["data"]); len(l) != 1 || obj(l[0])["user_id"] != "bob" {
			t.Errorf("stats for bob = %v", only)
		}

		// Deletes: another user's memory is left alone.
		mustCall(t, srv, 204, "DELETE", "/memories/m-a?user_id=alice", nil)
		mustCall(t, srv, 200, "GET", "/memories/m-a", nil)
		mustCall(t, srv, 204, "DELETE", "/memories/m-a?user_id=bob", nil)
		mustCall(t, srv, 404, "GET", "/memories/m-a", nil)
		mustCall(t, srv, 204, "DELETE", "/memories/never-there", nil)
		mustCall(t, srv, 204, "DELETE", "/memories", map[string]any{"memory_ids": []string{"m-b", "m-c", id}, "user_id": "alice"})
		if got := memoryTexts(obj(mustCall(t, srv, 200, "GET", "/memories?user_id=bob", nil))); got != "Drinks espresso,Plays chess" {
			t.Errorf("bob's memories after alice's bulk delete = %s", got)
		}
		mustCall(t, srv, 404, "GET", "/memories/"+id, nil)
		mustCall(t, srv, 204, "DELETE", "/memories", map[string]any{"memory_ids": []string{"m-b", "m-c"}})
		if p := obj(mustCall(t, srv, 200, "GET", "/memories", nil)); memoryTexts(p) != "Has a dog" {
			t.Errorf("left = %s", memoryTexts(p))
		}
	})
}
