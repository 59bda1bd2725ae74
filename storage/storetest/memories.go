package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agno-go/agno/storage"
)

func testMemories(t *testing.T, open Opener) {
	t.Run("UpsertGet", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		m := &storage.Memory{MemoryID: "m1", Memory: "Likes sushi 🍣", Topics: []string{"food", "préférences"}, UserID: "u1",
			AgentID: "a1", TeamID: "t1", Input: "I love sushi", Feedback: "good", CreatedAt: 100, UpdatedAt: 200}
		must(t, st.UpsertMemory(ctx, m))
		got, err := st.GetMemory(ctx, "m1")
		must(t, err)
		sameJSON(t, "GetMemory", got, m)

		m.Topics[0] = "changed by caller"
		got, err = st.GetMemory(ctx, "m1")
		must(t, err)
		if got.Topics[0] != "food" {
			t.Errorf("stored topics changed with the caller's slice: %q", got.Topics)
		}

		must(t, st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m1", Memory: "Likes ramen", UserID: "u1", CreatedAt: 999, UpdatedAt: 300}))
		got, err = st.GetMemory(ctx, "m1")
		must(t, err)
		sameJSON(t, "memory after upsert", got, &storage.Memory{MemoryID: "m1", Memory: "Likes ramen", UserID: "u1", CreatedAt: 100, UpdatedAt: 300})
		if len(got.Topics) != 0 {
			t.Errorf("topics after upsert without topics: %q", got.Topics)
		}

		before := time.Now().Unix()
		must(t, st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m2", Memory: "x"}))
		after := time.Now().Unix()
		got, err = st.GetMemory(ctx, "m2")
		must(t, err)
		if got.CreatedAt < before || got.CreatedAt > after || got.UpdatedAt < before || got.UpdatedAt > after {
			t.Errorf("default created_at/updated_at %d/%d not within [%d, %d]", got.CreatedAt, got.UpdatedAt, before, after)
		}

		if err := st.UpsertMemory(ctx, &storage.Memory{Memory: "no id"}); err == nil {
			t.Error("UpsertMemory without memory_id: no error")
		}
		_, err = st.GetMemory(ctx, "missing")
		wantErr(t, "GetMemory(missing)", err, storage.ErrNotFound)
	})

	t.Run("List", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		seedMemories(t, st)
		cases := []struct {
			name  string
			q     storage.MemoryQuery
			want  []string
			total int
		}{
			{"all, default newest updated first", storage.MemoryQuery{}, []string{"m1", "m2", "m3", "m4", "m5"}, 5},
			{"user", storage.MemoryQuery{UserID: "u1"}, []string{"m1", "m2"}, 2},
			{"agent", storage.MemoryQuery{AgentID: "a1"}, []string{"m1", "m4", "m5"}, 3},
			{"team", storage.MemoryQuery{TeamID: "t1"}, []string{"m3"}, 1},
			{"topic", storage.MemoryQuery{Topics: []string{"food"}}, []string{"m1", "m2"}, 2},
			{"all topics must match", storage.MemoryQuery{Topics: []string{"food", "travel"}}, []string{"m1"}, 1},
			{"topic travel", storage.MemoryQuery{Topics: []string{"travel"}}, []string{"m1", "m5"}, 2},
			{"topic is matched whole", storage.MemoryQuery{Topics: []string{"foo"}}, nil, 0},
			{"content ignores case", storage.MemoryQuery{ContentSearch: "TRAVEL"}, []string{"m4"}, 1},
			{"content unicode case", storage.MemoryQuery{ContentSearch: "ÉCOLE"}, []string{"m3"}, 1},
			{"content sushi", storage.MemoryQuery{ContentSearch: "sushi"}, []string{"m1"}, 1},
			{"user and topic", storage.MemoryQuery{UserID: "u2", Topics: []string{"work"}}, []string{"m3"}, 1},
			{"created_at asc", storage.MemoryQuery{SortBy: "created_at", SortOrder: storage.Asc}, []string{"m1", "m2", "m3", "m4", "m5"}, 5},
			{"created_at desc", storage.MemoryQuery{SortBy: "created_at", SortOrder: storage.Desc}, []string{"m5", "m4", "m3", "m2", "m1"}, 5},
			{"updated_at asc", storage.MemoryQuery{SortOrder: storage.Asc}, []string{"m5", "m4", "m3", "m2", "m1"}, 5},
			{"page 2", storage.MemoryQuery{Limit: 2, Page: 2}, []string{"m3", "m4"}, 5},
			{"page past the end", storage.MemoryQuery{Limit: 2, Page: 9}, nil, 5},
		}
		for _, c := range cases {
			got, total, err := st.ListMemories(ctx, c.q)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			sameIDs(t, c.name, memoryIDs(got), c.want)
			if total != c.total {
				t.Errorf("%s: total %d, want %d", c.name, total, c.total)
			}
		}
		got, _, err := st.ListMemories(ctx, storage.MemoryQuery{UserID: "u1", Topics: []string{"travel"}})
		must(t, err)
		if len(got) == 1 {
			sameJSON(t, "listed memory", got[0], &storage.Memory{MemoryID: "m1", Memory: "Likes sushi", Topics: []string{"food", "travel"},
				UserID: "u1", AgentID: "a1", CreatedAt: 100, UpdatedAt: 500})
		}
	})

	t.Run("Delete", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		seedMemories(t, st)
		must(t, st.DeleteMemories(ctx, "m1", "m3", "never-existed"))
		must(t, st.DeleteMemories(ctx))
		got, total, err := st.ListMemories(ctx, storage.MemoryQuery{})
		must(t, err)
		sameIDs(t, "after delete", memoryIDs(got), []string{"m2", "m4", "m5"})
		if total != 3 {
			t.Errorf("total after delete %d, want 3", total)
		}
		if _, err := st.GetMemory(ctx, "m1"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("GetMemory(deleted): %v, want ErrNotFound", err)
		}
	})

	t.Run("Topics", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		seedMemories(t, st)
		for _, c := range []struct {
			user string
			want []string
		}{
			{"", []string{"food", "travel", "work"}},
			{"u1", []string{"food", "travel"}},
			{"u2", []string{"work"}},
			{"nobody", nil},
		} {
			got, err := st.MemoryTopics(ctx, c.user)
			if err != nil {
				t.Errorf("MemoryTopics(%q): %v", c.user, err)
				continue
			}
			sameIDs(t, "MemoryTopics("+c.user+")", got, c.want)
		}
	})

	// Stats after memories are added, rewritten (a later or an earlier
	// updated_at), moved between users and deleted are the grouping of the
	// memories then stored.
	t.Run("StatsFollowChanges", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		put := func(id, user string, updated int64) {
			t.Helper()
			must(t, st.UpsertMemory(ctx, &storage.Memory{MemoryID: id, Memory: id, UserID: user, CreatedAt: 1, UpdatedAt: updated}))
		}
		for i := range 30 {
			put(fmt.Sprintf("m%02d", i), fmt.Sprintf("u%d", i%4), int64(100+i))
		}
		put("m01", "u1", 500) // later
		put("m05", "u1", 50)  // earlier: u1's newest is still m01
		put("m02", "u3", 90)  // moved from u2
		put("m03", "", 600)   // moved to no user
		put("x1", "u9", 70)
		put("x1", "u9", 80)
		must(t, st.DeleteMemories(ctx, "m29", "m25", "m21", "m17", "m13", "m09"))               // u1's older ones
		must(t, st.DeleteMemories(ctx, "m00", "m04", "m08", "m12", "m16", "m20", "m24", "m28")) // all of u0
		must(t, st.DeleteMemories(ctx, "m01"))                                                  // u1's newest: m05's 50 is its last now
		mems, _, err := st.ListMemories(ctx, storage.MemoryQuery{})
		must(t, err)
		by := map[string]*storage.UserMemoryStats{}
		var want []storage.UserMemoryStats
		for _, m := range mems {
			if m.UserID == "" {
				continue
			}
			if by[m.UserID] == nil {
				by[m.UserID] = &storage.UserMemoryStats{UserID: m.UserID}
			}
			by[m.UserID].TotalMemories++
			by[m.UserID].LastMemoryUpdatedAt = max(by[m.UserID].LastMemoryUpdatedAt, m.UpdatedAt)
		}
		for _, u := range by {
			want = append(want, *u)
		}
		slices.SortFunc(want, func(a, b storage.UserMemoryStats) int {
			return cmp.Or(cmp.Compare(b.LastMemoryUpdatedAt, a.LastMemoryUpdatedAt), cmp.Compare(a.UserID, b.UserID))
		})
		if len(want) != 4 || by["u0"] != nil {
			t.Fatalf("the scenario should leave u1, u2, u3 and u9: %+v", want)
		}
		got, total, err := st.MemoryStats(ctx, "", 0, 0)
		must(t, err)
		sameJSON(t, "all users", got, want)
		if total != len(want) {
			t.Errorf("total %d, want %d", total, len(want))
		}
		got, total, err = st.MemoryStats(ctx, "", 2, 2)
		must(t, err)
		sameJSON(t, "page 2 of 2 per page", got, want[2:4])
		if total != len(want) {
			t.Errorf("page 2: total %d, want %d", total, len(want))
		}
		for _, u := range want {
			got, total, err := st.MemoryStats(ctx, u.UserID, 0, 0)
			must(t, err)
			sameJSON(t, u.UserID, got, []storage.UserMemoryStats{u})
			if total != 1 {
				t.Errorf("%s: total %d", u.UserID, total)
			}
		}
		if got, total, err := st.MemoryStats(ctx, "u0", 0, 0); err != nil || len(got) != 0 || total != 0 {
			t.Errorf("u0 (all deleted): %+v, %d, %v", got, total, err)
		}
	})

	t.Run("Stats", func(t *testing.T) {
		st := newStore(t, open)
		ctx := t.Context()
		seedMemories(t, st)
		must(t, st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m6", Memory: "late", UserID: "u3", CreatedAt: 50, UpdatedAt: 400}))
		all := []storage.UserMemoryStats{
			{UserID: "u1", TotalMemories: 2, LastMemoryUpdatedAt: 500},
			{UserID: "u3", TotalMemories: 1, LastMemoryUpdatedAt: 400},
			{UserID: "u2", TotalMemories: 2, LastMemoryUpdatedAt: 300},
		}
		for _, c := range []struct {
			name        string
			user        string
			limit, page int
			want        []storage.UserMemoryStats
			total       int
		}{
			{"all users, memories without a user left out", "", 0, 0, all, 3},
			{"page 2 of 1 per page", "", 1, 2, all[1:2], 3},
			{"one user", "u2", 0, 0, all[2:], 1},
			{"unknown user", "nobody", 10, 1, nil, 0},
		} {
			got, total, err := st.MemoryStats(ctx, c.user, c.limit, c.page)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			if c.want == nil {
				c.want = []storage.UserMemoryStats{}
			}
			if got == nil {
				got = []storage.UserMemoryStats{}
			}
			sameJSON(t, c.name, got, c.want)
			if total != c.total {
				t.Errorf("%s: total %d, want %d", c.name, total, c.total)
			}
		}
	})
}

func seedMemories(t *testing.T, st storage.Store) {
	t.Helper()
	for _, m := range []*storage.Memory{
		{MemoryID: "m1", Memory: "Likes sushi", Topics: []string{"food", "travel"}, UserID: "u1", AgentID: "a1", CreatedAt: 100, UpdatedAt: 500},
		{MemoryID: "m2", Memory: "Allergic to peanuts", Topics: []string{"food"}, UserID: "u1", AgentID: "a2", CreatedAt: 200, UpdatedAt: 400},
		{MemoryID: "m3", Memory: "Teaches at the école", Topics: []string{"work"}, UserID: "u2", TeamID: "t1", CreatedAt: 300, UpdatedAt: 300},
		{MemoryID: "m4", Memory: "Prefers Travel by train", UserID: "u2", AgentID: "a1", CreatedAt: 400, UpdatedAt: 200},
		{MemoryID: "m5", Memory: "Global note", Topics: []string{"travel"}, AgentID: "a1", CreatedAt: 500, UpdatedAt: 100},
	} {
		must(t, st.UpsertMemory(t.Context(), m))
	}
}
