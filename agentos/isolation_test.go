package agentos_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

const jwtSecret = "isolation-test-secret-of-32-bytes!!"

// signHS256 makes a token by hand (not with the verifier's library), so
// the test checks the verifier against the JWT format itself.
func signHS256(t testing.TB, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(jwtSecret))
	mac.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// userScopes is everything a non-admin user of the app gets.
var userScopes = []string{
	"agents:read", "agents:run", "teams:read", "teams:run", "workflows:read", "workflows:run",
	"sessions:read", "sessions:write", "sessions:delete", "memories:read", "memories:write", "memories:delete",
}

func tokenFor(t testing.TB, sub string, scopes ...string) string {
	claims := map[string]any{"scopes": scopes, "exp": time.Now().Add(time.Hour).Unix()}
	if sub != "" {
		claims["sub"] = sub
	}
	return signHS256(t, claims)
}

type jwtOS struct {
	srv *httptest.Server
}

// isolationOS serves an agent whose tool needs confirmation, a team, and
// a workflow with a confirmation step, on SQLite, in JWT mode with user
// isolation.
func isolationOS(t *testing.T) *jwtOS {
	t.Helper()
	store, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db")})
	if err != nil {
		t.Fatal(err)
	}
	send, m := mailParts(new(atomic.Int32))
	a, err := agent.New(agent.Config{ID: "mail-agent", Name: "Mail Agent", Model: m, Tools: []tool.Provider{send}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	member, _ := agent.New(agent.Config{Name: "Helper", Model: modeltest.New()})
	tm, err := team.New(team.Config{ID: "ops-team", Name: "Ops", Model: modeltest.NewFunc(func(*model.Request) modeltest.Response {
		return modeltest.Response{Content: "team answer"}
	}), Members: []run.Executor{member}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{ID: "review-flow", Name: "Review", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "review", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "reviewed"}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{ID: "iso-os", Agents: []*agent.Agent{a}, Teams: []*team.Team{tm}, Workflows: []*workflow.Workflow{wf},
		Store: store, Closers: []func() error{store.Close},
		Authorization: &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	return &jwtOS{srv: srv}
}

type reply struct {
	status int
	body   string
}

func (r reply) json(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("not JSON (%d): %s", r.status, r.body)
	}
	return v
}

// call sends a request: a url.Values body as a form, anything else as
// JSON.
func (j *jwtOS) call(t testing.TB, token, method, path string, body any) reply {
	t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		rd, ct = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	default:
		raw, _ := json.Marshal(b)
		rd, ct = strings.NewReader(string(raw)), "application/json"
	}
	req, err := http.NewRequest(method, j.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := j.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b)}
}

func (j *jwtOS) ok(t testing.TB, token, method, path string, body any) map[string]any {
	t.Helper()
	r := j.call(t, token, method, path, body)
	if r.status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
	}
	m, _ := r.json(t).(map[string]any)
	return m
}

// aliceData is what alice stores before bob tries to reach it.
type aliceData struct {
	session, run         string // a completed agent run
	pausedSession, pause string // an agent run waiting for confirmation
	teamSession, teamRun string
	wfSession, wfRun     string // a paused workflow run
	memory               string
}

func seedAlice(t *testing.T, j *jwtOS, alice string) aliceData {
	t.Helper()
	var d aliceData
	out := j.ok(t, alice, "POST", "/agents/mail-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"alice-s1"}})
	d.session, d.run = "alice-s1", out["run_id"].(string)
	out = j.ok(t, alice, "POST", "/agents/mail-agent/runs", url.Values{"message": {"send an email"}, "stream": {"false"}, "session_id": {"alice-s2"}})
	if out["status"] != "PAUSED" {
		t.Fatalf("alice's email run: %v", out["status"])
	}
	d.pausedSession, d.pause = "alice-s2", out["run_id"].(string)
	out = j.ok(t, alice, "POST", "/teams/ops-team/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"alice-t1"}})
	d.teamSession, d.teamRun = "alice-t1", out["run_id"].(string)
	out = j.ok(t, alice, "POST", "/workflows/review-flow/runs", url.Values{"message": {"go"}, "stream": {"false"}, "session_id": {"alice-w1"}})
	if out["status"] != "PAUSED" {
		t.Fatalf("alice's workflow run: %v", out)
	}
	d.wfSession, d.wfRun = "alice-w1", out["run_id"].(string)
	out = j.ok(t, alice, "POST", "/memories", map[string]any{"memory": "alice likes tea", "topics": []string{"drinks"}})
	d.memory = out["memory_id"].(string)
	return d
}

// TestUserIsolationMatrix: bob, a user with every non-admin scope, tries
// every user-scoped route on alice's sessions, runs and memories; each
// answer is a 404, a 400 naming session_id, or a listing without
// alice's rows, and alice's data is intact afterwards. An admin sees
// everything.
func TestUserIsolationMatrix(t *testing.T) {
	j := isolationOS(t)
	alice, bob := tokenFor(t, "alice", userScopes...), tokenFor(t, "bob", userScopes...)
	admin := tokenFor(t, "root", "agent_os:admin")
	d := seedAlice(t, j, alice)

	notFound := func(method, path string, body any) {
		t.Helper()
		if r := j.call(t, bob, method, path, body); r.status != http.StatusNotFound {
			t.Errorf("bob %s %s: %d %s, want 404", method, path, r.status, r.body)
		} else if strings.Contains(r.body, `"alice"`) || strings.Contains(r.body, "alice likes") {
			t.Errorf("bob %s %s: the 404 tells of alice: %s", method, path, r.body)
		}
	}
	needsSession := func(method, path string, body any) {
		t.Helper()
		r := j.call(t, bob, method, path, body)
		if r.status != http.StatusBadRequest || !strings.Contains(r.body, "session_id is required") {
			t.Errorf("bob %s %s without session_id: %d %s, want 400 naming session_id", method, path, r.status, r.body)
		}
	}
	// GET of one run: session_id is a required query parameter (422).
	missingSession := func(path string) {
		t.Helper()
		r := j.call(t, bob, "GET", path, nil)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `"loc":["query","session_id"]`) {
			t.Errorf("bob GET %s without session_id: %d %s, want 422 naming session_id", path, r.status, r.body)
		}
	}
	noAlice := func(method, path string) {
		t.Helper()
		r := j.call(t, bob, method, path, nil)
		if r.status != http.StatusOK {
			t.Errorf("bob %s %s: %d %s", method, path, r.status, r.body)
			return
		}
		if strings.Contains(r.body, "alice") {
			t.Errorf("bob %s %s shows alice's data: %s", method, path, r.body)
		}
	}

	// Sessions.
	for _, q := range []string{"", "?user_id=alice", "?session_type=team&user_id=alice", "?session_type=workflow"} {
		noAlice("GET", "/sessions"+q)
	}
	for _, s := range []string{d.session, d.pausedSession} {
		notFound("GET", "/sessions/"+s, nil)
		notFound("GET", "/sessions/"+s+"?user_id=alice", nil)
		notFound("GET", "/sessions/"+s+"/runs", nil)
		notFound("PATCH", "/sessions/"+s, map[string]any{"session_name": "bob was here"})
		notFound("POST", "/sessions/"+s+"/rename", map[string]any{"session_name": "bob was here"})
	}
	notFound("GET", "/sessions/"+d.session+"/runs/"+d.run, nil)
	notFound("GET", "/sessions/"+d.teamSession+"?session_type=team", nil)
	notFound("GET", "/sessions/"+d.wfSession+"?session_type=workflow", nil)
	j.call(t, bob, "DELETE", "/sessions/"+d.session, nil)
	j.call(t, bob, "DELETE", "/sessions?user_id=alice", map[string]any{"session_ids": []string{d.session, d.pausedSession}, "session_types": []string{"agent", "agent"}})
	// A session bob creates is bob's, whatever user_id he sends.
	created := j.ok(t, bob, "POST", "/sessions", map[string]any{"session_id": "bob-made", "user_id": "alice"})
	if created["user_id"] != "bob" {
		t.Errorf("bob's POST /sessions with user_id=alice stored user_id %v", created["user_id"])
	}

	// Agent and team runs.
	for _, k := range []struct{ prefix, session, run string }{
		{"/agents/mail-agent", d.session, d.run}, {"/teams/ops-team", d.teamSession, d.teamRun},
	} {
		notFound("GET", k.prefix+"/runs?session_id="+k.session, nil)
		missingSession(k.prefix + "/runs/" + k.run)
		notFound("GET", k.prefix+"/runs/"+k.run+"?session_id="+k.session, nil)
		needsSession("POST", k.prefix+"/runs/"+k.run+"/cancel", nil)
		notFound("POST", k.prefix+"/runs/"+k.run+"/cancel?session_id="+k.session, nil)
		needsSession("POST", k.prefix+"/runs/"+k.run+"/resume", url.Values{})
		notFound("POST", k.prefix+"/runs/"+k.run+"/resume", url.Values{"session_id": {k.session}})
		// A run into alice's session is refused, not appended to it.
		notFound("POST", k.prefix+"/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {k.session}})
	}
	notFound("POST", "/agents/mail-agent/runs/"+d.pause+"/continue",
		url.Values{"session_id": {d.pausedSession}, "tools": {`[{"tool_call_id":"c1","tool_name":"send_email","tool_args":{"to":"alice@example.com"},"confirmed":true}]`}, "stream": {"false"}})
	// bob's own run is bob's, whatever user_id he sends.
	mine := j.ok(t, bob, "POST", "/agents/mail-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "user_id": {"alice"}})
	if mine["user_id"] != "bob" {
		t.Errorf("bob's run with user_id=alice is attributed to %v", mine["user_id"])
	}

	// Workflow runs.
	notFound("GET", "/workflows/review-flow/runs?session_id="+d.wfSession, nil)
	missingSession("/workflows/review-flow/runs/" + d.wfRun)
	notFound("GET", "/workflows/review-flow/runs/"+d.wfRun+"?session_id="+d.wfSession, nil)
	needsSession("POST", "/workflows/review-flow/runs/"+d.wfRun+"/cancel", nil)
	notFound("POST", "/workflows/review-flow/runs/"+d.wfRun+"/cancel?session_id="+d.wfSession, nil)
	needsSession("POST", "/workflows/review-flow/runs/"+d.wfRun+"/continue", url.Values{"stream": {"false"}})
	notFound("POST", "/workflows/review-flow/runs/"+d.wfRun+"/continue", url.Values{"session_id": {d.wfSession}, "stream": {"false"}})
	notFound("POST", "/workflows/review-flow/runs/"+d.wfRun+"/resume", url.Values{"session_id": {d.wfSession}})
	notFound("POST", "/workflows/review-flow/runs", url.Values{"message": {"go"}, "stream": {"false"}, "session_id": {d.wfSession}})

	// Memories.
	noAlice("GET", "/memories")
	noAlice("GET", "/memories?user_id=alice")
	noAlice("GET", "/memory_topics?user_id=alice")
	noAlice("GET", "/user_memory_stats")
	notFound("GET", "/memories/"+d.memory, nil)
	notFound("GET", "/memories/"+d.memory+"?user_id=alice", nil)
	notFound("PATCH", "/memories/"+d.memory, map[string]any{"memory": "bob rewrote this", "user_id": "alice"})
	j.call(t, bob, "DELETE", "/memories/"+d.memory+"?user_id=alice", nil)
	j.call(t, bob, "DELETE", "/memories", map[string]any{"memory_ids": []string{d.memory}, "user_id": "alice"})
	bm := j.ok(t, bob, "POST", "/memories", map[string]any{"memory": "bob likes coffee", "user_id": "alice"})
	if bm["user_id"] != "bob" {
		t.Errorf("bob's POST /memories with user_id=alice stored user_id %v", bm["user_id"])
	}

	// Alice's data is untouched, and alice still reaches it.
	for _, s := range []string{d.session, d.pausedSession} {
		got := j.ok(t, alice, "GET", "/sessions/"+s, nil)
		if got["session_name"] == "bob was here" {
			t.Errorf("bob renamed alice's session %s", s)
		}
	}
	if got := j.ok(t, alice, "GET", "/memories/"+d.memory, nil); got["memory"] != "alice likes tea" {
		t.Errorf("alice's memory after bob: %v", got)
	}
	if got := j.ok(t, alice, "GET", "/agents/mail-agent/runs/"+d.pause+"?session_id="+d.pausedSession, nil); got["status"] != "PAUSED" {
		t.Errorf("alice's paused run after bob: %v", got["status"])
	}
	if got := j.ok(t, alice, "GET", "/workflows/review-flow/runs/"+d.wfRun+"?session_id="+d.wfSession, nil); got["status"] != "PAUSED" {
		t.Errorf("alice's paused workflow after bob: %v", got["status"])
	}
	// alice's listings hold none of bob's rows either.
	for _, p := range []string{"/sessions", "/memories"} {
		if r := j.call(t, alice, "GET", p+"?user_id=bob", nil); r.status != 200 || strings.Contains(r.body, "bob") {
			t.Errorf("alice GET %s?user_id=bob: %d %s", p, r.status, r.body)
		}
	}
	// alice can continue her own run.
	cont := j.ok(t, alice, "POST", "/agents/mail-agent/runs/"+d.pause+"/continue",
		url.Values{"session_id": {d.pausedSession}, "tools": {`[{"tool_call_id":"c1","tool_name":"send_email","tool_args":{"to":"alice@example.com"},"confirmed":true}]`}, "stream": {"false"}})
	if cont["status"] != "COMPLETED" {
		t.Errorf("alice's continue: %v", cont["status"])
	}

	// The admin is not confined: it sees both users.
	r := j.call(t, admin, "GET", "/sessions", nil)
	if !strings.Contains(r.body, "alice-s1") || !strings.Contains(r.body, "bob-made") {
		t.Errorf("admin GET /sessions: %d %s", r.status, r.body)
	}
	if r := j.call(t, admin, "GET", "/memories/"+d.memory, nil); r.status != 200 {
		t.Errorf("admin GET alice's memory: %d %s", r.status, r.body)
	}
}

// TestTokenWithoutSubRefusedUnderIsolation: isolation needs to know whose
// data it is.
func TestTokenWithoutSubRefusedUnderIsolation(t *testing.T) {
	j := isolationOS(t)
	r := j.call(t, tokenFor(t, "", userScopes...), "GET", "/sessions", nil)
	if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "sub") {
		t.Errorf("token without sub: %d %s", r.status, r.body)
	}
	// An admin token needs none.
	if r := j.call(t, tokenFor(t, "", "agent_os:admin"), "GET", "/sessions", nil); r.status != 200 {
		t.Errorf("admin token without sub: %d %s", r.status, r.body)
	}
}

// TestScopesOnRoutes: agno's scope table, per-resource scopes, listing
// filters, the admin scope and the legacy system: alias.
func TestScopesOnRoutes(t *testing.T) {
	j := isolationOS(t)
	cases := []struct {
		name, method, path string
		body               any
		scopes             []string
		status             int
		contains           string
	}{
		{"no token", "GET", "/agents", nil, nil, 401, "Authorization header missing"},
		{"open route", "GET", "/health", nil, nil, 200, "ok"},
		{"config needs config:read", "GET", "/config", nil, []string{"agents:read"}, 403, "config:read"},
		{"config:read", "GET", "/config", nil, []string{"config:read"}, 200, "iso-os"},
		{"legacy system:read", "GET", "/config", nil, []string{"system:read"}, 200, "iso-os"},
		{"agent read, per resource", "GET", "/agents/mail-agent", nil, []string{"agents:mail-agent:read"}, 200, "Mail Agent"},
		{"agent read, other resource", "GET", "/agents/mail-agent", nil, []string{"agents:other:read"}, 403, "Insufficient permissions"},
		{"run needs run", "POST", "/agents/mail-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}}, []string{"agents:mail-agent:read"}, 403, "agents:run"},
		{"run, wildcard", "POST", "/agents/mail-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}}, []string{"agents:*:run"}, 200, "Hello"},
		{"run, per resource", "POST", "/agents/mail-agent/runs", url.Values{"message": {"hi"}, "stream": {"false"}}, []string{"agents:mail-agent:run"}, 200, "Hello"},
		{"listing filtered", "GET", "/agents", nil, []string{"agents:mail-agent:read"}, 200, "mail-agent"},
		{"listing with nothing readable", "GET", "/teams", nil, []string{"agents:read"}, 403, "teams:read"},
		{"sessions need sessions:read", "GET", "/sessions", nil, []string{"agents:read"}, 403, "sessions:read"},
		{"memories need memories:write", "POST", "/memories", map[string]any{"memory": "x"}, []string{"memories:read"}, 403, "memories:write"},
		{"admin", "GET", "/config", nil, []string{"agent_os:admin"}, 200, "iso-os"},
		{"resume needs run", "POST", "/agents/mail-agent/runs/r1/resume", url.Values{}, []string{"agents:read", "sessions:read"}, 403, "Access denied to run this agent"},
		{"resume of a workflow needs run", "POST", "/workflows/review-flow/runs/r1/resume", url.Values{}, []string{"workflows:review-flow:read"}, 403, "Access denied to run this workflow"},
		{"unknown scope format", "GET", "/config", nil, []string{"config"}, 403, "config:read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := ""
			if c.scopes != nil {
				tok = tokenFor(t, "carol", c.scopes...)
			}
			r := j.call(t, tok, c.method, c.path, c.body)
			if r.status != c.status || !strings.Contains(r.body, c.contains) {
				t.Errorf("%s %s with %v: %d %s, want %d containing %q", c.method, c.path, c.scopes, r.status, r.body, c.status, c.contains)
			}
		})
	}
	// A per-resource listing holds only what the token names.
	r := j.call(t, tokenFor(t, "carol", "workflows:other:read"), "GET", "/workflows", nil)
	if r.status != 200 || strings.Contains(r.body, "review-flow") {
		t.Errorf("GET /workflows with workflows:other:read: %d %s", r.status, r.body)
	}
}

// TestRefusedTokens: agno's 401 texts for expired, forged, none-signed
// and wrong-audience tokens.
func TestRefusedTokens(t *testing.T) {
	j := isolationOS(t)
	expired := signHS256(t, map[string]any{"sub": "alice", "scopes": userScopes, "exp": time.Now().Add(-time.Hour).Unix()})
	good := tokenFor(t, "alice", userScopes...)
	parts := strings.Split(good, ".")
	forged := parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString([]byte("not the signature"))
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	for _, c := range []struct{ name, token, want string }{
		{"expired", expired, "Token has expired"},
		{"forged", forged, "Invalid token"},
		{"alg none", none, "Invalid token"},
		{"garbage", "abc", "Invalid token"},
	} {
		r := j.call(t, c.token, "GET", "/sessions", nil)
		if r.status != http.StatusUnauthorized || !strings.Contains(r.body, c.want) {
			t.Errorf("%s token: %d %s, want 401 %q", c.name, r.status, r.body, c.want)
		}
	}
	if r := j.call(t, good, "GET", "/sessions", nil); r.status != 200 {
		t.Fatalf("good token: %d %s", r.status, r.body)
	}
}
