package openai

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

// ClientOptions take the place of BaseURL and APIKey, and a middleware of
// theirs runs once a call, outside the retries: it sees the request
// before any attempt is made of it.
func TestClientOptions(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: "vendor-key", Script: []modeltest.Response{
		{Status: http.StatusServiceUnavailable, ErrorMessage: "busy", RetryAfter: time.Millisecond},
		{Content: "ok"},
	}})
	t.Cleanup(srv.Close)
	t.Setenv(OpenAIKeyEnv, "")
	var calls atomic.Int32
	m, err := New(Config{
		ID: "m", HTTPClient: srv.Client(), Provider: "Vendor", MaxRetries: 1,
		// Neither BaseURL nor a key: OPENAI_API_KEY must not be needed.
		ClientOptions: []option.RequestOption{
			option.WithBaseURL(srv.URL),
			option.WithAPIKey("vendor-key"),
			option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				calls.Add(1)
				return next(r)
			}),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for c, err := range m.Generate(context.Background(), userRequest(false, "hi")) {
		if err != nil {
			t.Fatal(err)
		}
		if c.Content != "ok" {
			t.Errorf("content %q, want ok", c.Content)
		}
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the option's middleware ran %d times for one call, want once", n)
	}
	if got := m.Info().Provider; got != "Vendor" {
		t.Errorf("provider %q", got)
	}
}

// A model whose Info claims no native structured outputs is never sent a
// schema: it gets JSON mode, as the agent asks of such a model.
func TestNonNativeStructuredOutputGetsJSONMode(t *testing.T) {
	native := false
	srv, m := newServer(t, modeltest.ServerConfig{Script: []modeltest.Response{{Content: `{"a":1}`}}},
		Config{Compatible: true, NativeStructuredOutputs: &native})
	req := userRequest(false, "json please")
	req.ResponseFormat = &model.ResponseFormat{Type: "json_schema", Name: "x", Schema: []byte(`{"type":"object"}`), Strict: true}
	if _, err := chunks(t, m.Generate(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	rf, _ := body(t, srv, 0)["response_format"].(map[string]any)
	if rf["type"] != "json_object" || rf["json_schema"] != nil {
		t.Errorf("response_format = %v, want {type: json_object}", rf)
	}
}
