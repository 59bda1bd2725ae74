package azure

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The front passes what it read from Azure's URL to the recorded
// request in these headers: the route's name and the query.
const (
	routedHeader = "X-Test-Azure-Route"
	queryHeader  = "X-Test-Azure-Query"
)

// wire is what a fake front expects of Azure's wire format.
type wire struct {
	// route reads the request's path: the deployment (Azure OpenAI) or
	// "" for a path that is not the vendor's chat completions route.
	route func(path string) (name string, ok bool)
	// apiVersion is the api-version query parameter required.
	apiVersion string
	// auth checks the credential headers; it returns Azure's error
	// message, or "" when they are right.
	auth func(h http.Header) string
}

// azureFake is an Azure endpoint in front of modeltest's Chat
// Completions fake: the front checks Azure's URL, api-version and
// credential headers and answers a mistake as Azure does (401, 404); a
// right request is served, as /v1/chat/completions, by the modeltest
// handler that scripts the answer. Both Azure APIs answer in OpenAI's
// Chat Completions format, so the answers are modeltest's.
type azureFake struct {
	inner *modeltest.Handler
	srv   *httptest.Server
	base  string
	once  sync.Once
}

func startAzureFake(t *testing.T, w wire, basePath string, turns ...providertest.Turn) *azureFake {
	script := make([]modeltest.Response, len(turns))
	for i, turn := range turns {
		r := modeltest.Response{
			Content:         strings.Join(turn.Text, ""),
			Tokens:          turn.Text,
			Reasoning:       strings.Join(turn.Reasoning, ""),
			ReasoningTokens: turn.Reasoning,
			Usage:           &model.Usage{InputTokens: turn.InputTokens, OutputTokens: turn.OutputTokens},
			Status:          turn.Status,
			ErrorMessage:    turn.ErrorMessage,
			RetryAfter:      turn.RetryAfter,
			Hang:            turn.End == providertest.Stall,
			Cut:             turn.End == providertest.Cut,
		}
		for _, c := range turn.ToolCalls {
			r.ToolCalls = append(r.ToolCalls, model.NewToolCall(c.ID, c.Name, c.Arguments))
		}
		script[i] = r
	}
	f := &azureFake{inner: modeltest.NewHandler(modeltest.ServerConfig{Script: script})}
	f.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		name, ok := w.route(r.URL.Path)
		if r.Method != http.MethodPost || !ok {
			t.Errorf("%s %s: not the chat completions route", r.Method, r.URL.Path)
			azureError(rw, http.StatusNotFound, "404", "Resource not found")
			return
		}
		if got := r.URL.Query().Get("api-version"); got != w.apiVersion {
			t.Errorf("api-version = %q, want %q", got, w.apiVersion)
			azureError(rw, http.StatusNotFound, "404", "Resource not found")
			return
		}
		if msg := w.auth(r.Header); msg != "" {
			t.Errorf("credentials: %s (headers %v)", msg, r.Header)
			azureError(rw, http.StatusUnauthorized, "401", msg)
			return
		}
		r.Header.Set(routedHeader, name)
		r.Header.Set(queryHeader, r.URL.RawQuery)
		u := *r.URL
		u.Path, u.RawPath = "/v1/chat/completions", ""
		r.URL = &u
		f.inner.ServeHTTP(rw, r)
	}))
	f.base = f.srv.URL + basePath
	t.Cleanup(f.Close)
	return f
}

// azureError writes Azure's error body
// (https://learn.microsoft.com/azure/ai-services/openai/reference, the
// error response of every operation).
func azureError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (f *azureFake) URL() string                   { return f.base }
func (f *azureFake) Disconnected() <-chan struct{} { return f.inner.Abandoned() }

// Close drops the connections first: a stalled stream's handler waits for
// its client to go away.
func (f *azureFake) Close() {
	f.once.Do(func() {
		f.srv.CloseClientConnections()
		f.srv.Close()
	})
}

// Requests reads what the suite checks out of the forwarded requests.
// Model is the route's name when it has one (Azure OpenAI's deployment,
// which picks the model), else the body's model.
func (f *azureFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range f.inner.Requests() {
		r := rec.SuiteRequest()
		if name := rec.Header.Get(routedHeader); name != "" {
			r.Model = name
		}
		out = append(out, r)
	}
	return out
}

// openAIWire is Azure OpenAI's data plane
// (https://learn.microsoft.com/azure/ai-services/openai/reference, "Chat
// completions"): POST {endpoint}/openai/deployments/{deployment-id}/chat/completions?api-version=...,
// authenticated by an api-key header, or by "Authorization: Bearer" with
// a Microsoft Entra ID token, never both.
func openAIWire(apiVersion, key, token string) wire {
	return wire{
		route: func(path string) (string, bool) {
			rest, ok := strings.CutPrefix(path, "/openai/deployments/")
			dep, tail, _ := strings.Cut(rest, "/")
			return dep, ok && dep != "" && tail == "chat/completions"
		},
		apiVersion: apiVersion,
		auth: func(h http.Header) string {
			switch {
			case token != "" && h.Get("Authorization") != "Bearer "+token:
				return "Authorization must be Bearer <Entra ID token>"
			case token != "" && h.Get("Api-Key") != "":
				return "api-key sent with a token"
			case token == "" && h.Get("Api-Key") != key:
				return "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."
			case token == "" && h.Get("Authorization") != "":
				return "Authorization sent with an api-key"
			}
			return ""
		},
	}
}

// foundryWire is the Azure AI Model Inference API
// (https://learn.microsoft.com/azure/ai-foundry/model-inference/reference/reference-model-inference-chat-completions):
// POST {endpoint}/chat/completions?api-version=..., the key sent as
// azure-ai-inference's ChatCompletionsClient sends an AzureKeyCredential,
// both "Authorization: Bearer <key>" and "api-key: <key>".
func foundryWire(basePath, apiVersion, key string) wire {
	return wire{
		route: func(path string) (string, bool) {
			return "", path == basePath+"/chat/completions"
		},
		apiVersion: apiVersion,
		auth: func(h http.Header) string {
			if h.Get("Authorization") != "Bearer "+key || h.Get("Api-Key") != key {
				return "Access denied due to invalid subscription key or wrong API endpoint."
			}
			return ""
		},
	}
}
