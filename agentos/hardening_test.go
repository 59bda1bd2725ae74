package agentos_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/knowledge"
	kcontents "github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/vectordb"
	vmemory "github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// serveOS serves cfg with OS.Serve (the server agno agentos start runs,
// with its timeouts) on a loopback port until the test ends.
func serveOS(t *testing.T, cfg agentos.Config) string {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = memory.New()
	}
	o, err := agentos.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// closedByServer reports whether the server closes conn (EOF, after any
// response bytes) before the client gives up after 15 s.
func closedByServer(t *testing.T, conn net.Conn, br *bufio.Reader) bool {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	_, err := io.Copy(io.Discard, br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true // EOF (io.Copy's nil) or a reset: the server hung up
}

// A keep-alive connection that made one request and then says nothing is
// closed by the server after IdleTimeout (it was kept forever).
func TestIdleConnectionClosed(t *testing.T) {
	addr := serveOS(t, agentos.Config{IdleTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 2 { // kept alive between requests made in time
		if _, err := io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("request %d: %d, close %v", i+1, resp.StatusCode, resp.Close)
		}
	}
	if !closedByServer(t, conn, br) {
		t.Fatal("the idle keep-alive connection is still open")
	}
}

// A request whose body stops arriving is answered and its connection
// closed after BodyReadTimeout (a slowloris upload held it forever).
func TestStalledBodyClosed(t *testing.T) {
	addr := serveOS(t, agentos.Config{BodyReadTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /memories HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"memory\": "); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	if !closedByServer(t, conn, br) {
		t.Fatal("a stalled request body kept its connection open")
	}
}

// A body that keeps coming, slowly, is read to its end however long the
// whole takes: the deadline is on each wait, not on the upload.
func TestSlowBodyNotCut(t *testing.T) {
	addr := serveOS(t, agentos.Config{BodyReadTimeout: time.Second})
	body := `{"memory": "slow upload", "user_id": "u1"}` + strings.Repeat(" ", 150)
	pr, pw := io.Pipe()
	go func() {
		for i := range len(body) {
			if _, err := pw.Write([]byte{body[i]}); err != nil {
				return
			}
			time.Sleep(10 * time.Millisecond) // 1.9 s in all, > BodyReadTimeout
		}
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/memories", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), "slow upload") {
		t.Fatalf("%d %s", resp.StatusCode, b)
	}
}

// An SSE run streams to its end long past the body and idle timeouts:
// no write timeout, and the body's deadline is lifted once it is read.
func TestSSEOutlivesTimeouts(t *testing.T) {
	m := modeltest.NewFunc(func(*model.Request) modeltest.Response {
		return modeltest.Response{Content: strings.Repeat("word ", 20) + "done", TokenDelay: 30 * time.Millisecond}
	})
	store := memory.New()
	a, err := agent.New(agent.Config{ID: "slow", Name: "Slow", Model: m, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOS(t, agentos.Config{Agents: []*agent.Agent{a}, Store: store, IdleTimeout: 50 * time.Millisecond, BodyReadTimeout: 50 * time.Millisecond})
	resp, err := http.PostForm("http://"+addr+"/agents/slow/runs", url.Values{"message": {"go"}, "stream": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "event: RunCompleted") || !strings.Contains(string(b), "done") {
		t.Fatalf("%d %v: stream cut short:\n%s", resp.StatusCode, err, b)
	}
	// A run answered whole outlives them too: the read deadline of its
	// (read) body does not cancel the request while it runs.
	resp, err = http.PostForm("http://"+addr+"/agents/slow/runs", url.Values{"message": {"go"}, "stream": {"false"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err = io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), `"status":"COMPLETED"`) {
		t.Fatalf("%d %v: run cut short:\n%s", resp.StatusCode, err, b)
	}
}

// The Go config's timeouts are checked: a negative one names its field.
func TestTimeoutsChecked(t *testing.T) {
	for _, c := range []struct {
		cfg  agentos.Config
		want string
	}{
		{agentos.Config{IdleTimeout: -time.Second}, "IdleTimeout ([agentos] idle_timeout_seconds) = -1s is negative"},
		{agentos.Config{BodyReadTimeout: -time.Second}, "BodyReadTimeout = -1s is negative"},
		{agentos.Config{WSAuthTimeout: -time.Second}, "WSAuthTimeout = -1s is negative"},
	} {
		c.cfg.Store = memory.New()
		if _, err := agentos.New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// closeCode reads until the socket closes and returns its close status.
func (w *wsClient) closeCode() websocket.StatusCode {
	w.t.Helper()
	for {
		_, b, err := w.c.Read(w.ctx)
		if err != nil {
			if w.ctx.Err() != nil {
				w.t.Fatal("the socket is still open")
			}
			return websocket.CloseStatus(err)
		}
		w.t.Logf("frame before close: %s", b)
	}
}

// A /workflows/ws socket that does not authenticate within WSAuthTimeout
// (key and JWT mode) is told so in agno's auth_error frame and closed
// with 1008; messages other than a successful authenticate (ping, a
// wrong token) do not keep it open. Such sockets were kept forever.
func TestWSClosedWithoutAuthentication(t *testing.T) {
	for name, cfg := range map[string]agentos.Config{
		"key": {SecurityKey: "sk-ws"},
		"jwt": {Authorization: &auth.Config{VerificationKeys: []string{wsSecret}, Algorithm: "HS256", UserIsolation: true}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.WSAuthTimeout = 150 * time.Millisecond
			fx := newWSFixture(t, cfg)
			w := connectWS(t, fx.srv)
			w.send(map[string]any{"action": "ping"})
			if f := w.next(); f.name != "auth_required" {
				t.Fatalf("ping: %s", f.raw)
			}
			w.send(map[string]any{"action": "authenticate", "token": "wrong"})
			if f := w.next(); f.name != "auth_error" {
				t.Fatalf("wrong token: %s", f.raw)
			}
			kind := map[string]string{"key": "bearer token", "jwt": "JWT"}[name]
			w.expect(`{"event":"auth_error","error":"Authentication timed out: send the authenticate action with a valid ` + kind + ` within 150ms of connecting.","error_type":"timeout"}`)
			if code := w.closeCode(); code != websocket.StatusPolicyViolation {
				t.Fatalf("closed with %d, want 1008", code)
			}
		})
	}
}

// Without auth (protected mode) a socket that sends nothing is closed;
// one that spoke in time, like an authenticated one, stays open past
// the deadline.
func TestWSFirstMessageDeadline(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{WSAuthTimeout: 150 * time.Millisecond})
	silent := connectWS(t, fx.srv)
	silent.expect(`{"event":"error","error":"No message received within 150ms of connecting: closing the connection."}`)
	if code := silent.closeCode(); code != websocket.StatusPolicyViolation {
		t.Fatalf("closed with %d, want 1008", code)
	}

	spoke := connectWS(t, fx.srv)
	spoke.send(map[string]any{"action": "ping"})
	spoke.expect(`{"event":"pong"}`)
	keyed := newWSFixture(t, agentos.Config{SecurityKey: "sk-ws", WSAuthTimeout: 150 * time.Millisecond})
	authed := connectWS(t, keyed.srv)
	authed.send(map[string]any{"action": "authenticate", "token": "sk-ws"})
	authed.expect(`{"event":"authenticated","message":"Authentication successful. You can now send commands."}`)
	time.Sleep(500 * time.Millisecond) // well past the deadline
	for _, w := range []*wsClient{spoke, authed} {
		w.send(map[string]any{"action": "ping"})
		w.expect(`{"event":"pong"}`)
	}
}

// JWT mode with RequireExp: a token without exp gets agno's 401 shape
// with PyJWT's text, over HTTP and the WebSocket; with exp it passes.
func TestRequireExpRefusesTokensWithoutExp(t *testing.T) {
	fx := newWSFixture(t, agentos.Config{Authorization: &auth.Config{VerificationKeys: []string{wsSecret}, Algorithm: "HS256", RequireExp: true}})
	noExp := signWS(t, map[string]any{"sub": "alice", "scopes": []string{"agent_os:admin"}})
	req, _ := http.NewRequest(http.MethodGet, fx.srv.URL+"/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+noExp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || strings.TrimSpace(string(b)) != `{"detail":"Invalid token: Token is missing the \"exp\" claim"}` {
		t.Fatalf("no exp: %d %s", resp.StatusCode, b)
	}
	w := connectWS(t, fx.srv)
	w.send(map[string]any{"action": "authenticate", "token": noExp})
	w.expect(`{"event":"auth_error","error":"Invalid token: Token is missing the \"exp\" claim","error_type":"invalid_token"}`)
	w.login(wsToken(t, "alice", []string{"agent_os:admin"}, time.Now().Add(time.Hour)), "alice")
}

func signWS(t *testing.T, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return b64url(b)
	}
	head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
	return head + "." + b64url(hmacSHA256([]byte(wsSecret), []byte(head)))
}

// Page numbers so large that (page-1)*limit wraps: 2^62+1 wraps to
// offset 0 (the first page, on any backend) with limit 20, and the
// largest int64 to a negative offset (the first page on SQLite, a 500 on
// Postgres). Every listing answers an empty page there, with its meta.
var farPages = []string{"4611686018427387905", "9223372036854775807", "1000000000"}

// listing GETs path and returns data and meta, numbers kept exact.
func listing(t *testing.T, base, path string) (int, []any, map[string]json.Number, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var doc struct {
		Data []any                  `json:"data"`
		Meta map[string]json.Number `json:"meta"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&doc)
	return resp.StatusCode, doc.Data, doc.Meta, string(raw)
}

// Far pages of /traces, /approvals, /schedules, /eval-runs, sessions,
// memories and the other listings are empty with the right meta, never
// the first page or a 500.
func TestFarPagesAreEmpty(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		release := make(chan struct{})
		m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
			if strings.Contains(req.Messages[len(req.Messages)-1].Content, "wait") {
				<-release
			}
			return modeltest.Response{Content: "answer"}
		})
		store := memory.New()
		a, err := agent.New(agent.Config{ID: "pager", Name: "Pager", Model: m, Store: store})
		if err != nil {
			t.Fatal(err)
		}
		o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store, DB: db})
		if err != nil {
			t.Fatal(err)
		}
		srv := httpServer(t, o)
		t.Cleanup(func() { close(release) }) // before the server closes: it waits for the run

		// One row in each listing.
		resp, err := http.PostForm(srv+"/agents/pager/runs", url.Values{"message": {"hi"}, "stream": {"false"}, "session_id": {"s1"}, "user_id": {"u1"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("run: %d", resp.StatusCode)
		}
		// A foreground run in flight on a new session: listings hide it.
		go func() {
			r, err := http.PostForm(srv+"/agents/pager/runs", url.Values{"message": {"wait"}, "stream": {"false"}, "session_id": {"s2"}})
			if err == nil {
				r.Body.Close()
			}
		}()
		if err := store.UpsertMemory(ctx, &storage.Memory{MemoryID: "m1", Memory: "likes tea", UserID: "u1", CreatedAt: 1, UpdatedAt: 1}); err != nil {
			t.Fatal(err)
		}
		aps, err := approval.NewStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := aps.Create(ctx, &approval.Approval{ID: "ap1", RunID: "r1", SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		ts, err := tracestore.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		if err := ts.Write(ctx, []tracestore.Span{{SpanID: "sp1", TraceID: "tr1", Name: "Pager.run", SpanKind: "INTERNAL", StatusCode: "OK",
			StartTime: now, EndTime: now.Add(time.Millisecond), Attributes: map[string]any{"session_id": "s1", "agent_id": "pager"}, CreatedAt: now}}); err != nil {
			t.Fatal(err)
		}
		ss, err := schedule.NewStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := schedule.New(schedule.Schedule{Name: "nightly", Endpoint: "/agents/pager/runs", CronExpr: "0 3 * * *"}, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.Create(ctx, sc); err != nil {
			t.Fatal(err)
		}
		es, err := eval.NewStore(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if err := es.Create(ctx, &eval.Record{RunID: "ev1", EvalType: eval.TypeAccuracy, AgentID: "pager"}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { // the second run is in flight
			runs, _ := store.ListRuns(ctx, storage.RunQuery{SessionID: "s2"})
			return len(runs) == 1
		})

		for _, path := range []string{"/traces", "/trace_session_stats", "/approvals", "/schedules", "/schedules/" + sc.ID + "/runs",
			"/eval-runs", "/sessions", "/memories", "/user_memory_stats", "/registry"} {
			// The first page holds the row (the registry: the agent),
			// so an answer of the first page shows.
			code, data, meta, raw := listing(t, srv, path+"?limit=20")
			if code != 200 || (path != "/schedules/"+sc.ID+"/runs" && len(data) == 0) {
				t.Fatalf("GET %s: %d %s", path, code, raw)
			}
			total := meta["total_count"]
			for _, page := range farPages {
				code, data, meta, raw := listing(t, srv, path+"?limit=20&page="+page)
				want := total
				if path == "/eval-runs" {
					want = "0" // agno answers an empty page of eval runs with a count of 0
				}
				if code != 200 || data == nil || len(data) != 0 || meta["page"].String() != page || meta["total_count"] != want || meta["limit"] != "20" {
					t.Errorf("GET %s?page=%s: %d %s", path, page, code, raw)
				}
			}
		}
		// The search body's page too.
		for _, page := range farPages {
			resp, err := http.Post(srv+"/traces/search", "application/json", strings.NewReader(`{"page": `+page+`, "limit": 20}`))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), `"data":[]`) {
				t.Errorf("POST /traces/search page %s: %d %s", page, resp.StatusCode, b)
			}
		}
	})
}

// The knowledge content listing of an in-memory contents store: a far
// page is empty (it overflowed into a negative slice index).
func TestFarContentPageIsEmpty(t *testing.T) {
	ctx := context.Background()
	vs, err := vmemory.New(vmemory.Config{SearchType: vectordb.SearchKeyword})
	if err != nil {
		t.Fatal(err)
	}
	cs := kcontents.NewMemory()
	if err := cs.Upsert(ctx, kcontents.Row{ID: "c1", Name: "doc", LinkedTo: "docs", Status: kcontents.Status("completed"), CreatedAt: 1, UpdatedAt: 1}); err != nil {
		t.Fatal(err)
	}
	kb, err := knowledge.New(ctx, knowledge.Config{Name: "docs", VectorDB: vs, ContentsDB: cs})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Store: memory.New(), Knowledge: []*knowledge.Knowledge{kb}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httpServer(t, o)
	if code, data, _, raw := listing(t, srv, "/knowledge/content"); code != 200 || len(data) != 1 {
		t.Fatalf("first page: %d %s", code, raw)
	}
	for _, page := range farPages {
		code, data, meta, raw := listing(t, srv, "/knowledge/content?limit=20&page="+page)
		if code != 200 || data == nil || len(data) != 0 || meta["total_count"] != "1" {
			t.Errorf("page %s: %d %s", page, code, raw)
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func httpServer(t *testing.T, o *agentos.OS) string {
	t.Helper()
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})
	return srv.URL
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func hmacSHA256(key, msg []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write(msg)
	return mac.Sum(nil)
}
