package daytona

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

const testKey = "test-key"

// fakeDaytona speaks Daytona's REST wire format: the sandbox API under
// /api and the toolbox proxy under /toolbox. It records every request and
// answers exec/code-run with a test-supplied handler.
type fakeDaytona struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	sandboxes map[string]*fakeSandbox
	nextID    int
	creates   []map[string]any
	starts    []string
	gets      []string
	execs     []execCall
	codeRuns  []codeRunRequest
	headers   []http.Header

	createState   string // state a new sandbox reports; "started" if empty
	createReason  string // errorReason a new sandbox reports
	noProxyURL    bool   // sandboxes without toolboxProxyUrl (older API)
	failCreate    int    // HTTP status for creates; 0 = succeed
	failStart     int    // HTTP status for starts; 0 = succeed
	statesOnGet   []string
	onExec        func(cmd string, cwd *string) (int, string)
	onCodeRun     func(code, lang string) (status, exit int, result string)
	toolboxRoutes int
}

type fakeSandbox struct {
	ID, State, ErrorReason string
}

type execCall struct {
	Command string
	Cwd     *string
}

func (e execCall) String() string {
	if e.Cwd == nil {
		return fmt.Sprintf("exec(%q)", e.Command)
	}
	return fmt.Sprintf("exec(%q, cwd=%q)", e.Command, *e.Cwd)
}

func newFake(t *testing.T) *fakeDaytona {
	t.Helper()
	f := &fakeDaytona{t: t, sandboxes: map[string]*fakeSandbox{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/sandbox", f.create)
	mux.HandleFunc("GET /api/sandbox/{id}", f.get)
	mux.HandleFunc("POST /api/sandbox/{id}/start", f.start)
	mux.HandleFunc("POST /toolbox/{id}/process/execute", f.exec)
	mux.HandleFunc("POST /toolbox/{id}/process/code-run", f.codeRun)
	mux.HandleFunc("POST /api/toolbox/{id}/toolbox/process/execute", f.exec)
	f.srv = httptest.NewServer(f.auth(mux))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeDaytona) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.headers = append(f.headers, r.Header.Clone())
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"statusCode": 401, "message": "Invalid API key", "error": "Unauthorized"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeDaytona) sandboxJSON(sb *fakeSandbox) map[string]any {
	out := map[string]any{"id": sb.ID, "state": sb.State, "errorReason": sb.ErrorReason,
		"labels": map[string]string{"code-toolbox-language": "python"}}
	if !f.noProxyURL {
		out["toolboxProxyUrl"] = f.srv.URL + "/toolbox"
	}
	return out
}

// addSandbox registers an existing sandbox.
func (f *fakeDaytona) addSandbox(id, state string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sandboxes[id] = &fakeSandbox{ID: id, State: state}
}

func (f *fakeDaytona) create(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, 400, map[string]any{"message": err.Error()})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, body)
	if f.failCreate != 0 {
		writeJSON(w, f.failCreate, map[string]any{"statusCode": f.failCreate, "message": "quota exceeded"})
		return
	}
	f.nextID++
	state := f.createState
	if state == "" {
		state = "started"
	}
	sb := &fakeSandbox{ID: fmt.Sprintf("sb-%d", f.nextID), State: state, ErrorReason: f.createReason}
	f.sandboxes[sb.ID] = sb
	writeJSON(w, 200, f.sandboxJSON(sb))
}

func (f *fakeDaytona) get(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets = append(f.gets, id)
	sb, ok := f.sandboxes[id]
	if !ok {
		writeJSON(w, 404, map[string]any{"statusCode": 404, "message": "Sandbox with ID or name " + id + " not found", "error": "Not Found"})
		return
	}
	if len(f.statesOnGet) > 0 {
		sb.State, f.statesOnGet = f.statesOnGet[0], f.statesOnGet[1:]
	}
	writeJSON(w, 200, f.sandboxJSON(sb))
}

func (f *fakeDaytona) start(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts = append(f.starts, id)
	sb, ok := f.sandboxes[id]
	if !ok {
		writeJSON(w, 404, map[string]any{"statusCode": 404, "message": "Sandbox not found"})
		return
	}
	if f.failStart != 0 {
		writeJSON(w, f.failStart, map[string]any{"statusCode": f.failStart, "message": []string{"runner unavailable", "try later"}})
		return
	}
	sb.State = "started"
	writeJSON(w, 200, f.sandboxJSON(sb))
}

func (f *fakeDaytona) started(id string) bool {
	sb, ok := f.sandboxes[id]
	return ok && sb.State == "started"
}

func (f *fakeDaytona) exec(w http.ResponseWriter, r *http.Request) {
	// Decoded strictly, as the toolbox does: only command, cwd, timeout.
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req struct {
		Command *string `json:"command"`
		Cwd     *string `json:"cwd"`
		Timeout *int    `json:"timeout"`
	}
	if err := dec.Decode(&req); err != nil || req.Command == nil {
		writeJSON(w, 400, map[string]any{"message": fmt.Sprintf("bad execute request: %v", err)})
		return
	}
	f.mu.Lock()
	ok := f.started(r.PathValue("id"))
	f.execs = append(f.execs, execCall{Command: *req.Command, Cwd: req.Cwd})
	if r.URL.Path[:len("/api/")] == "/api/" {
		f.toolboxRoutes++
	}
	handler := f.onExec
	f.mu.Unlock()
	if !ok {
		writeJSON(w, 409, map[string]any{"message": "sandbox is not started"})
		return
	}
	code, out := 0, ""
	if handler != nil {
		code, out = handler(*req.Command, req.Cwd)
	}
	writeJSON(w, 200, map[string]any{"exitCode": code, "result": out})
}

func (f *fakeDaytona) codeRun(w http.ResponseWriter, r *http.Request) {
	var req codeRunRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]any{"message": err.Error()})
		return
	}
	f.mu.Lock()
	f.codeRuns = append(f.codeRuns, req)
	handler := f.onCodeRun
	f.mu.Unlock()
	status, code, out := 200, 0, ""
	if handler != nil {
		status, code, out = handler(req.Code, req.Language)
	}
	if status != 200 {
		writeJSON(w, status, map[string]any{"statusCode": status, "message": "Cannot POST /process/code-run"})
		return
	}
	writeJSON(w, 200, map[string]any{"exitCode": code, "result": out, "artifacts": map[string]any{"charts": []any{}}})
}

// fakeStats is a copy of what the fake recorded, taken under its lock.
type fakeStats struct {
	creates       []map[string]any
	starts, gets  []string
	execs         []execCall
	codeRuns      []codeRunRequest
	headers       []http.Header
	toolboxRoutes int
}

func (f *fakeDaytona) stats() fakeStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fakeStats{
		creates: append([]map[string]any(nil), f.creates...), starts: append([]string(nil), f.starts...),
		gets: append([]string(nil), f.gets...), execs: append([]execCall(nil), f.execs...),
		codeRuns: append([]codeRunRequest(nil), f.codeRuns...), headers: append([]http.Header(nil), f.headers...),
		toolboxRoutes: f.toolboxRoutes,
	}
}

func (f *fakeDaytona) execCalls() []execCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]execCall(nil), f.execs...)
}

func (f *fakeDaytona) resetExecs() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = nil
}

// shellExec answers exec requests by running the command with a real sh,
// in cwd or else in home: the fake becomes a sandbox whose filesystem is
// the test's temporary directory.
func shellExec(home string) func(string, *string) (int, string) {
	return func(cmd string, cwd *string) (int, string) {
		c := exec.Command("sh", "-c", cmd)
		c.Dir = home
		if cwd != nil {
			c.Dir = *cwd
		}
		c.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LC_ALL=C"}
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out // Daytona's result is stdout and stderr combined
		err := c.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			return ee.ExitCode(), out.String()
		case err != nil:
			return 127, err.Error()
		}
		return 0, out.String()
	}
}

// newTestToolkit builds the toolkit on the fake (through New's validation)
// with fast polling.
func newTestToolkit(t *testing.T, f *fakeDaytona, cfg Config) *toolkit {
	t.Helper()
	cfg.APIKey = testKey
	cfg.APIURL = f.srv.URL + "/api"
	cfg.HTTPClient = f.srv.Client()
	tk, err := newToolkit(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tk.api.poll = 0
	return tk
}

// callTool invokes a tool of a built toolkit by name, as an agent would.
func callTool(t *testing.T, ctx context.Context, tk *tool.Toolkit, name string, args map[string]any) string {
	t.Helper()
	fns, err := tk.Functions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fns {
		if f.Name == name {
			res, err := f.Invoke(ctx, &tool.Call{Function: f, ToolCallID: "call-1"}, args)
			if err != nil {
				t.Fatalf("%s(%v): %v", name, args, err)
			}
			return res.Content
		}
	}
	t.Fatalf("toolkit has no tool %q", name)
	return ""
}

// runCtx is a run whose session state the tools read and write.
func runCtx(state map[string]any) (context.Context, *run.Context) {
	rc := run.NewContext(state)
	return run.WithContext(context.Background(), rc), rc
}

// toolkitOn builds the public toolkit (New) on the fake.
func toolkitOn(t *testing.T, f *fakeDaytona, cfg Config) *tool.Toolkit {
	t.Helper()
	cfg.APIKey = testKey
	cfg.APIURL = f.srv.URL + "/api"
	cfg.HTTPClient = f.srv.Client()
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}
