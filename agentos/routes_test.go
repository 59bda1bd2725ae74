package agentos_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// do sends a request through h from a loopback client.
func do(t *testing.T, h http.Handler, method, target string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.RemoteAddr, req.Host = "127.0.0.1:40000", "localhost:7777"
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		}
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func jsonOf(t *testing.T, rec *httptest.ResponseRecorder) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%d %q is not JSON: %v", rec.Code, rec.Body, err)
	}
	return v
}

// FastAPI answers unmatched paths and methods in JSON, before any
// authentication (the key check is a route dependency).
func TestUnmatchedRoutesAnswerJSON(t *testing.T) {
	o, _ := fixture(t, agentos.Config{SecurityKey: "sk"})
	h := o.Handler()
	for _, c := range []struct {
		method, path string
		status       int
		detail       string
		allow        string
	}{
		{"GET", "/nope", 404, "Not Found", ""},
		{"GET", "/agents/main-agent/nope", 404, "Not Found", ""},
		{"POST", "/nope/", 404, "Not Found", ""},
		{"DELETE", "/agents", 405, "Method Not Allowed", "GET, HEAD"},
		{"POST", "/", 405, "Method Not Allowed", "GET, HEAD"},
		{"GET", "/agents/main-agent/runs/r1/cancel", 405, "Method Not Allowed", "POST"},
	} {
		rec := do(t, h, c.method, c.path, nil)
		if rec.Code != c.status || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != `{"detail":"`+c.detail+`"}` {
			t.Errorf("%s %s: %d %q %q", c.method, c.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if got := rec.Header().Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
	// A matched route still needs the key.
	if rec := do(t, h, "GET", "/agents", nil); rec.Code != 401 {
		t.Errorf("GET /agents without key: %d", rec.Code)
	}
}

// coreOS serves an agent, a team and a workflow with a description-less
// OS, for the core routes.
func coreOS(t *testing.T) http.Handler {
	t.Helper()
	store := memory.New()
	m := modeltest.New(modeltest.Response{Content: "hi"})
	a, err := agent.New(agent.Config{Name: "Main Agent", Description: "Answers", Model: m, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	member, _ := agent.New(agent.Config{Name: "Helper", Model: modeltest.New()})
	tm, err := team.New(team.Config{Name: "Ops Team", Model: m, Members: []run.Executor{member}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow.New(workflow.Config{Name: "Flow", Store: store, Steps: []workflow.Node{&workflow.Step{Name: "s", Agent: a}}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{ID: "my-os", Agents: []*agent.Agent{a}, Teams: []*team.Team{tm}, Workflows: []*workflow.Workflow{wf}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o.Handler()
}

func TestCoreRoutes(t *testing.T) {
	h := coreOS(t)
	if rec := do(t, h, "GET", "/", nil); rec.Body.String() != `{"name":"AgentOS API","id":"my-os","version":"2.6.13"}` {
		t.Errorf("GET /: %d %s", rec.Code, rec.Body)
	}
	if rec := do(t, h, "GET", "/info", nil); rec.Body.String() != `{"agno_version":"2.6.13","agent_count":1,"team_count":1,"workflow_count":1}` {
		t.Errorf("GET /info: %s", rec.Body)
	}
	if rec := do(t, h, "GET", "/models", nil); rec.Body.String() != `[{"id":"fake-model","provider":"Fake"}]` {
		t.Errorf("GET /models: %s", rec.Body)
	}
	cfg := obj(jsonOf(t, do(t, h, "GET", "/config", nil)))
	if cfg["os_id"] != "my-os" || cfg["name"] != "Agno AgentOS" || cfg["os_database"] != "agno-db" {
		t.Errorf("config header fields: %v", cfg)
	}
	if _, ok := cfg["description"]; ok {
		t.Errorf("an unset description is omitted, as agno omits None: %v", cfg["description"])
	}
	// agno's AgentSummaryResponse, TeamSummaryResponse and
	// WorkflowSummaryResponse; no model in the summaries.
	for key, want := range map[string]string{
		"agents":    `[{"db_id":"agno-db","description":"Answers","id":"main-agent","name":"Main Agent"}]`,
		"teams":     `[{"db_id":"agno-db","id":"ops-team","mode":"coordinate","name":"Ops Team"}]`,
		"workflows": `[{"db_id":"agno-db","id":"flow","is_component":false,"is_factory":false,"name":"Flow"}]`,
	} {
		if got, _ := json.Marshal(cfg[key]); string(got) != want {
			t.Errorf("config %s = %s\nwant %s", key, got, want)
		}
	}
	if got, _ := json.Marshal(cfg["available_models"]); string(got) != `["fake-model"]` {
		t.Errorf("available_models %s", got)
	}
	// agno's AgentResponse / TeamResponse say false, not nothing.
	for _, path := range []string{"/agents/main-agent", "/teams/ops-team", "/agents", "/teams"} {
		body := do(t, h, "GET", path, nil).Body.String()
		if !strings.Contains(body, `"is_component":false`) || !strings.Contains(body, `"is_factory":false`) {
			t.Errorf("GET %s lacks is_factory / is_component false: %s", path, body)
		}
	}
}

// CORS as Starlette's CORSMiddleware with agno's settings.
func TestCORS(t *testing.T) {
	h := coreOS(t)
	// Preflight from an allowed origin.
	rec := do(t, h, "OPTIONS", "/agents/main-agent/runs", nil, "Origin", "http://localhost:3000",
		"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization,content-type")
	want := map[string]string{
		"Access-Control-Allow-Origin": "http://localhost:3000", "Access-Control-Allow-Credentials": "true",
		"Access-Control-Allow-Methods": "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT",
		"Access-Control-Allow-Headers": "authorization,content-type", "Access-Control-Max-Age": "600", "Vary": "Origin",
	}
	if rec.Code != 200 || rec.Body.String() != "OK" {
		t.Errorf("preflight: %d %q", rec.Code, rec.Body)
	}
	for k, v := range want {
		if got := rec.Header().Get(k); got != v {
			t.Errorf("preflight %s = %q, want %q", k, got, v)
		}
	}
	// Preflight from another origin: Starlette's 400.
	rec = do(t, h, "OPTIONS", "/agents", nil, "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
	if rec.Code != 400 || rec.Body.String() != "Disallowed CORS origin" || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("disallowed preflight: %d %q %v", rec.Code, rec.Body, rec.Header())
	}
	rec = do(t, h, "OPTIONS", "/agents", nil, "Origin", "https://agno.com", "Access-Control-Request-Method", "TRACE")
	if rec.Code != 400 || rec.Body.String() != "Disallowed CORS method" {
		t.Errorf("disallowed method: %d %q", rec.Code, rec.Body)
	}
	// Simple requests: the origin is mirrored only when allowed.
	rec = do(t, h, "GET", "/agents", nil, "Origin", "https://os.agno.com")
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "https://os.agno.com" ||
		rec.Header().Get("Access-Control-Allow-Credentials") != "true" || rec.Header().Get("Access-Control-Expose-Headers") != "*" {
		t.Errorf("allowed simple request: %d %v", rec.Code, rec.Header())
	}
	// Protected mode refuses another site's page outright; with a key,
	// CORS alone decides what the browser may read.
	rec = do(t, h, "GET", "/agents", nil, "Origin", "https://evil.example")
	if rec.Code != 403 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin, protected mode: %d %v", rec.Code, rec.Header())
	}
	keyed, _ := fixture(t, agentos.Config{SecurityKey: "sk"})
	rec = do(t, keyed.Handler(), "GET", "/agents", nil, "Origin", "https://evil.example", "Authorization", "Bearer sk")
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("other origin, with a key: %d %v", rec.Code, rec.Header())
	}
	// Configured origins replace the defaults; "*" is dropped, as agno does.
	o, _ := fixture(t, agentos.Config{CORSOrigins: []string{"https://mine.example", "*"}})
	rec = do(t, o.Handler(), "GET", "/agents", nil, "Origin", "http://localhost:3000")
	if rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("default origin still allowed with configured ones")
	}
	rec = do(t, o.Handler(), "GET", "/agents", nil, "Origin", "https://mine.example")
	if rec.Header().Get("Access-Control-Allow-Origin") != "https://mine.example" {
		t.Errorf("configured origin not allowed: %v", rec.Header())
	}
}

// pngBytes is a 1×1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

type filePart struct {
	field, name, contentType string
	data                     []byte
}

func multipartBody(t *testing.T, fields map[string]string, files ...filePart) (io.Reader, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	for _, f := range files {
		hdr := textproto.MIMEHeader{}
		hdr.Set("Content-Disposition", `form-data; name="`+f.field+`"; filename="`+f.name+`"`)
		if f.contentType != "" {
			hdr.Set("Content-Type", f.contentType)
		}
		w, err := mw.CreatePart(hdr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(f.data)
	}
	_ = mw.Close()
	return &b, mw.FormDataContentType()
}

// Run requests as multipart/form-data, the form agno's clients send with
// uploads: images reach the model; other files are refused.
func TestMultipartRun(t *testing.T) {
	var seen []*model.Request
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		seen = append(seen, req)
		return modeltest.Response{Content: "a red dot"}
	})
	a, _ := agent.New(agent.Config{Name: "Vision", Model: m})
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	h := o.Handler()
	body, ct := multipartBody(t, map[string]string{"message": "what is this?", "stream": "false", "session_id": "s"},
		filePart{"files", "dot.png", "image/png", pngBytes})
	rec := do(t, h, "POST", "/agents/vision/runs", body, "Content-Type", ct)
	out := obj(jsonOf(t, rec))
	if rec.Code != 200 || out["content"] != "a red dot" || out["session_id"] != "s" {
		t.Fatalf("multipart run: %d %v", rec.Code, out)
	}
	user := seen[len(seen)-1].Messages[len(seen[len(seen)-1].Messages)-1]
	if user.Content != "what is this?" || len(user.Images) != 1 || user.Images[0].MimeType != "image/png" {
		t.Fatalf("the model got %+v", user)
	}
	// The content type may be left to the file name.
	body, ct = multipartBody(t, map[string]string{"message": "and this?", "stream": "false"}, filePart{"files", "dot.png", "application/octet-stream", pngBytes})
	if rec := do(t, h, "POST", "/agents/vision/runs", body, "Content-Type", ct); rec.Code != 200 {
		t.Fatalf("octet-stream png: %d %s", rec.Code, rec.Body)
	}
	for _, c := range []struct {
		part   filePart
		detail string
	}{
		{filePart{"files", "tool.exe", "application/x-msdownload", []byte("MZ")}, "Unsupported file type"},
		{filePart{"files", "empty.png", "image/png", nil}, "Empty file: empty.png"},
	} {
		body, ct = multipartBody(t, map[string]string{"message": "x", "stream": "false"}, c.part)
		rec := do(t, h, "POST", "/agents/vision/runs", body, "Content-Type", ct)
		if d, _ := obj(jsonOf(t, rec))["detail"].(string); rec.Code != 400 || !strings.HasPrefix(d, c.detail) {
			t.Errorf("%s: %d %s", c.part.name, rec.Code, rec.Body)
		}
	}
	// A missing message is FastAPI's 422 in multipart too.
	body, ct = multipartBody(t, map[string]string{"stream": "false"})
	if rec := do(t, h, "POST", "/agents/vision/runs", body, "Content-Type", ct); rec.Code != 422 {
		t.Errorf("no message: %d %s", rec.Code, rec.Body)
	}
}

// sseFrame is agno's format_sse_event: the name line, one compact JSON
// data line, a blank line.
var sseFrame = regexp.MustCompile(`^event: ([A-Za-z]+)\ndata: (\{.*\})$`)

func TestSSEFramingIsExact(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()
	resp := postForm(t, srv, "/agents/main-agent/runs", url.Values{"message": {"hi <b> & you"}, "session_id": {"s"}})
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" || !bytes.HasSuffix(raw, []byte("\n\n")) {
		t.Fatalf("%q ends %q", resp.Header.Get("Content-Type"), raw[max(0, len(raw)-10):])
	}
	frames := strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n")
	var names []string
	for _, f := range frames {
		m := sseFrame.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("frame %q is not agno's framing", f)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(m[2])); err != nil || compact.String() != m[2] {
			t.Fatalf("data is not compact JSON: %q", m[2])
		}
		var d map[string]any
		_ = json.Unmarshal([]byte(m[2]), &d)
		if d["event"] != m[1] {
			t.Fatalf("event key %v under name %s", d["event"], m[1])
		}
		names = append(names, m[1])
		// Python's json.dumps does not escape <, > and &.
		if m[1] == "RunStarted" && strings.Contains(m[2], `\u003c`) {
			t.Fatalf("HTML-escaped JSON: %s", m[2])
		}
	}
	if got := strings.Join(names, " "); !strings.HasPrefix(got, "RunStarted") || !strings.HasSuffix(got, "RunCompleted") {
		t.Fatalf("events %s", got)
	}
}

// Forwarded (RFC 7239) marks a proxied request as much as X-Forwarded-For.
func TestProtectedModeForwardedHeader(t *testing.T) {
	o, _ := fixture(t, agentos.Config{})
	h := o.Handler()
	for _, hdr := range [][]string{{"Forwarded", "for=203.0.113.7;proto=https"}, {"X-Forwarded-For", "203.0.113.7"}, {"X-Real-Ip", "203.0.113.7"}} {
		rec := do(t, h, "GET", "/agents", nil, hdr...)
		if rec.Code != 403 || !strings.Contains(rec.Body.String(), "protected mode") {
			t.Errorf("%s from loopback: %d %s", hdr[0], rec.Code, rec.Body)
		}
	}
	if rec := do(t, h, "GET", "/agents", nil); rec.Code != 200 {
		t.Errorf("plain loopback: %d", rec.Code)
	}
	// A key opens the door to proxied clients that present it.
	o2, _ := fixture(t, agentos.Config{SecurityKey: "sk"})
	if rec := do(t, o2.Handler(), "GET", "/agents", nil, "Forwarded", "for=203.0.113.7", "Authorization", "Bearer sk"); rec.Code != 200 {
		t.Errorf("with key: %d %s", rec.Code, rec.Body)
	}
}

// Documents uploaded with a run go to the model as files, are kept in the
// run's input, and types that are neither images nor documents are
// refused (audio here).
func TestMultipartRunWithDocuments(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "read them"}}})
	defer fake.Close()
	m, err := openai.New(openai.Config{ID: "gpt-4o-mini", BaseURL: fake.URL, APIKey: "k", HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	a, _ := agent.New(agent.Config{Name: "Reader", Model: m, Store: store})
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	h := o.Handler()
	pdf := []byte("%PDF-1.4\n%fake\n")
	body, ct := multipartBody(t, map[string]string{"message": "summarise", "stream": "false", "session_id": "s"},
		filePart{"files", "report.pdf", "application/pdf", pdf}, filePart{"files", "notes.csv", "", []byte("a,b\n1,2\n")})
	rec := do(t, h, "POST", "/agents/reader/runs", body, "Content-Type", ct)
	out := obj(jsonOf(t, rec))
	if rec.Code != 200 || out["content"] != "read them" {
		t.Fatalf("run with documents: %d %v", rec.Code, out)
	}
	var sent struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	reqs := fake.Requests()
	if err := reqs[len(reqs)-1].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	var parts []map[string]any
	if err := json.Unmarshal(sent.Messages[len(sent.Messages)-1].Content, &parts); err != nil || len(parts) != 3 {
		t.Fatalf("user content %s", sent.Messages[len(sent.Messages)-1].Content)
	}
	file, _ := parts[1]["file"].(map[string]any)
	if parts[1]["type"] != "file" || file["filename"] != "report.pdf" || file["file_data"] != "data:application/pdf;base64,"+base64.StdEncoding.EncodeToString(pdf) {
		t.Fatalf("pdf part %v", parts[1])
	}
	if parts[2]["type"] != "text" || parts[2]["text"] != "File notes.csv:\na,b\n1,2\n" {
		t.Fatalf("csv part %v", parts[2])
	}
	stored, err := store.GetRun(context.Background(), out["run_id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Input struct {
			Files []model.File `json:"files"`
		} `json:"input"`
	}
	// The run keeps references; the bytes are blobs of the session.
	if err := json.Unmarshal(stored.Data, &doc); err != nil || len(doc.Input.Files) != 2 || doc.Input.Files[1].MimeType != "text/csv" ||
		len(doc.Input.Files[0].Content) != 0 || doc.Input.Files[0].ID == "" || doc.Input.Files[0].Size != int64(len(pdf)) {
		t.Fatalf("stored input files %+v (%v)", doc.Input.Files, err)
	}
	if b, err := store.GetBlob(context.Background(), "s", doc.Input.Files[0].ID); err != nil || string(b) != string(pdf) {
		t.Fatalf("stored pdf blob %q %v", b, err)
	}

	body, ct = multipartBody(t, map[string]string{"message": "x", "stream": "false"}, filePart{"files", "song.mp3", "audio/mpeg", []byte("ID3")})
	rec = do(t, h, "POST", "/agents/reader/runs", body, "Content-Type", ct)
	if d, _ := obj(jsonOf(t, rec))["detail"].(string); rec.Code != 400 || !strings.HasPrefix(d, "Unsupported file type: audio/mpeg (song.mp3)") {
		t.Fatalf("audio upload: %d %s", rec.Code, rec.Body)
	}
}
