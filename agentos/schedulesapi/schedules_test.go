package schedulesapi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agno-go/agno/agentos/internal/httpapi"
)

// rightsHost grants the scopes it lists and owns no session but "mine".
type rightsHost struct {
	Host
	granted map[string]bool
}

func (h rightsHost) May(_ *httpapi.Caller, required []string, _, _ string) bool {
	return h.granted[required[0]]
}

func (h rightsHost) SessionOpenTo(_ context.Context, sessionID, _ string) bool {
	return sessionID == "mine"
}

func TestScheduleRights(t *testing.T) {
	g := New(rightsHost{granted: map[string]bool{"agents:run": true}}, Config{})
	user := &httpapi.Caller{UserID: "u", Isolated: true}
	for _, tc := range []struct {
		name             string
		c                *httpapi.Caller
		endpoint, method string
		session          string
		want             int // 0: allowed
	}{
		{"outside JWT mode", nil, "/sessions", "DELETE", "", 0},
		{"admin", &httpapi.Caller{Admin: true}, "/sessions", "DELETE", "", 0},
		{"not a run endpoint", user, "/sessions", "DELETE", "", 403},
		{"a run endpoint by GET", user, "/agents/a/runs", "GET", "", 403},
		{"a run without the scope", user, "/teams/t/runs", "POST", "", 403},
		{"a run", user, "/agents/a/runs", "post", "", 0},
		{"a run in one's session", user, "/agents/a/runs", "POST", "mine", 0},
		{"a run in another's session", user, "/agents/a/runs", "POST", "theirs", 404},
	} {
		status := 0
		if err := g.scheduleRights(context.Background(), tc.c, tc.endpoint, tc.method, map[string]any{"session_id": tc.session}); err != nil {
			status = err.Status
		}
		if status != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, status, tc.want)
		}
	}
}

func TestFormValue(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, "None"}, {true, "true"}, {"text", "text"}, {json.Number("1.50"), "1.50"}, {2.5, "2.5"},
		{map[string]any{"a": 1.0}, `{"a":1}`}, {[]any{"x"}, `["x"]`},
	} {
		if got := formValue(tc.in); got != tc.want {
			t.Errorf("formValue(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUnpinned(t *testing.T) {
	got := unpinned(`{"agno_component_version": 3, "k": "v"}`).(map[string]any)
	if len(got) != 1 || got["k"] != "v" {
		t.Errorf("unpinned = %v, want the pin dropped", got)
	}
	if got := unpinned("not json"); got != "not json" {
		t.Errorf("unpinned kept no text: %v", got)
	}
}
