package runs

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agno-go/agno/storage"
)

// A new session's first form made without JSON is the one JSON makes.
func TestFirstFormWithoutJSONIsTheEncodedOne(t *testing.T) {
	sessions := []*storage.Session{
		{SessionID: "s1", SessionType: storage.SessionAgent, AgentID: "a", CreatedAt: 5},
		{SessionID: "s2", SessionType: storage.SessionTeam, TeamID: "t", UserID: "u", SessionName: "named",
			SessionState: map[string]any{"n": 3, "big": int64(1<<60 + 1), "nested": map[string]any{"l": []any{1, "x", nil, map[string]any{}}}},
			Metadata:     map[string]any{}, Data: map[string]any{"model": map[string]any{"id": "m"}, "name": "T"}},
		{SessionID: "s3", SessionType: storage.SessionWorkflow, SessionState: map[string]any{"none": map[string]any(nil), "list": []any(nil)}},
	}
	for _, s := range sessions {
		fast, ok := decodedForm(s)
		if !ok {
			t.Fatalf("%s: decodedForm refused plain documents", s.SessionID)
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want storage.Session
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*fast, want) {
			t.Errorf("%s: decodedForm\n%#v\nJSON gives\n%#v", s.SessionID, *fast, want)
		}
	}
	for _, s := range []*storage.Session{
		{SessionID: "s", Summary: &storage.Summary{Summary: "x"}},
		{SessionID: "s", SessionState: map[string]any{"t": struct{ A int }{1}}},
		{SessionID: "s", SessionName: "\xff"},
	} {
		if _, ok := decodedForm(s); ok {
			t.Errorf("decodedForm took %+v, which only JSON can tell", s)
		}
	}
	// firstForm gives both paths the same treatment.
	for _, s := range append(sessions, &storage.Session{SessionID: "s4", SessionState: map[string]any{"t": struct{ A int }{1}}}) {
		f, err := firstForm(s)
		if err != nil || f.Version != 1 || f.CreatedAt == 0 || f.UpdatedAt != f.CreatedAt && s.UpdatedAt == 0 {
			t.Fatalf("firstForm(%s) = %+v, %v", s.SessionID, f, err)
		}
	}
}
