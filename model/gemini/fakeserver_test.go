package gemini_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// fakeAPI is a Gemini API / Vertex AI server for tests. It answers
// generateContent with a GenerateContentResponse JSON body and
// streamGenerateContent?alt=sse with one "data: <GenerateContentResponse>"
// event per delta, as documented at
// https://ai.google.dev/api/generate-content (request and response
// bodies, the SSE stream) and
// https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1beta1/projects.locations.publishers.models/generateContent
// (the Vertex AI path); errors are Google's JSON error bodies
// (https://ai.google.dev/gemini-api/docs/troubleshooting,
// https://cloud.google.com/apis/design/errors) with google.rpc.RetryInfo.
// It checks what the real API checks: the key or bearer token, the model
// path, non-empty contents of role user or model with parts, and — when
// requireSignatures is set, as for Gemini 3 — that each model content's
// first functionCall part carries the thought signature it was issued.
type fakeAPI struct {
	t   *testing.T
	srv *httptest.Server
	// key is the x-goog-api-key wanted; token, when set, the bearer token
	// wanted instead.
	key, token string

	requireSignatures bool

	mu       sync.Mutex
	replies  []reply
	requests []recorded
	issued   map[string]bool // thought signatures handed out

	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
}

type reply struct {
	status int
	// body is the JSON body for generateContent (or the error body).
	body string
	// events are the data payloads of the stream.
	events []string
	hold   bool
	cut    bool
}

type recorded struct {
	header http.Header
	path   string
	query  string
	body   []byte
}

func newFakeAPI(t *testing.T, key string, replies ...reply) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, key: key, replies: replies, issued: map[string]bool{}, gone: make(chan struct{}), release: make(chan struct{})}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.close)
	return f
}

func (f *fakeAPI) close() {
	f.mu.Lock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
	f.mu.Unlock()
	f.srv.Close()
}

func (f *fakeAPI) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// body is request i's JSON body.
func (f *fakeAPI) body(i int) map[string]any {
	f.t.Helper()
	reqs := f.received()
	if i >= len(reqs) {
		f.t.Fatalf("request %d not received (got %d)", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].body, &m); err != nil {
		f.t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

// issue records a thought signature the fake hands out.
func (f *fakeAPI) issue(sig string) {
	f.mu.Lock()
	f.issued[sig] = true
	f.mu.Unlock()
}

var (
	geminiPath = regexp.MustCompile(`^/(v1|v1beta|v1alpha)/models/([^/:]+):(generateContent|streamGenerateContent)$`)
	vertexPath = regexp.MustCompile(`^/(v1|v1beta1)/(?:projects/[^/]+/locations/[^/]+/)?publishers/google/models/([^/:]+):(generateContent|streamGenerateContent)$`)
)

// modelAndMethod reads the model id and method from a request path.
func modelAndMethod(path string) (string, string, bool) {
	for _, re := range []*regexp.Regexp{geminiPath, vertexPath} {
		if m := re.FindStringSubmatch(path); m != nil {
			return m[2], m[3], true
		}
	}
	return "", "", false
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), path: r.URL.Path, query: r.URL.RawQuery, body: raw})
	var rp reply
	scripted := len(f.replies) > 0
	if scripted {
		rp = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()

	_, method, ok := modelAndMethod(r.URL.Path)
	if r.Method != http.MethodPost || !ok {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "Requested entity was not found.", "")
		return
	}
	if f.token != "" {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			writeError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.", "")
			return
		}
	} else if r.Header.Get("x-goog-api-key") != f.key {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "")
		return
	}
	stream := method == "streamGenerateContent"
	if stream && r.URL.Query().Get("alt") != "sse" {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "fake: streamGenerateContent without alt=sse answers a JSON array, which the SDK does not read", "")
		return
	}
	if msg := f.validate(raw); msg != "" {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", msg, "")
		return
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "INTERNAL", "fake server: no reply scripted", "")
		return
	}
	if rp.status != 0 {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.body)
		return
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		io.WriteString(w, rp.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	for _, ev := range rp.events {
		// The API ends each event with \r\n\r\n.
		if _, err := io.WriteString(w, "data: "+ev+"\r\n\r\n"); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	if rp.cut {
		panic(http.ErrAbortHandler)
	}
	if rp.hold {
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}

// errorBody is Google's error JSON; retryDelay, when set, adds a
// google.rpc.RetryInfo detail ("1.5s").
func errorBody(code int, status, msg, retryDelay string) string {
	e := map[string]any{"code": code, "message": msg, "status": status}
	if retryDelay != "" {
		e["details"] = []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retryDelay}}
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return string(b)
}

func writeError(w http.ResponseWriter, code int, status, msg, retryDelay string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	io.WriteString(w, errorBody(code, status, msg, retryDelay))
}

// wirePart is a Part of the REST API.
type wirePart struct {
	Text             *string `json:"text"`
	Thought          bool    `json:"thought"`
	ThoughtSignature string  `json:"thoughtSignature"`
	InlineData       *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		ID   string         `json:"id"`
		Name string         `json:"name"`
		Args map[string]any `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string         `json:"id"`
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse"`
}

type wireContent struct {
	Role  string     `json:"role"`
	Parts []wirePart `json:"parts"`
}

type wireRequest struct {
	Contents          []wireContent `json:"contents"`
	SystemInstruction *wireContent  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			ParametersJsonSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJsonSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (f *fakeAPI) validate(raw []byte) string {
	var req wireRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	for i, c := range req.Contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role %q)", i, c.Role)
		}
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		firstCall := true
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			if c.Role != "model" {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d]: function calls belong to model contents", i, j)
			}
			if f.requireSignatures && firstCall {
				f.mu.Lock()
				ok := f.issued[p.ThoughtSignature]
				f.mu.Unlock()
				if !ok {
					return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d.", p.FunctionCall.Name, i+1)
				}
			}
			firstCall = false
		}
	}
	return ""
}

// part renders one response part.
func textPart(text string, thought bool, sig string) map[string]any {
	p := map[string]any{"text": text}
	if thought {
		p["thought"] = true
	}
	if sig != "" {
		p["thoughtSignature"] = sig
	}
	return p
}

func callPart(id, name, args, sig string) map[string]any {
	fc := map[string]any{"name": name, "args": json.RawMessage(args)}
	if id != "" {
		fc["id"] = id
	}
	p := map[string]any{"functionCall": fc}
	if sig != "" {
		p["thoughtSignature"] = sig
	}
	return p
}

// response renders a GenerateContentResponse.
func response(parts []map[string]any, finish string, usage map[string]any) string {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	if parts == nil {
		cand["content"] = map[string]any{"role": "model"}
	}
	if finish != "" {
		cand["finishReason"] = finish
	}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": "gemini-2.5-flash", "responseId": "resp-fake-1"}
	if usage != nil {
		r["usageMetadata"] = usage
	}
	b, _ := json.Marshal(r)
	return string(b)
}

func usageOf(prompt, candidates, thoughts, cached int) map[string]any {
	u := map[string]any{"promptTokenCount": prompt, "totalTokenCount": prompt + candidates + thoughts}
	if candidates > 0 {
		u["candidatesTokenCount"] = candidates
	}
	if thoughts > 0 {
		u["thoughtsTokenCount"] = thoughts
	}
	if cached > 0 {
		u["cachedContentTokenCount"] = cached
	}
	return u
}

var sigA = base64.StdEncoding.EncodeToString([]byte("thought-signature-A"))
var sigB = base64.StdEncoding.EncodeToString([]byte("thought-signature-B"))

func readRequest(raw []byte) wireRequest {
	var req wireRequest
	_ = json.Unmarshal(raw, &req)
	return req
}

func textOf(parts []wirePart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}
