package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func ids(rs []*eval.Record) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.RunID
	}
	return strings.Join(out, ",")
}

func TestStore(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st, err := eval.NewStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eval.NewStore(ctx, db); err != nil { // a second start migrates nothing
			t.Fatal(err)
		}
		if v, _ := db.Versions(ctx); v[eval.Table] != 3 {
			t.Fatalf("versions %v", v)
		}
		recs := []*eval.Record{
			{RunID: "r1", EvalType: eval.TypeAccuracy, EvalData: json.RawMessage(`{"avg_score": 8}`), EvalInput: json.RawMessage(`{"input": "2+2"}`),
				Name: "b", AgentID: "calc", ModelID: "gpt-4o", ModelProvider: "OpenAI", EvaluatedComponentName: "Calc", CreatedAt: 100, UpdatedAt: 100},
			{RunID: "r2", EvalType: eval.TypeReliability, EvalData: json.RawMessage(`{"eval_status": "PASSED"}`), EvalInput: json.RawMessage(`{}`),
				Name: "a", TeamID: "crew", ModelID: "gpt-4o", CreatedAt: 200, UpdatedAt: 500},
			{RunID: "r3", EvalType: eval.TypePerformance, EvalData: json.RawMessage(`{"result": {}}`), EvalInput: json.RawMessage(`{}`),
				AgentID: "calc", ModelID: "claude", CreatedAt: 300, UpdatedAt: 300},
			{RunID: "r4", EvalType: eval.TypeAgentAsJudge, EvalData: json.RawMessage(`{}`), WorkflowID: "wf", CreatedAt: 400},
		}
		for _, r := range recs {
			if err := st.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Create(ctx, &eval.Record{RunID: "r1", EvalType: eval.TypeAccuracy}); !errors.Is(err, sqldb.ErrConflict) {
			t.Fatalf("duplicate id: %v", err)
		}
		if err := st.Create(ctx, &eval.Record{RunID: "r9", EvalType: "speed"}); err == nil || !strings.Contains(err.Error(), "agent_as_judge") {
			t.Fatalf("bad type: %v", err)
		}

		got, err := st.Get(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		var data map[string]any
		if json.Unmarshal(got.EvalData, &data) != nil || data["avg_score"] != 8.0 || got.Name != "b" || got.AgentID != "calc" || got.TeamID != "" ||
			got.ModelProvider != "OpenAI" || got.EvaluatedComponentName != "Calc" || got.CreatedAt != 100 || got.EvalType != eval.TypeAccuracy {
			t.Fatalf("get %+v", got)
		}
		if r4, _ := st.Get(ctx, "r4"); r4.UpdatedAt != 400 || string(r4.EvalInput) != "{}" {
			t.Fatalf("defaults %+v", r4)
		}
		if _, err := st.Get(ctx, "nope"); !errors.Is(err, eval.ErrNotFound) {
			t.Fatalf("missing: %v", err)
		}

		for _, tc := range []struct {
			q     eval.Query
			want  string
			total int
		}{
			{eval.Query{}, "r4,r3,r2,r1", 4},
			{eval.Query{AgentID: "calc"}, "r3,r1", 2},
			{eval.Query{TeamID: "crew"}, "r2", 1},
			{eval.Query{WorkflowID: "wf"}, "r4", 1},
			{eval.Query{ModelID: "gpt-4o"}, "r2,r1", 2},
			{eval.Query{Component: eval.ComponentAgent}, "r3,r1", 2},
			{eval.Query{Component: eval.ComponentTeam}, "r2", 1},
			{eval.Query{Component: eval.ComponentWorkflow}, "r4", 1},
			{eval.Query{Types: []eval.Type{eval.TypeAccuracy, eval.TypePerformance}}, "r3,r1", 2},
			{eval.Query{SortBy: "created_at", SortOrder: "asc"}, "r1,r2,r3,r4", 4},
			{eval.Query{SortBy: "name", SortOrder: "asc", Types: []eval.Type{eval.TypeAccuracy, eval.TypeReliability}}, "r2,r1", 2},
			// updated_at falls back to created_at; r2 was updated last.
			{eval.Query{SortBy: "updated_at", SortOrder: "desc"}, "r2,r4,r3,r1", 4},
			{eval.Query{SortBy: "created_at", SortOrder: "asc", Limit: 3, Page: 2}, "r4", 4},
			{eval.Query{SortBy: "created_at", SortOrder: "asc", Limit: 2, Page: 0}, "r1,r2", 4},
			{eval.Query{AgentID: "calc", ModelID: "claude", Types: []eval.Type{eval.TypePerformance}}, "r3", 1},
		} {
			rs, total, err := st.List(ctx, tc.q)
			if err != nil {
				t.Fatalf("%+v: %v", tc.q, err)
			}
			if ids(rs) != tc.want || total != tc.total {
				t.Fatalf("%+v: %s (%d), want %s (%d)", tc.q, ids(rs), total, tc.want, tc.total)
			}
		}
		// An unknown sort column is ignored, not an error (nor SQL).
		if rs, total, err := st.List(ctx, eval.Query{SortBy: "name; DROP TABLE x"}); err != nil || total != 4 || len(rs) != 4 {
			t.Fatalf("unknown sort: %d %d %v", len(rs), total, err)
		}
		if _, _, err := st.List(ctx, eval.Query{Component: "user"}); err == nil {
			t.Fatal("bad component accepted")
		}

		renamed, err := st.Rename(ctx, "r3", "perf run")
		if err != nil || renamed.Name != "perf run" || renamed.UpdatedAt <= 300 || renamed.CreatedAt != 300 {
			t.Fatalf("rename %+v %v", renamed, err)
		}
		if _, err := st.Rename(ctx, "nope", "x"); !errors.Is(err, eval.ErrNotFound) {
			t.Fatalf("rename missing: %v", err)
		}

		if err := st.Delete(ctx, "r1", "r3", "unknown"); err != nil {
			t.Fatal(err)
		}
		if rs, total, _ := st.List(ctx, eval.Query{}); ids(rs) != "r4,r2" || total != 2 {
			t.Fatalf("after delete %s %d", ids(rs), total)
		}
		many := make([]string, 1200) // more ids than one statement takes
		for i := range many {
			many[i] = "x"
		}
		many[1100] = "r2"
		if err := st.Delete(ctx, many...); err != nil {
			t.Fatal(err)
		}
		if rs, _, _ := st.List(ctx, eval.Query{}); ids(rs) != "r4" {
			t.Fatalf("after batch delete %s", ids(rs))
		}
	})
}

// Eval runs are owned: listed and deleted per owner when asked.
func TestStoreOwners(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		st, err := eval.NewStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*eval.Record{
			{RunID: "a1", EvalType: eval.TypeAccuracy, CreatedBy: "alice"},
			{RunID: "b1", EvalType: eval.TypeAccuracy, CreatedBy: "bob"},
		} {
			if err := st.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		alice := "alice"
		recs, total, err := st.List(ctx, eval.Query{CreatedBy: &alice})
		if err != nil || total != 1 || recs[0].RunID != "a1" || recs[0].CreatedBy != "alice" {
			t.Fatalf("alice's: %d %v %v", total, recs, err)
		}
		if err := st.DeleteBy(ctx, &alice, "a1", "b1"); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Get(ctx, "b1"); err != nil {
			t.Fatalf("bob's run went with alice's delete: %v", err)
		}
		if _, err := st.Get(ctx, "a1"); !errors.Is(err, eval.ErrNotFound) {
			t.Fatalf("alice's run stays: %v", err)
		}
	})
}
