package auth_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/agentos/auth"
)

func hsVerifier(t *testing.T, admin string) *auth.Verifier {
	t.Helper()
	return verifier(t, auth.Config{Algorithm: "HS256", VerificationKeys: []string{"secret"}, AdminScope: admin})
}

// The docstring examples of agno's has_required_scopes and matches_scope
// (os/scopes.py), then the rules around them.
func TestAllowed(t *testing.T) {
	v := hsVerifier(t, "")
	for _, tc := range []struct {
		name        string
		scopes, req []string
		typ, id     string
		want        bool
	}{
		{"docstring: global", []string{"agents:read"}, []string{"agents:read"}, "", "", true},
		{"docstring: per-resource", []string{"agents:web-agent:run"}, []string{"agents:run"}, "agents", "web-agent", true},
		{"docstring: wildcard", []string{"agents:*:run"}, []string{"agents:run"}, "agents", "any-agent", true},
		{"docstring matches_scope: system:read", []string{"system:read"}, []string{"system:read"}, "", "", true},

		{"nothing required", nil, nil, "", "", true},
		{"global grants a resource", []string{"agents:run"}, []string{"agents:run"}, "agents", "web-agent", true},
		{"another agent", []string{"agents:other:run"}, []string{"agents:run"}, "agents", "web-agent", false},
		{"other action", []string{"agents:web-agent:read"}, []string{"agents:run"}, "agents", "web-agent", false},
		{"per-resource is not global", []string{"agents:web-agent:run"}, []string{"agents:run"}, "", "", false},
		{"wildcard is global", []string{"agents:*:read"}, []string{"agents:read"}, "", "", true},
		{"type alone is no resource", []string{"agents:a:read"}, []string{"agents:read"}, "agents", "", false},
		{"legacy system is config", []string{"system:read"}, []string{"config:read"}, "", "", true},
		{"legacy per-resource alias", []string{"system:*:write"}, []string{"config:write"}, "", "", true},
		{"other resource", []string{"teams:read"}, []string{"agents:read"}, "", "", false},
		{"unknown format", []string{"agents"}, []string{"agents:read"}, "", "", false},
		{"four parts", []string{"agents:a:b:read"}, []string{"agents:read"}, "", "", false},
		{"admin", []string{"agent_os:admin"}, []string{"config:write", "agents:delete"}, "agents", "x", true},
		{"every required scope", []string{"sessions:read"}, []string{"sessions:read", "sessions:write"}, "", "", false},
		// The required resource is the route's type, whatever the
		// required scope names (agno builds <type>:<resource-id>:<action>).
		{"route type decides", []string{"agents:a1:read"}, []string{"knowledge:read"}, "agents", "a1", true},
	} {
		if got := v.Allowed(tc.scopes, tc.req, tc.typ, tc.id); got != tc.want {
			t.Errorf("%s: Allowed(%q, %q, %q, %q) = %v", tc.name, tc.scopes, tc.req, tc.typ, tc.id, got)
		}
	}

	custom := hsVerifier(t, "os:root")
	if !custom.Allowed([]string{"os:root"}, []string{"agents:delete"}, "", "") || !custom.IsAdmin([]string{"x", "os:root"}) {
		t.Error("custom admin scope does not grant everything")
	}
	if custom.Allowed([]string{"agent_os:admin"}, []string{"agents:delete"}, "", "") || custom.IsAdmin([]string{"agent_os:admin"}) {
		t.Error("agent_os:admin is admin though admin_scope is os:root")
	}
	if !v.IsAdmin([]string{"agent_os:admin"}) || v.IsAdmin([]string{"agents:read"}) || v.IsAdmin(nil) {
		t.Error("IsAdmin")
	}
}

// The docstring examples of agno's get_accessible_resource_ids.
func TestAccessible(t *testing.T) {
	v := hsVerifier(t, "")
	for _, tc := range []struct {
		name    string
		scopes  []string
		action  string
		wantAll bool
		wantIDs []string
	}{
		{"docstring: two agents", []string{"agents:agent-1:read", "agents:agent-2:read"}, "", false, []string{"agent-1", "agent-2"}},
		{"docstring: wildcard", []string{"agents:*:read"}, "", true, nil},
		{"docstring: global", []string{"agents:read"}, "", true, nil},
		// The docstring says ["admin"] gives {"*"}, but "admin" is not the
		// admin scope agent_os:admin and parses as unknown: agno's code
		// returns the empty set.
		{"docstring: admin (code's answer)", []string{"admin"}, "", false, nil},
		{"docstring: read is not run", []string{"agents:agent-1:read"}, "run", false, nil},

		{"admin scope", []string{"agent_os:admin"}, "", true, nil},
		{"read or run by default", []string{"agents:a:run", "agents:b:read", "agents:c:write"}, "", false, []string{"a", "b"}},
		{"global run for action run", []string{"agents:run"}, "run", true, nil},
		{"global write grants no listing", []string{"agents:write"}, "", false, nil},
		{"other type", []string{"teams:t:read"}, "", false, nil},
		{"duplicates once", []string{"agents:a:read", "agents:a:run"}, "", false, []string{"a"}},
	} {
		all, ids := v.Accessible(tc.scopes, "agents", tc.action)
		if all != tc.wantAll || !cmp.Equal(ids, tc.wantIDs) {
			t.Errorf("%s: Accessible(%q, agents, %q) = %v %q, want %v %q", tc.name, tc.scopes, tc.action, all, ids, tc.wantAll, tc.wantIDs)
		}
	}
	admin := hsVerifier(t, "admin")
	if all, _ := admin.Accessible([]string{"admin"}, "agents", ""); !all {
		t.Error(`with admin_scope "admin", ["admin"] is not everything`)
	}
}

// Every route AgentOS serves (grep 'HandleFunc("' agentos/*.go, and the
// agent and team run routes), with the scopes agno v2.6.13's
// get_default_scope_mappings requires.
func TestRouteForServedRoutes(t *testing.T) {
	type want struct {
		scope, typ, id string
	}
	for _, tc := range []struct {
		method, path string
		want         want
	}{
		{"GET", "/", want{}},
		{"GET", "/health", want{}},
		{"GET", "/ready", want{}},
		{"GET", "/info", want{}},
		{"GET", "/docs", want{}},
		{"GET", "/openapi.json", want{}},
		{"GET", "/config", want{scope: "config:read"}},
		{"GET", "/models", want{scope: "config:read"}},
		{"GET", "/registry", want{scope: "registry:read"}},

		{"GET", "/agents", want{"agents:read", "agents", ""}},
		{"GET", "/agents/a1", want{"agents:read", "agents", "a1"}},
		{"POST", "/agents/a1/runs", want{"agents:run", "agents", "a1"}},
		{"POST", "/agents/a1/runs/r1/cancel", want{"agents:run", "agents", "a1"}},
		{"POST", "/agents/a1/runs/r1/continue", want{"agents:run", "agents", "a1"}},
		{"POST", "/agents/a1/runs/r1/resume", want{"", "agents", "a1"}}, // unmapped in agno: its route checks agents:run
		{"GET", "/agents/a1/runs", want{"agents:read", "agents", "a1"}},
		{"GET", "/agents/a1/runs/r1", want{"agents:read", "agents", "a1"}},

		{"GET", "/teams", want{"teams:read", "teams", ""}},
		{"GET", "/teams/t1", want{"teams:read", "teams", "t1"}},
		{"POST", "/teams/t1/runs", want{"teams:run", "teams", "t1"}},
		{"POST", "/teams/t1/runs/r1/cancel", want{"teams:run", "teams", "t1"}},
		{"POST", "/teams/t1/runs/r1/continue", want{"teams:run", "teams", "t1"}},
		{"POST", "/teams/t1/runs/r1/resume", want{"", "teams", "t1"}},
		{"GET", "/teams/t1/runs", want{"teams:read", "teams", "t1"}},
		{"GET", "/teams/t1/runs/r1", want{"teams:read", "teams", "t1"}},

		{"GET", "/workflows", want{"workflows:read", "workflows", ""}},
		{"GET", "/workflows/w1", want{"workflows:read", "workflows", "w1"}},
		{"POST", "/workflows/w1/runs", want{"workflows:run", "workflows", "w1"}},
		{"POST", "/workflows/w1/runs/r1/cancel", want{"workflows:run", "workflows", "w1"}},
		{"POST", "/workflows/w1/runs/r1/continue", want{"workflows:run", "workflows", "w1"}},
		{"POST", "/workflows/w1/runs/r1/resume", want{"", "workflows", "w1"}},
		{"GET", "/workflows/w1/runs", want{"workflows:read", "workflows", "w1"}},
		{"GET", "/workflows/w1/runs/r1", want{"workflows:read", "workflows", "w1"}},
		// The mappings' answer; agno's HTTP middleware never sees the
		// WebSocket, which authenticates in band.
		{"GET", "/workflows/ws", want{"workflows:read", "workflows", "ws"}},

		{"GET", "/sessions", want{scope: "sessions:read"}},
		{"POST", "/sessions", want{scope: "sessions:write"}},
		{"DELETE", "/sessions", want{scope: "sessions:delete"}},
		{"GET", "/sessions/s1", want{scope: "sessions:read"}},
		{"PATCH", "/sessions/s1", want{scope: "sessions:write"}},
		{"DELETE", "/sessions/s1", want{scope: "sessions:delete"}},
		{"POST", "/sessions/s1/rename", want{scope: "sessions:write"}},
		{"GET", "/sessions/s1/runs", want{scope: "sessions:read"}},
		{"GET", "/sessions/s1/runs/r1", want{scope: "sessions:read"}},

		{"GET", "/memories", want{scope: "memories:read"}},
		{"POST", "/memories", want{scope: "memories:write"}},
		{"DELETE", "/memories", want{scope: "memories:delete"}},
		{"GET", "/memories/m1", want{scope: "memories:read"}},
		{"PATCH", "/memories/m1", want{scope: "memories:write"}},
		{"DELETE", "/memories/m1", want{scope: "memories:delete"}},
		{"GET", "/memory_topics", want{scope: "memories:read"}},
		{"GET", "/user_memory_stats", want{scope: "memories:read"}},
		{"POST", "/optimize-memories", want{scope: "memories:write"}},

		{"GET", "/knowledge/config", want{scope: "knowledge:read"}},
		{"GET", "/knowledge/content", want{scope: "knowledge:read"}},
		{"POST", "/knowledge/content", want{scope: "knowledge:write"}},
		{"DELETE", "/knowledge/content", want{scope: "knowledge:delete"}},
		{"GET", "/knowledge/content/c1", want{scope: "knowledge:read"}},
		{"PATCH", "/knowledge/content/c1", want{scope: "knowledge:write"}},
		{"DELETE", "/knowledge/content/c1", want{scope: "knowledge:delete"}},
		{"GET", "/knowledge/content/c1/status", want{scope: "knowledge:read"}},
		{"POST", "/knowledge/remote-content", want{scope: "knowledge:write"}},
		{"POST", "/knowledge/search", want{scope: "knowledge:read"}},
		{"GET", "/knowledge/k1/sources", want{scope: "knowledge:read"}},
		{"GET", "/knowledge/k1/sources/s1/files", want{scope: "knowledge:read"}},
	} {
		r := auth.RouteFor(tc.method, tc.path)
		var wantScopes []string
		if tc.want.scope != "" {
			wantScopes = []string{tc.want.scope}
		}
		got := want{typ: r.ResourceType, id: r.ResourceID}
		if !cmp.Equal(r.Scopes, wantScopes) || got.typ != tc.want.typ || got.id != tc.want.id {
			t.Errorf("RouteFor(%s %s) = %+v, want scopes %q type %q id %q", tc.method, tc.path, r, wantScopes, tc.want.typ, tc.want.id)
		}
	}
}

// agno's mappings beyond the routes served here, and its matching rules.
func TestRouteForMatching(t *testing.T) {
	for _, tc := range []struct {
		method, path, scope string
	}{
		{"POST", "/agents", "agents:write"},
		{"PATCH", "/teams/t1", "teams:write"},
		{"DELETE", "/workflows/w1", "workflows:delete"},
		{"PUT", "/agents/a1", ""},        // no PUT mapping
		{"POST", "/agents/a1/other", ""}, // unmapped routes need no scope
		{"GET", "/approvals/count", "approvals:read"},
		{"POST", "/approvals/p1/resolve", "approvals:write"},
		{"POST", "/databases/all/migrate", "config:write"},
		{"POST", "/databases/db1/migrate", "config:write"},
		{"GET", "/eval-runs/e1", "evals:read"},
		{"DELETE", "/eval-runs/e1", ""}, // agno maps only DELETE /eval-runs
		{"POST", "/metrics/refresh", "metrics:write"},
		{"GET", "/metrics/refresh/status", "metrics:read"},
		{"POST", "/traces/search", "traces:read"},
		{"GET", "/trace_session_stats", "traces:read"},
		{"POST", "/schedules/s1/trigger", "schedules:write"},
		{"GET", "/schedules/s1/runs/r1", "schedules:read"},
		{"POST", "/components/c1/restore", "components:delete"},
		{"POST", "/components/c1/configs/v2/set-current", "components:write"},
		{"GET", "/learnings", ""}, // after v2.6.13
		{"GET", "/service-accounts", ""},
		// fnmatch's * crosses /: the first GET /agents/* pattern matches.
		{"GET", "/agents/a1/anything/deeper", "agents:read"},
		{"GET", "/agents/", "agents:read"},
	} {
		var want []string
		if tc.scope != "" {
			want = []string{tc.scope}
		}
		if got := auth.RouteFor(tc.method, tc.path).Scopes; !cmp.Equal(got, want) {
			t.Errorf("RouteFor(%s %s) scopes %q, want %q", tc.method, tc.path, got, want)
		}
	}
	// The resource is the first segment's, never a later one's.
	for _, path := range []string{"/knowledge/agents/sources", "/sessions/agents-1", "/agentsx/a"} {
		if r := auth.RouteFor("GET", path); r.ResourceType != "" || r.ResourceID != "" {
			t.Errorf("RouteFor(GET %s) resource %q %q", path, r.ResourceType, r.ResourceID)
		}
	}
	if r := auth.RouteFor("GET", "/agents/"); r.ResourceType != "agents" || r.ResourceID != "" {
		t.Errorf("GET /agents/: %+v", r)
	}
}

func TestPathMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/a2a/*", "/a2a/agents/x/v1/message:send", true},
		{"/a2a/*", "/a2a", false},
		{"/health", "/health", true},
		{"/health", "/healthz", false},
		{"/a?c", "/abc", true},
		{"/a?c", "/a/c", true},
		{"/[ab]x", "/bx", true},
		{"/[!ab]x", "/bx", false},
		{"/[!ab]x", "/cx", true},
		{"/[a-c]", "/b", true},
		{"/[", "/[", true},
		{"/x.y", "/xzy", false},
		{"*", "", true},
	} {
		if got := auth.PathMatch(tc.pattern, tc.path); got != tc.want {
			t.Errorf("PathMatch(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}
