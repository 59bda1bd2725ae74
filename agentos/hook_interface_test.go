package agentos_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/interfacetest"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

// tinyHook is a throwaway interface built on the exported API only, as a
// new interface package would be: a signed webhook (X-Hook-Signature:
// hex HMAC-SHA256 of the body) whose deliveries {id, user, text} run one
// agent once each ({id, user, confirm: run id} confirms a paused run's
// tool calls), and whose answers (and those of the runs it started that
// an approval continued) go to its replies channel.
type tinyHook struct {
	secret, agentID, prefix string

	h       *agentos.Host
	mu      sync.Mutex
	seen    map[string]bool            // delivery ids
	started map[string]bool            // run ids
	paused  map[string]*agentos.Result // paused runs by id
	replies chan string
}

func newTinyHook(secret, agentID string) *tinyHook {
	return &tinyHook{secret: secret, agentID: agentID, prefix: "/hook", seen: map[string]bool{}, started: map[string]bool{}, paused: map[string]*agentos.Result{}, replies: make(chan string, 16)}
}

func (k *tinyHook) Check(served agentos.Catalog) error {
	if !served.Has("agent", k.agentID) {
		return fmt.Errorf("tinyhook: agent %q is not served", k.agentID)
	}
	return nil
}

func (k *tinyHook) Start(h *agentos.Host) error {
	k.h = h
	h.OnApproval(func(_ context.Context, p agentos.Paused) (agentos.Answer, bool) {
		k.mu.Lock()
		defer k.mu.Unlock()
		return agentos.Answer{Done: k.deliver}, k.started[p.RunID]
	})
	return nil
}

func (k *tinyHook) Stop() {}

func (k *tinyHook) Listing() []any {
	return []any{map[string]any{"type": "tinyhook", "version": "1.0", "route": k.prefix}}
}

func (k *tinyHook) Routes() []agentos.Route {
	return []agentos.Route{{Pattern: "POST " + k.prefix + "/events", Handler: k.serve,
		Access: agentos.Open("the sender signs it: tinyHook.serve checks the HMAC"), Remote: "Invalid signature",
		Tag: "TinyHook", TagDesc: "A signed webhook that runs an agent.", Summary: "Deliver an event",
		JSON:   []agentos.Param{{Name: "id", Type: "string", Desc: "delivery id", Required: true}, {Name: "user", Type: "string"}, {Name: "text", Type: "string", Required: true}},
		Result: "{\"status\":\"accepted\",\"run_id\"}"}}
}

func (k *tinyHook) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	mac := hmac.New(sha256.New, []byte(k.secret))
	mac.Write(body)
	if sig, _ := hex.DecodeString(r.Header.Get("X-Hook-Signature")); err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		hookJSON(w, http.StatusForbidden, map[string]string{"detail": "Invalid signature"})
		return
	}
	var ev struct{ ID, User, Text, Confirm string }
	if json.Unmarshal(body, &ev) != nil || ev.ID == "" {
		hookJSON(w, http.StatusBadRequest, map[string]string{"detail": "want {id, user, text}"})
		return
	}
	req := &run.Request{Input: ev.Text, RunID: run.NewID(), SessionID: "hook:" + ev.User, UserID: ev.User}
	k.mu.Lock()
	dup := k.seen[ev.ID]
	k.seen[ev.ID], k.started[req.RunID] = true, !dup
	k.mu.Unlock()
	if dup { // a replayed delivery runs once
		hookJSON(w, http.StatusOK, map[string]string{"status": "duplicate"})
		return
	}
	start := func() error { return k.h.Start("agent", k.agentID, req, nil, k.deliver) }
	if ev.Confirm != "" {
		start = func() error { return k.confirm(ev.Confirm) }
	}
	if err := start(); errors.Is(err, runs.ErrRefused) {
		hookJSON(w, http.StatusServiceUnavailable, map[string]string{"detail": "shutting down"})
		return
	} else if err != nil {
		hookJSON(w, http.StatusInternalServerError, map[string]string{"detail": err.Error()})
		return
	}
	hookJSON(w, http.StatusAccepted, map[string]string{"status": "accepted", "run_id": req.RunID})
}

// confirm continues a paused run of the hook's with its tool calls
// confirmed.
func (k *tinyHook) confirm(runID string) error {
	k.mu.Lock()
	p := k.paused[runID]
	k.mu.Unlock()
	if p == nil {
		return fmt.Errorf("run %s is not waiting here", runID)
	}
	reqs := p.Output.ActiveRequirements()
	for _, r := range reqs {
		if err := r.Confirm(); err != nil {
			return err
		}
	}
	return k.h.Continue("agent", k.agentID, &run.ContinueRequest{RunID: runID, SessionID: p.Output.SessionID, Requirements: reqs, StoreEvents: true}, nil, k.deliver)
}

// deliver is the interface's channel: what a run said, or that it waits.
func (k *tinyHook) deliver(res agentos.Result) {
	switch {
	case res.Err != nil:
		k.replies <- "error: " + res.Err.Error()
	case res.Status == run.StatusPaused:
		k.mu.Lock()
		k.paused[res.RunID] = &res
		k.mu.Unlock()
		k.replies <- "paused " + res.RunID
	default:
		k.replies <- res.Content
	}
}

func hookJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// The route tests (every route decides, scopes) check tinyHook's rows too.
func init() {
	agentos.ExtraInterfaces = append(agentos.ExtraInterfaces, agentos.ExtraInterface{
		New:  func(agentID string) agentos.Interface { return newTinyHook("s3cret", agentID) },
		Open: []string{"POST /hook/events"},
	})
}

// An interface is one package and one registration: tinyHook, given in
// Config.Interfaces, is served, listed and documented, refuses a bad
// signature, runs the agent once per delivery through the Host, pauses
// on the approval, and is answered through its approval hook when the
// approval is resolved over HTTP.
func TestInterfaceFromOnePackage(t *testing.T) {
	hook := newTinyHook("s3cret", "cashier")
	e := newApprovalEnv(t, func(c *agentos.Config) { c.Interfaces = append(c.Interfaces, hook) })

	var cfg struct{ Interfaces []map[string]any }
	if err := json.Unmarshal(e.do(t, "GET", "/config", "", "", "").body, &cfg); err != nil || len(cfg.Interfaces) != 1 ||
		cfg.Interfaces[0]["type"] != "tinyhook" || cfg.Interfaces[0]["route"] != "/hook" {
		t.Fatalf("/config interfaces %v %v", cfg.Interfaces, err)
	}
	if doc := string(e.do(t, "GET", "/openapi.json", "", "", "").body); !strings.Contains(doc, `"/hook/events"`) || !strings.Contains(doc, "A signed webhook that runs an agent.") {
		t.Fatal("/openapi.json does not document the hook")
	}

	deliver := func(body, sig string) approvalResp {
		req, _ := http.NewRequest("POST", e.srv.URL+"/hook/events", strings.NewReader(body))
		req.Header.Set("X-Hook-Signature", sig)
		return send(t, req)
	}
	sign := func(body string) string {
		mac := hmac.New(sha256.New, []byte("s3cret"))
		mac.Write([]byte(body))
		return hex.EncodeToString(mac.Sum(nil))
	}
	ev := `{"id":"d1","user":"u1","text":"pay please"}`
	if r := deliver(ev, sign(ev+" ")); r.status != http.StatusForbidden {
		t.Fatalf("bad signature: %d %s", r.status, r.body)
	}
	r := deliver(ev, sign(ev))
	if r.status != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", r.status, r.body)
	}
	runID := r.obj(t)["run_id"].(string)
	if again := deliver(ev, sign(ev)); again.status != http.StatusOK || again.obj(t)["status"] != "duplicate" {
		t.Fatalf("replay: %d %s", again.status, again.body)
	}
	next := func() string {
		select {
		case s := <-hook.replies:
			return s
		case <-time.After(10 * time.Second):
			t.Fatal("no reply")
			return ""
		}
	}
	if got := next(); got != "paused "+runID {
		t.Fatalf("first reply %q", got)
	}
	id := e.pendingFor(t, "", runID)["id"].(string)
	if res := e.do(t, "POST", "/approvals/"+id+"/resolve", "", "application/json", `{"status":"approved"}`); res.status != 200 {
		t.Fatalf("resolve: %d %s", res.status, res.body)
	}
	if got := next(); got != "Done: paid 42" {
		t.Fatalf("answer through the hook %q", got)
	}
	if e.paid.Load() != 42 {
		t.Fatalf("paid %d: the replay ran again", e.paid.Load())
	}

	// A run the hook continues itself, through the Host: a confirmation
	// answered by a delivery, once.
	ev = `{"id":"d2","user":"u1","text":"refund please"}`
	if r := deliver(ev, sign(ev)); r.status != http.StatusAccepted {
		t.Fatalf("delivery: %d %s", r.status, r.body)
	}
	paused := strings.TrimPrefix(next(), "paused ")
	ok := fmt.Sprintf(`{"id":"d3","user":"u1","confirm":%q}`, paused)
	if r := deliver(ok, sign(ok)); r.status != http.StatusAccepted {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	if got := next(); got != "Done: refunded 7" || e.refunded.Load() != 7 {
		t.Fatalf("continued through the Host: %q, refunded %d", got, e.refunded.Load())
	}
}

// A remote sender reaches the hook in protected mode (its Remote row),
// as Slack does; its signature still guards it.
func TestInterfaceRemoteRoutePassesProtectedMode(t *testing.T) {
	a, err := agent.New(agent.Config{ID: "helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Interfaces: []agentos.Interface{newTinyHook("s3cret", "helper")}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for path, want := range map[string]string{"/hook/events": "Invalid signature", "/config": "protected mode"} {
		req := httptest.NewRequest("POST", path, strings.NewReader("{}"))
		req.RemoteAddr = "203.0.113.9:4000"
		rec := httptest.NewRecorder()
		o.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("remote %s: %d %s, want 403 %q", path, rec.Code, rec.Body, want)
		}
	}
	if _, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Interfaces: []agentos.Interface{newTinyHook("s", "nobody")}}); err == nil || !strings.Contains(err.Error(), `agent "nobody" is not served`) {
		t.Fatalf("Check: %v", err)
	}
}

// tinyHook passes the interface conformance suite too.
func TestInterfaceFromOnePackageConforms(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		st := memory.New()
		a, err := agent.New(agent.Config{ID: "helper", Model: f.Model, Store: st, Tools: []tool.Provider{f.Pay}})
		if err != nil {
			t.Fatal(err)
		}
		hook := newTinyHook("s3cret", "helper")
		o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: st, Interfaces: []agentos.Interface{hook}})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(o.Handler())
		t.Cleanup(func() { srv.Close(); _ = o.Close() })
		return &hookDriver{url: srv.URL, hook: hook}
	})
}

// hookDriver delivers signed events to tinyHook and reads its replies.
type hookDriver struct {
	url  string
	hook *tinyHook
	n    int
}

func (d *hookDriver) post(t *testing.T, body, sig string) int {
	req, _ := http.NewRequest("POST", d.url+"/hook/events", strings.NewReader(body))
	req.Header.Set("X-Hook-Signature", sig)
	return send(t, req).status
}

func (d *hookDriver) deliver(t *testing.T, body string) int {
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte(body))
	return d.post(t, body, hex.EncodeToString(mac.Sum(nil)))
}

func (d *hookDriver) reply(t *testing.T) interfacetest.Reply {
	select {
	case s := <-d.hook.replies:
		if id, ok := strings.CutPrefix(s, "paused "); ok {
			return interfacetest.Reply{Paused: true, Ref: id}
		}
		return interfacetest.Reply{Text: s}
	case <-time.After(10 * time.Second):
		t.Fatal("no reply")
		return interfacetest.Reply{}
	}
}

func (d *hookDriver) Refuse(t *testing.T, text string) int {
	return d.post(t, fmt.Sprintf(`{"id":"x","text":%q}`, text), "00")
}

func (d *hookDriver) Send(t *testing.T, id, text string) interfacetest.Reply {
	if code := d.deliver(t, fmt.Sprintf(`{"id":%q,"user":"u1","text":%q}`, id, text)); code != http.StatusAccepted {
		t.Fatalf("delivery %d", code)
	}
	return d.reply(t)
}

func (d *hookDriver) Redeliver(t *testing.T, id, text string) bool {
	if code := d.deliver(t, fmt.Sprintf(`{"id":%q,"user":"u1","text":%q}`, id, text)); code != http.StatusOK {
		t.Fatalf("replay %d", code)
	}
	return true
}

func (d *hookDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	d.n++
	if code := d.deliver(t, fmt.Sprintf(`{"id":"confirm-%d","user":"u1","confirm":%q}`, d.n, p.Ref)); code != http.StatusAccepted {
		t.Fatalf("confirm %d", code)
	}
	return d.reply(t)
}
