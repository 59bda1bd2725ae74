package agentos_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/workflow"
)

// approvalEnv is an AgentOS over real HTTP whose "cashier" agent (a fake
// OpenAI server as its model) calls pay (approval "required") for
// "pay" and refund (confirmation with approval "audit") for "refund".
type approvalEnv struct {
	srv      *httptest.Server
	paid     atomic.Int64
	refunded atomic.Int64
	// toolAnswers are the tool messages the model was sent back.
	mu          sync.Mutex
	toolAnswers []string
}

func newApprovalEnv(t *testing.T, mods ...func(*agentos.Config)) *approvalEnv {
	t.Helper()
	e := &approvalEnv{}
	llm := modeltest.NewServer(modeltest.ServerConfig{NoRecord: true, Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			e.mu.Lock()
			e.toolAnswers = append(e.toolAnswers, last.Content)
			e.mu.Unlock()
			return modeltest.Response{Content: "Done: " + last.Content}
		}
		if strings.Contains(last.Content, "refund") {
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "refund", `{"amount":7}`)}}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":42}`)}}
	}})
	t.Cleanup(llm.Close)
	m, err := openai.New(openai.Config{ID: "fake-model", BaseURL: llm.URL, APIKey: "k", HTTPClient: llm.Client()})
	if err != nil {
		t.Fatal(err)
	}
	pay := tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		e.paid.Add(int64(a.Amount))
		return "paid " + strconv.Itoa(a.Amount), nil
	}))
	pay.ApprovalType = tool.ApprovalRequired // set after New: the agent's validation applies it
	refund := tool.Must(tool.New("refund", "refund an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		e.refunded.Add(int64(a.Amount))
		return "refunded " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresConfirmation()))
	refund.ApprovalType = tool.ApprovalAudit
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Config{ID: "cashier", Name: "Cashier", Model: m, Store: st, Tools: []tool.Provider{pay, refund}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := agentos.Config{Agents: []*agent.Agent{a}, Store: st, DB: sqldbtest.SQLite(t), Logger: slog.New(slog.DiscardHandler)}
	for _, m := range mods {
		m(&cfg)
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		e.srv.Close()
		_ = o.Close()
		_ = st.Close()
	})
	return e
}

type approvalResp struct {
	status int
	body   []byte
}

func (r approvalResp) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("%d %s: %v", r.status, r.body, err)
	}
	return m
}

func (e *approvalEnv) do(t *testing.T, method, path, token, contentType, body string) approvalResp {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return send(t, req)
}

// send sends req and reads the answer.
func send(t *testing.T, req *http.Request) approvalResp {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return approvalResp{status: resp.StatusCode, body: b}
}

const approvalFormType = "application/x-www-form-urlencoded"

// pause runs the cashier with msg and returns the paused run.
func (e *approvalEnv) pause(t *testing.T, token, session, msg string) map[string]any {
	t.Helper()
	form := url.Values{"message": {msg}, "stream": {"false"}, "session_id": {session}}
	r := e.do(t, "POST", "/agents/cashier/runs", token, approvalFormType, form.Encode())
	out := r.obj(t)
	if r.status != 200 || out["status"] != "PAUSED" {
		t.Fatalf("run: %d %s", r.status, r.body)
	}
	return out
}

// pendingFor waits until the run's pending approval is recorded.
func (e *approvalEnv) pendingFor(t *testing.T, token, runID string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := e.do(t, "GET", "/approvals?status=pending&run_id="+runID, token, "", "")
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		if data := r.obj(t)["data"].([]any); len(data) > 0 {
			return data[0].(map[string]any)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pending approval was recorded for run %s", runID)
	return nil
}

// waitRun waits for the stored run's status.
func (e *approvalEnv) waitRun(t *testing.T, token, runID, session, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last approvalResp
	for time.Now().Before(deadline) {
		last = e.do(t, "GET", "/agents/cashier/runs/"+runID+"?session_id="+session, token, "", "")
		if last.status == 200 && last.obj(t)["status"] == want {
			return last.obj(t)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("run %s did not reach %s: %d %s", runID, want, last.status, last.body)
	return nil
}

// waitApproval waits until the approval has the field value.
func (e *approvalEnv) waitApproval(t *testing.T, id, field string, want any) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got map[string]any
	for time.Now().Before(deadline) {
		got = e.do(t, "GET", "/approvals/"+id, "", "", "").obj(t)
		if got[field] == want {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("approval %s: %s is %v, want %v (%v)", id, field, got[field], want, got)
	return nil
}

func approvalKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func approvalSameKeys(t *testing.T, what string, m map[string]any, want []string) {
	t.Helper()
	w := slices.Clone(want)
	slices.Sort(w)
	if got := approvalKeys(m); !slices.Equal(got, w) {
		t.Fatalf("%s keys:\n got  %v\n want %v", what, got, w)
	}
}

// agno's os/routers/approvals/schema.py models, field by field.
var (
	approvalResponseFields = []string{"id", "run_id", "session_id", "status", "source_type", "approval_type", "pause_type", "tool_name",
		"tool_args", "expires_at", "agent_id", "team_id", "workflow_id", "user_id", "schedule_id", "schedule_run_id", "source_name",
		"requirements", "context", "resolution_data", "resolved_by", "resolved_at", "created_at", "updated_at", "run_status"}
	approvalStatusFields = []string{"approval_id", "status", "run_id", "resolved_at", "resolved_by"}
	approvalPageFields   = []string{"page", "limit", "total_pages", "total_count", "search_time_ms"}
)

func TestApprovalRequiredRoundTrip(t *testing.T) {
	e := newApprovalEnv(t)
	out := e.pause(t, "", "s1", "pay 42")
	runID := out["run_id"].(string)
	tools := out["tools"].([]any)
	te := tools[0].(map[string]any)
	if te["approval_type"] != "required" || te["approval_id"] == nil || te["requires_confirmation"] != true {
		t.Fatalf("paused tool execution: %v", te)
	}

	a := e.pendingFor(t, "", runID)
	if a["id"] != te["approval_id"] || a["tool_name"] != "pay" || a["agent_id"] != "cashier" || a["source_type"] != "agent" ||
		a["source_name"] != "Cashier" || a["pause_type"] != "confirmation" || a["run_status"] != "PAUSED" || a["session_id"] != "s1" {
		t.Fatalf("approval: %v", a)
	}
	if args, _ := a["tool_args"].(map[string]any); args["amount"] != 42.0 {
		t.Fatalf("tool_args: %v", a["tool_args"])
	}
	id := a["id"].(string)

	// Golden shapes (agno's ApprovalResponse, every field; nulls as pydantic).
	one := e.do(t, "GET", "/approvals/"+id, "", "", "").obj(t)
	approvalSameKeys(t, "ApprovalResponse", one, approvalResponseFields)
	for _, k := range []string{"team_id", "workflow_id", "user_id", "schedule_id", "schedule_run_id", "expires_at", "resolution_data",
		"resolved_by", "resolved_at", "updated_at"} {
		if v, ok := one[k]; !ok || v != nil {
			t.Errorf("%s = %v, want null", k, v)
		}
	}
	if _, ok := one["requirements"].([]any); !ok {
		t.Errorf("requirements: %v", one["requirements"])
	}
	if names, _ := one["context"].(map[string]any)["tool_names"].([]any); len(names) != 1 || names[0] != "pay" {
		t.Errorf("context: %v", one["context"])
	}
	list := e.do(t, "GET", "/approvals", "", "", "").obj(t)
	approvalSameKeys(t, "PaginatedResponse", list, []string{"data", "meta"})
	approvalSameKeys(t, "PaginationInfo", list["meta"].(map[string]any), approvalPageFields)
	if m := list["meta"].(map[string]any); m["limit"] != 100.0 || m["page"] != 1.0 || m["total_count"] != 1.0 || m["total_pages"] != 1.0 {
		t.Errorf("meta: %v", m)
	}
	count := e.do(t, "GET", "/approvals/count", "", "", "").obj(t)
	approvalSameKeys(t, "ApprovalCountResponse", count, []string{"count"})
	if count["count"] != 1.0 {
		t.Errorf("count: %v", count)
	}
	st := e.do(t, "GET", "/approvals/"+id+"/status", "", "", "").obj(t)
	approvalSameKeys(t, "ApprovalStatusResponse", st, approvalStatusFields)
	if st["status"] != "pending" || st["run_id"] != runID || st["resolved_at"] != nil {
		t.Errorf("status: %v", st)
	}

	r := e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"approved","resolved_by":"boss"}`)
	res := r.obj(t)
	if r.status != 200 || res["status"] != "approved" || res["resolved_by"] != "boss" || res["resolved_at"] == nil {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	approvalSameKeys(t, "resolve ApprovalResponse", res, approvalResponseFields)
	done := e.waitRun(t, "", runID, "s1", "COMPLETED")
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d, want 42", e.paid.Load())
	}
	if !strings.Contains(done["content"].(string), "paid 42") {
		t.Errorf("content: %v", done["content"])
	}
	e.waitApproval(t, id, "run_status", "COMPLETED")

	r = e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"rejected"}`)
	if r.status != http.StatusConflict || r.obj(t)["detail"] != "Approval is already 'approved' and cannot be resolved" {
		t.Fatalf("second resolve: %d %s", r.status, r.body)
	}
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d after the second resolve", e.paid.Load())
	}
	if c := e.do(t, "GET", "/approvals/count", "", "", "").obj(t); c["count"] != 0.0 {
		t.Errorf("count after: %v", c)
	}

	// Delete: 204, then 404.
	if r := e.do(t, "DELETE", "/approvals/"+id, "", "", ""); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	for _, p := range []string{"/approvals/" + id, "/approvals/" + id + "/status"} {
		if r := e.do(t, "GET", p, "", "", ""); r.status != 404 || r.obj(t)["detail"] != "Approval not found" {
			t.Fatalf("GET %s after delete: %d %s", p, r.status, r.body)
		}
	}
	if r := e.do(t, "DELETE", "/approvals/"+id, "", "", ""); r.status != 404 {
		t.Fatalf("second delete: %d %s", r.status, r.body)
	}
	if r := e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"approved"}`); r.status != 404 {
		t.Fatalf("resolve of a deleted approval: %d %s", r.status, r.body)
	}
}

func TestApprovalRejectedWithNote(t *testing.T) {
	e := newApprovalEnv(t)
	out := e.pause(t, "", "s1", "pay 42")
	runID := out["run_id"].(string)
	id := e.pendingFor(t, "", runID)["id"].(string)
	r := e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"rejected","resolution_data":{"note":"over budget"}}`)
	if r.status != 200 || r.obj(t)["status"] != "rejected" {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	if rd := r.obj(t)["resolution_data"].(map[string]any); rd["note"] != "over budget" {
		t.Fatalf("resolution_data: %v", rd)
	}
	e.waitRun(t, "", runID, "s1", "COMPLETED")
	if e.paid.Load() != 0 {
		t.Fatalf("a rejected payment ran: paid %d", e.paid.Load())
	}
	e.mu.Lock()
	answers := strings.Join(e.toolAnswers, "\n")
	e.mu.Unlock()
	if !strings.Contains(answers, "over budget") {
		t.Errorf("the model was not told the note: %q", answers)
	}
}

// An HTTP continue and a resolve racing for one pause continue the run
// once; the approval ends resolved either way.
func TestApprovalResolveRacesContinue(t *testing.T) {
	e := newApprovalEnv(t)
	for i := range 8 {
		session := "race" + strconv.Itoa(i)
		before := e.paid.Load()
		out := e.pause(t, "", session, "pay 42")
		runID := out["run_id"].(string)
		id := e.pendingFor(t, "", runID)["id"].(string)
		reqs := out["requirements"].([]any)
		for _, x := range reqs {
			rq := x.(map[string]any)
			rq["confirmation"] = true
			rq["tool_execution"].(map[string]any)["confirmed"] = true
		}
		rb, _ := json.Marshal(reqs)
		form := url.Values{"session_id": {session}, "stream": {"false"}, "requirements": {string(rb)}}
		var wg sync.WaitGroup
		var cont, res approvalResp
		wg.Add(2)
		// Either channel may start first, by a varying head start.
		head := time.Duration(i/2) * 300 * time.Microsecond
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				time.Sleep(head)
			}
			cont = e.do(t, "POST", "/agents/cashier/runs/"+runID+"/continue", "", approvalFormType, form.Encode())
		}()
		go func() {
			defer wg.Done()
			if i%2 == 1 {
				time.Sleep(head)
			}
			res = e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"approved"}`)
		}()
		wg.Wait()
		e.waitRun(t, "", runID, session, "COMPLETED")
		if got := e.paid.Load() - before; got != 42 {
			t.Fatalf("round %d: paid %d, want 42 once (continue %d %s; resolve %d %s)", i, got, cont.status, cont.body, res.status, res.body)
		}
		if cont.status != 200 && res.status != 200 {
			t.Fatalf("round %d: neither channel won: continue %d %s; resolve %d %s", i, cont.status, cont.body, res.status, res.body)
		}
		if cont.status == 200 && res.status == 200 {
			t.Fatalf("round %d: both channels claim the run: continue %s; resolve %s", i, cont.body, res.body)
		}
		if res.status != 200 && res.status != http.StatusConflict {
			t.Fatalf("round %d: resolve %d %s", i, res.status, res.body)
		}
		t.Logf("round %d: continue %d, resolve %d %s", i, cont.status, res.status, res.body)
		// Answered on either channel, the approval ends approved.
		e.waitApproval(t, id, "status", "approved")
		e.waitApproval(t, id, "run_status", "COMPLETED")
	}
}

func TestApprovalAuditRecordedAfterAnswer(t *testing.T) {
	e := newApprovalEnv(t)
	out := e.pause(t, "", "s1", "refund 7")
	runID := out["run_id"].(string)
	te := out["tools"].([]any)[0].(map[string]any)
	if te["approval_type"] != "audit" || te["approval_id"] != nil {
		t.Fatalf("paused audit tool: %v", te)
	}
	// Audit does not block: nothing pending, and no gate.
	if c := e.do(t, "GET", "/approvals/count", "", "", "").obj(t); c["count"] != 0.0 {
		t.Fatalf("count: %v", c)
	}
	reqs := out["requirements"].([]any)
	rq := reqs[0].(map[string]any)
	rq["confirmation"] = false
	rq["tool_execution"].(map[string]any)["confirmed"] = false
	rb, _ := json.Marshal(reqs)
	form := url.Values{"session_id": {"s1"}, "stream": {"false"}, "requirements": {string(rb)}}
	if r := e.do(t, "POST", "/agents/cashier/runs/"+runID+"/continue", "", approvalFormType, form.Encode()); r.status != 200 {
		t.Fatalf("continue: %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data := e.do(t, "GET", "/approvals?approval_type=audit", "", "", "").obj(t)["data"].([]any)
		if len(data) == 1 {
			a := data[0].(map[string]any)
			if a["status"] != "rejected" || a["tool_name"] != "refund" || a["resolved_at"] == nil || a["run_id"] != runID {
				t.Fatalf("audit approval: %v", a)
			}
			// Resolved already: a resolve is refused.
			r := e.do(t, "POST", "/approvals/"+a["id"].(string)+"/resolve", "", "application/json", `{"status":"approved"}`)
			if r.status != http.StatusConflict {
				t.Fatalf("resolve of an audit record: %d %s", r.status, r.body)
			}
			if e.refunded.Load() != 0 {
				t.Fatalf("a rejected refund ran")
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no audit approval was recorded")
}

func TestApprovalValidation(t *testing.T) {
	e := newApprovalEnv(t)
	for _, tc := range []struct{ query, loc, typ string }{
		{"limit=0", "limit", "greater_than_equal"},
		{"limit=1001", "limit", "less_than_equal"},
		{"page=0", "page", "greater_than_equal"},
		{"status=done", "status", "literal_error"},
		{"approval_type=maybe", "approval_type", "literal_error"},
	} {
		r := e.do(t, "GET", "/approvals?"+tc.query, "", "", "")
		if r.status != 422 {
			t.Fatalf("%s: %d %s", tc.query, r.status, r.body)
		}
		d := r.obj(t)["detail"].([]any)[0].(map[string]any)
		if d["type"] != tc.typ || d["loc"].([]any)[1] != tc.loc {
			t.Errorf("%s: %v", tc.query, d)
		}
	}
	if r := e.do(t, "GET", "/approvals?limit=1000", "", "", ""); r.status != 200 {
		t.Fatalf("limit=1000: %d %s", r.status, r.body)
	}
	for _, tc := range []struct{ body, typ string }{
		{``, "missing"},
		{`{}`, "missing"},
		{`{"status":"maybe"}`, "string_pattern_mismatch"},
		{`{"status":"approved","resolution_data":"x"}`, "dict_type"},
		{`{"status":`, "json_invalid"},
	} {
		r := e.do(t, "POST", "/approvals/nope/resolve", "", "application/json", tc.body)
		if r.status != 422 {
			t.Fatalf("%q: %d %s", tc.body, r.status, r.body)
		}
		if d := r.obj(t)["detail"].([]any)[0].(map[string]any); d["type"] != tc.typ {
			t.Errorf("%q: %v", tc.body, d)
		}
	}
	if r := e.do(t, "POST", "/approvals/nope/resolve", "", "application/json", `{"status":"approved"}`); r.status != 404 {
		t.Fatalf("unknown id: %d %s", r.status, r.body)
	}
}

// With authorization, a pending required approval blocks the run's own
// continue for a caller without approvals:write (agno's
// require_approval_resolved); user isolation hides other users'
// approvals; the token's sub is resolved_by.
func TestApprovalAuthorization(t *testing.T) {
	e := newApprovalEnv(t, func(c *agentos.Config) {
		c.Authorization = &auth.Config{VerificationKeys: []string{jwtSecret}, Algorithm: "HS256", UserIsolation: true}
	})
	alice := tokenFor(t, "alice", append(slices.Clone(userScopes), "approvals:read")...)
	bob := tokenFor(t, "bob", append(slices.Clone(userScopes), "approvals:read", "approvals:write")...)
	admin := tokenFor(t, "root", "agent_os:admin")
	out := e.pause(t, alice, "alice-s", "pay 42")
	runID := out["run_id"].(string)
	a := e.pendingFor(t, alice, runID)
	if a["user_id"] != "alice" {
		t.Fatalf("user_id: %v", a["user_id"])
	}
	id := a["id"].(string)

	reqs := out["requirements"].([]any)
	rq := reqs[0].(map[string]any)
	rq["confirmation"] = true
	rq["tool_execution"].(map[string]any)["confirmed"] = true
	rb, _ := json.Marshal(reqs)
	form := url.Values{"session_id": {"alice-s"}, "stream": {"false"}, "requirements": {string(rb)}}
	r := e.do(t, "POST", "/agents/cashier/runs/"+runID+"/continue", alice, approvalFormType, form.Encode())
	if r.status != 403 || r.obj(t)["detail"] != "This run requires admin approval before it can be continued" {
		t.Fatalf("continue by the initiator: %d %s", r.status, r.body)
	}
	if e.paid.Load() != 0 {
		t.Fatal("the gate let the tool run")
	}
	// alice may not resolve (no approvals:write); bob does not see alice's approval.
	if r := e.do(t, "POST", "/approvals/"+id+"/resolve", alice, "application/json", `{"status":"approved"}`); r.status != 403 {
		t.Fatalf("resolve without approvals:write: %d %s", r.status, r.body)
	}
	if r := e.do(t, "GET", "/approvals/"+id, bob, "", ""); r.status != 404 {
		t.Fatalf("another user's approval: %d %s", r.status, r.body)
	}
	if r := e.do(t, "POST", "/approvals/"+id+"/resolve", bob, "application/json", `{"status":"approved"}`); r.status != 404 {
		t.Fatalf("another user's resolve: %d %s", r.status, r.body)
	}
	if data := e.do(t, "GET", "/approvals", bob, "", "").obj(t)["data"].([]any); len(data) != 0 {
		t.Fatalf("bob lists %d approvals", len(data))
	}
	if c := e.do(t, "GET", "/approvals/count?user_id=alice", bob, "", "").obj(t); c["count"] != 0.0 {
		t.Fatalf("bob counts alice's approvals: %v", c)
	}
	r = e.do(t, "POST", "/approvals/"+id+"/resolve", admin, "application/json", `{"status":"approved","resolved_by":"someone-else"}`)
	if r.status != 200 || r.obj(t)["resolved_by"] != "root" {
		t.Fatalf("admin resolve: %d %s", r.status, r.body)
	}
	e.waitRun(t, alice, runID, "alice-s", "COMPLETED")
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d", e.paid.Load())
	}
}

// A workflow step marked approval "required" records a pending approval
// when it pauses; resolving it continues the workflow. A step marked
// "audit" is recorded once answered on the continue route.
func TestApprovalWorkflowStep(t *testing.T) {
	var shipped, logged atomic.Int64
	e := newApprovalEnv(t, func(c *agentos.Config) {
		wf, err := workflow.New(workflow.Config{ID: "ship", Name: "Ship", Store: c.Store, Steps: []workflow.Node{
			&workflow.Step{Name: "ship", HumanReview: workflow.HumanReview{RequiresConfirmation: true, Approval: "required"},
				Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
					shipped.Add(1)
					return &workflow.StepOutput{Content: "shipped"}, nil
				}},
			&workflow.Step{Name: "log", HumanReview: workflow.HumanReview{RequiresConfirmation: true, Approval: "audit"},
				Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
					logged.Add(1)
					return &workflow.StepOutput{Content: "logged"}, nil
				}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		c.Workflows = append(c.Workflows, wf)
	})
	form := url.Values{"message": {"go"}, "stream": {"false"}, "session_id": {"w1"}}
	r := e.do(t, "POST", "/workflows/ship/runs", "", approvalFormType, form.Encode())
	out := r.obj(t)
	if r.status != 200 || out["status"] != "PAUSED" {
		t.Fatalf("run: %d %s", r.status, r.body)
	}
	runID := out["run_id"].(string)
	a := e.pendingFor(t, "", runID)
	if a["source_type"] != "workflow" || a["workflow_id"] != "ship" || a["tool_name"] != "ship" || a["pause_type"] != "confirmation" ||
		a["approval_type"] != "required" || a["source_name"] != "Ship" {
		t.Fatalf("step approval: %v", a)
	}
	id := a["id"].(string)
	if r := e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"approved","resolved_by":"ops"}`); r.status != 200 {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	// The workflow goes on and pauses at the audit step: nothing pending.
	var paused map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g := e.do(t, "GET", "/workflows/ship/runs/"+runID+"?session_id=w1", "", "", "")
		if g.status == 200 {
			if m := g.obj(t); m["status"] == "PAUSED" && shipped.Load() == 1 {
				paused = m
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if paused == nil {
		t.Fatalf("the workflow did not reach the audit step (shipped %d)", shipped.Load())
	}
	if c := e.do(t, "GET", "/approvals/count", "", "", "").obj(t); c["count"] != 0.0 {
		t.Fatalf("count at the audit step: %v", c)
	}
	reqs := paused["step_requirements"].([]any)
	last := reqs[len(reqs)-1].(map[string]any)
	last["confirmed"] = true
	rb, _ := json.Marshal([]any{last})
	cf := url.Values{"session_id": {"w1"}, "stream": {"false"}, "step_requirements": {string(rb)}}
	if r := e.do(t, "POST", "/workflows/ship/runs/"+runID+"/continue", "", approvalFormType, cf.Encode()); r.status != 200 || r.obj(t)["status"] != "COMPLETED" {
		t.Fatalf("continue: %d %s", r.status, r.body)
	}
	if shipped.Load() != 1 || logged.Load() != 1 {
		t.Fatalf("shipped %d, logged %d", shipped.Load(), logged.Load())
	}
	e.waitApproval(t, id, "run_status", "COMPLETED")
	if got := e.do(t, "GET", "/approvals/"+id, "", "", "").obj(t); got["status"] != "approved" || got["resolved_by"] != "ops" {
		t.Fatalf("step approval after: %v", got)
	}
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		data := e.do(t, "GET", "/approvals?approval_type=audit&workflow_id=ship", "", "", "").obj(t)["data"].([]any)
		if len(data) == 1 {
			if au := data[0].(map[string]any); au["status"] != "approved" || au["tool_name"] != "log" {
				t.Fatalf("audit: %v", au)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no audit approval for the log step")
}

// A team member's tool marked "required" records the approval on the
// team's run (source team); resolving it continues the team, which
// answers its member.
func TestApprovalTeamMember(t *testing.T) {
	var paid atomic.Int64
	e := newApprovalEnv(t, func(c *agentos.Config) {
		pay := tool.Must(tool.New("pay", "pay", func(_ context.Context, a struct {
			Amount int `json:"amount"`
		}) (string, error) {
			paid.Add(int64(a.Amount))
			return "paid", nil
		}))
		pay.ApprovalType = tool.ApprovalRequired
		answer := func(content string, call model.ToolCall) *modeltest.Fake {
			return modeltest.NewFunc(func(req *model.Request) modeltest.Response {
				if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
					return modeltest.Response{Content: content}
				}
				return modeltest.Response{ToolCalls: []model.ToolCall{call}}
			})
		}
		member, err := agent.New(agent.Config{ID: "payer", Name: "Payer", Tools: []tool.Provider{pay}, Store: c.Store,
			Model: answer("member paid", modeltest.ToolCall("m1", "pay", `{"amount":5}`))})
		if err != nil {
			t.Fatal(err)
		}
		tm, err := team.New(team.Config{ID: "crew", Name: "Crew", Members: []run.Executor{member}, Store: c.Store,
			Model: answer("The team paid.", modeltest.ToolCall("d1", "delegate_task_to_member", `{"member_id":"payer","task":"pay 5"}`))})
		if err != nil {
			t.Fatal(err)
		}
		c.Teams = append(c.Teams, tm)
	})
	form := url.Values{"message": {"pay"}, "stream": {"false"}, "session_id": {"t1"}}
	r := e.do(t, "POST", "/teams/crew/runs", "", approvalFormType, form.Encode())
	out := r.obj(t)
	if r.status != 200 || out["status"] != "PAUSED" {
		t.Fatalf("team run: %d %s", r.status, r.body)
	}
	runID := out["run_id"].(string)
	a := e.pendingFor(t, "", runID)
	if a["source_type"] != "team" || a["team_id"] != "crew" || a["agent_id"] != nil || a["tool_name"] != "pay" || a["source_name"] != "Crew" {
		t.Fatalf("team approval: %v", a)
	}
	// One approval for the pause, recorded on the team's run only.
	if all := e.do(t, "GET", "/approvals", "", "", "").obj(t)["meta"].(map[string]any); all["total_count"] != 1.0 {
		t.Fatalf("approvals: %v", all)
	}
	if r := e.do(t, "POST", "/approvals/"+a["id"].(string)+"/resolve", "", "application/json", `{"status":"approved"}`); r.status != 200 {
		t.Fatalf("resolve: %d %s", r.status, r.body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g := e.do(t, "GET", "/teams/crew/runs/"+runID+"?session_id=t1", "", "", "")
		if g.status == 200 && g.obj(t)["status"] == "COMPLETED" {
			if paid.Load() != 5 {
				t.Fatalf("paid %d, want 5", paid.Load())
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the team run did not complete (paid %d)", paid.Load())
}
