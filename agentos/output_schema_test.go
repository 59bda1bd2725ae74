package agentos_test

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/storage/memory"
)

// agentos-api.md §1.5: an output_schema form field (a JSON schema) asks
// that run for structured output; the provider gets it as a strict
// json_schema response format and the content comes back as an object.
func TestRunOutputSchemaFormField(t *testing.T) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: func(req *model.Request) modeltest.Response {
		if req.ResponseFormat != nil {
			return modeltest.Response{Content: `{"name":"Up","year":2009}`}
		}
		return modeltest.Response{Content: "plain"}
	}})
	defer fake.Close()
	m, err := openai.New(openai.Config{ID: "gpt-4o-mini", BaseURL: fake.URL, APIKey: "k", HTTPClient: fake.Client()})
	if err != nil {
		t.Fatal(err)
	}
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Critic", Model: m, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	schema := `{"title":"Movie Pick","type":"object","properties":{"name":{"type":"string"},"year":{"type":"integer"}}}`
	resp := postForm(t, srv, "/agents/critic/runs", url.Values{"message": {"pick one"}, "stream": {"false"}, "output_schema": {schema}})
	var out map[string]any
	decode(t, resp, &out)
	content, _ := out["content"].(map[string]any)
	if resp.StatusCode != 200 || content["name"] != "Up" || content["year"] != 2009.0 || out["content_type"] != "dict" {
		t.Fatalf("run with output_schema: %d %v", resp.StatusCode, out)
	}
	var sent struct {
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string          `json:"name"`
				Strict bool            `json:"strict"`
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	reqs := fake.Requests()
	if err := reqs[len(reqs)-1].Decode(&sent); err != nil {
		t.Fatal(err)
	}
	rf := sent.ResponseFormat
	var got map[string]any
	_ = json.Unmarshal(rf.JSONSchema.Schema, &got)
	if rf.Type != "json_schema" || rf.JSONSchema.Name != "Movie_Pick" || !rf.JSONSchema.Strict || got["additionalProperties"] != false {
		t.Fatalf("response_format sent: %+v %s", rf, rf.JSONSchema.Schema)
	}

	// Only that run: the next one is plain text again.
	resp = postForm(t, srv, "/agents/critic/runs", url.Values{"message": {"again"}, "stream": {"false"}})
	decode(t, resp, &out)
	if out["content"] != "plain" {
		t.Fatalf("run without output_schema: %v", out["content"])
	}

	resp = postForm(t, srv, "/agents/critic/runs", url.Values{"message": {"x"}, "stream": {"false"}, "output_schema": {`["not", "an", "object"]`}})
	if resp.StatusCode != 400 {
		t.Fatalf("a JSON list as output_schema: %d, want 400", resp.StatusCode)
	}
}
