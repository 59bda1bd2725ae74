package vertexclaude_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
	"github.com/agno-go/agno/model/modeltest/providertest"
	"github.com/agno-go/agno/model/vertexclaude"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	testRegion  = "us-east5"
	testProject = "agno-go-test"
	testModel   = "claude-sonnet-4-5@20250929"
	testToken   = "ya29.test-access-token"
)

// hermetic keeps the machine's Google settings out of a test.
func hermetic(t *testing.T) {
	for _, k := range []string{"CLOUD_ML_REGION", "ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT", "ANTHROPIC_VERTEX_BASE_URL"} {
		t.Setenv(k, "")
	}
}

func TestConformance(t *testing.T) {
	hermetic(t)
	providertest.Run(t, providertest.Harness{
		Provider: vertexclaude.ProviderVertexAIClaude,
		ID:       testModel,
		Options:  &vertexclaude.Options{Region: testRegion, ProjectID: testProject},
		Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
			// The suite's API key is the access token.
			return anthropictest.StartFake(t, vertexPlatform(providertest.APIKey, testProject, testRegion), turns...)
		},
	})
}

// vertexPlatform is Vertex AI serving Claude as a fake: the publisher
// model's rawPredict and streamRawPredict
// (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude,
// https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models/streamRawPredict)
// taking the Messages API body with anthropic_version "vertex-2023-10-16"
// and answering with its body or its server-sent events; an OAuth2 bearer
// token authenticates, and errors are Google's
// (https://cloud.google.com/apis/design/errors).
func vertexPlatform(token, project, region string) anthropictest.Platform {
	prefix := "/v1/projects/" + project + "/locations/" + region + "/publishers/anthropic/models/"
	return anthropictest.Platform{
		Route: func(w http.ResponseWriter, r *http.Request, body []byte) (string, bool, bool) {
			rest, ok := strings.CutPrefix(r.URL.Path, prefix)
			modelID, method, _ := strings.Cut(rest, ":")
			if r.Method != http.MethodPost || !ok || (method != "rawPredict" && method != "streamRawPredict") {
				googleError(w, http.StatusNotFound, "The requested URL "+r.URL.Path+" was not found on this server.")
				return modelID, false, false
			}
			stream := method == "streamRawPredict"
			if r.Header.Get("Authorization") != "Bearer "+token {
				googleError(w, http.StatusUnauthorized, "Request had invalid authentication credentials. Expected OAuth 2 access token.")
				return modelID, stream, false
			}
			var b struct {
				Version string `json:"anthropic_version"`
			}
			if json.Unmarshal(body, &b) != nil || b.Version != vertexclaude.AnthropicVersion {
				googleError(w, http.StatusBadRequest, "anthropic_version must be "+vertexclaude.AnthropicVersion)
				return modelID, stream, false
			}
			return modelID, stream, true
		},
		WriteError: func(w http.ResponseWriter, turn providertest.Turn) {
			googleError(w, turn.Status, turn.ErrorMessage)
		},
		StreamContentType: "text/event-stream; charset=utf-8",
		WriteEvent: func(w io.Writer, ev anthropictest.Event) error {
			_, err := io.WriteString(w, anthropictest.SSE(ev))
			return err
		},
	}
}

// googleStatus are the canonical codes Google's errors name by HTTP status.
var googleStatus = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

func googleError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": googleStatus[code]}})
	w.Write(b)
}

func newModel(t *testing.T, url, token string, o *vertexclaude.Options) model.Model {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	m, err := vertexclaude.New(model.ProviderSettings{ID: testModel, BaseURL: url, APIKey: token, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func hello(stream bool) *model.Request {
	return &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}
}

// Requests go to the model's :rawPredict / :streamRawPredict in the
// project and region, with the token as bearer and no model in the body.
func TestRoutingAndAuth(t *testing.T) {
	hermetic(t)
	for _, stream := range []bool{false, true} {
		fake := anthropictest.StartFake(t, vertexPlatform(testToken, testProject, testRegion), providertest.Turn{Text: []string{"Hi ", "there"}})
		m := newModel(t, fake.URL(), testToken, &vertexclaude.Options{Region: testRegion, ProjectID: testProject})
		resp, err := model.Collect(m.Generate(ctx(t), hello(stream)))
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if resp.Content != "Hi there" {
			t.Errorf("content = %q", resp.Content)
		}
		req := fake.Requests()[0]
		if req.Model != testModel || req.Stream != stream {
			t.Errorf("routed to model %q stream %v", req.Model, req.Stream)
		}
		var body map[string]any
		_ = json.Unmarshal(req.Body, &body)
		if _, ok := body["model"]; ok {
			t.Error("body carries the model: Vertex AI takes it from the URL")
		}
	}
}

// A token the server does not accept ends in a 401 that is not retried.
func TestWrongTokenRejected(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, vertexPlatform(testToken, testProject, testRegion), providertest.Turn{Text: []string{"x"}})
	m := newModel(t, fake.URL(), "ya29.other", &vertexclaude.Options{Region: testRegion, ProjectID: testProject})
	_, err := model.Collect(m.Generate(ctx(t), hello(false)))
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusUnauthorized || pe.Retryable() {
		t.Fatalf("err = %v", err)
	}
}

// Region, project and base URL come from agno's environment variables
// when the table names none.
func TestEnvironment(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, vertexPlatform(testToken, "env-project", "europe-west1"), providertest.Turn{Text: []string{"ok"}})
	t.Setenv("CLOUD_ML_REGION", "europe-west1")
	t.Setenv("ANTHROPIC_VERTEX_PROJECT_ID", "env-project")
	t.Setenv("ANTHROPIC_VERTEX_BASE_URL", fake.URL())
	m := newModel(t, "", testToken, &vertexclaude.Options{})
	if _, err := model.Collect(m.Generate(ctx(t), hello(false))); err != nil {
		t.Fatal(err)
	}
	if info := m.Info(); info.Provider != "VertexAI" || info.Name != "Claude" || info.ID != testModel {
		t.Errorf("Info = %+v", info)
	}
}

// Thinking and caching keys reach the body on Vertex AI too.
func TestClaudeOptionsOnVertex(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, vertexPlatform(testToken, testProject, testRegion), providertest.Turn{Text: []string{"ok"}})
	o := &vertexclaude.Options{Region: testRegion, ProjectID: testProject}
	o.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 1024}
	o.CacheSystemPrompt, o.ExtendedCacheTime = true, true
	m := newModel(t, fake.URL(), testToken, o)
	req := &model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "Be brief."}, {Role: model.RoleUser, Content: "hello"}}}
	if _, err := model.Collect(m.Generate(ctx(t), req)); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Thinking map[string]any `json:"thinking"`
		System   []struct {
			CacheControl map[string]any `json:"cache_control"`
		} `json:"system"`
	}
	if err := json.Unmarshal(fake.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Thinking["type"] != "enabled" || len(body.System) != 1 || body.System[0].CacheControl["ttl"] != "1h" {
		t.Errorf("body = %s", fake.Requests()[0].Body)
	}
}

func TestValidation(t *testing.T) {
	hermetic(t)
	for _, tc := range []struct {
		o    vertexclaude.Options
		want string
	}{
		{vertexclaude.Options{ProjectID: testProject}, "no region: set region"},
		{vertexclaude.Options{Region: testRegion}, "no project: set project_id"},
		{vertexclaude.Options{Region: testRegion, ProjectID: testProject, Options: anthropic.Options{ExtendedCacheTime: true}}, "set cache_system_prompt = true"},
	} {
		if _, err := vertexclaude.New(model.ProviderSettings{APIKey: testToken}, &tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}
