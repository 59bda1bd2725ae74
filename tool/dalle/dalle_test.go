package dalle

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

const testKey = "sk-test-dalle"

// The fake follows OpenAI's "Create image" reference,
// https://platform.openai.com/docs/api-reference/images/create (POST
// /v1/images/generations, a JSON body, an ImagesResponse of "created"
// and "data" items with url and revised_prompt), and its error object,
// https://platform.openai.com/docs/guides/error-codes.
type fake struct {
	srv  *httptest.Server
	mu   sync.Mutex
	body map[string]any
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/images/generations" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}`))
			return
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		f.body = body
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch body["prompt"] {
		case "forbidden":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error": {"message": "Your request was rejected as a result of our safety system.", "type": "invalid_request_error", "param": null, "code": "content_policy_violation"}}`))
		case "huge":
			_, _ = w.Write([]byte(`{"created": 1713833628, "data": [{"url": "https://example.com/` + strings.Repeat("a", 9000) + `"}]}`))
		case "b64 only":
			_, _ = w.Write([]byte(`{"created": 1713833628, "data": [{"b64_json": "iVBORw0KGgo="}]}`))
		default:
			_, _ = w.Write([]byte(`{"created": 1713833628, "data": [{"url": "https://oaidalleapiprodscus.blob.core.windows.net/private/img-1.png", "revised_prompt": "A watercolor fox in snow"}]}`))
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func localClient(t *testing.T) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   ToolkitName,
		Name:      "dalle",
		Functions: []tooltest.Function{{Name: "create_image", Args: []string{"prompt"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFake(t)
			env.HTTPClient = localClient(t)
			t.Setenv(APIKeyEnv, testKey)
			return `base_url = "` + f.srv.URL + `/v1"` + "\nmax_response_bytes = 4096"
		},
		Failures: map[string][]tooltest.Call{
			"create_image": {
				{Args: `{"prompt": "forbidden"}`, Want: "Error: "},
				{Args: `{"prompt": "b64 only"}`, Want: "No images were generated"},
			},
		},
		Oversized: &tooltest.Oversized{Function: "create_image", Call: tooltest.Call{Args: `{"prompt": "huge"}`, Want: "max_response_bytes"}, Option: "max_response_bytes", Limit: 4096},
		BadOptions: []tooltest.BadOption{
			{Table: `model = "dall-e-1"`, Key: "model"},
			{Table: `size = "100x100"`, Key: "size"},
			{Table: `quality = "ultra"`, Key: "quality"},
			{Table: `style = "noir"`, Key: "style"},
			{Table: "n = 2", Key: "n"},
			{Table: `model = "dall-e-2"` + "\nn = -1", Key: "n"},
			{Table: `base_url = "localhost:8080"`, Key: "base_url"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
		},
	})
}

func build(t *testing.T, f *fake, cfg Config) *tool.Function {
	t.Helper()
	cfg.EnableCreateImage = true
	cfg.BaseURL = f.srv.URL + "/v1"
	cfg.HTTPClient = localClient(t)
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	return fns[0]
}

func TestCreateImage(t *testing.T) {
	f := newFake(t)
	fn := build(t, f, Config{APIKey: testKey, Model: "dall-e-2", N: 2, Size: "512x512", Quality: "hd", Style: "natural"})
	res, err := fn.Invoke(context.Background(), nil, map[string]any{"prompt": "a fox"})
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://oaidalleapiprodscus.blob.core.windows.net/private/img-1.png"
	if res.Content != "Image has been generated at the URL "+url+"\n" {
		t.Errorf("content = %q", res.Content)
	}
	if len(res.Images) != 1 || res.Images[0].URL != url || res.Images[0].ID == "" {
		t.Errorf("images = %+v, want the generated one as the run's image", res.Images)
	}
	f.mu.Lock()
	got, _ := json.Marshal(f.body)
	f.mu.Unlock()
	if want := `{"model":"dall-e-2","n":2,"prompt":"a fox","quality":"hd","size":"512x512","style":"natural"}`; string(got) != want {
		t.Errorf("request = %s, want %s (agno's arguments)", got, want)
	}
}

func TestCreateImageErrors(t *testing.T) {
	f := newFake(t)
	res, _ := build(t, f, Config{APIKey: "sk-wrong"}).Invoke(context.Background(), nil, map[string]any{"prompt": "a fox"})
	if !strings.HasPrefix(res.Content, "Error: ") || !strings.Contains(res.Content, "401") || strings.Contains(res.Content, "sk-wrong") {
		t.Errorf("bad key: %q", res.Content)
	}
	t.Setenv(APIKeyEnv, "")
	res, _ = build(t, f, Config{}).Invoke(context.Background(), nil, map[string]any{"prompt": "a fox"})
	if res.Content != "Please set the OPENAI_API_KEY" {
		t.Errorf("no key: %q, want agno's text", res.Content)
	}
	if _, err := New(Config{Model: "dall-e-3", N: 3}); err == nil || err.Error() != "Dall-e-3 only supports a single image generation." {
		t.Errorf("n = 3 on dall-e-3: %v", err)
	}
}
