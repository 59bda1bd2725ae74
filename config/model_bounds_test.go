package config_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// misbehavingProvider answers as OpenAI's chat completions
// (https://platform.openai.com/docs/api-reference/chat/streaming) and
// Anthropic's messages (https://docs.anthropic.com/en/docs/build-with-claude/streaming)
// do, then goes silent mid-answer, or answers at great length.
func misbehavingProvider(t *testing.T) *httptest.Server {
	t.Helper()
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stream := r.Header.Get("Accept") == "text/event-stream" || strings.Contains(readAll(r), `"stream":true`)
		hold := func() {
			w.(http.Flusher).Flush()
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		}
		switch {
		case r.URL.Path == "/v1/messages":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n")
			_, _ = fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
			_, _ = fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n")
			hold()
		case strings.HasPrefix(r.URL.Path, "/huge"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"huge","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"%s"}}]}`, strings.Repeat("word ", 1<<20))
		case stream:
			w.Header().Set("Content-Type", "text/event-stream")
			for _, tok := range []string{"Hel", "lo"} {
				_, _ = fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
			}
			hold()
		default:
			// Headers and half a body, then nothing.
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,`)
			hold()
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv
}

func agentNamed(t *testing.T, res *config.Resources, name string) *agent.Agent {
	t.Helper()
	for _, a := range res.Agents {
		if a.Name() == name {
			return a
		}
	}
	t.Fatalf("no agent %q", name)
	return nil
}

func readAll(r *http.Request) string {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

func boundedModels(t *testing.T) *config.Resources {
	t.Helper()
	srv := misbehavingProvider(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
model = "m"
idle_timeout = 0.3
max_retries = 0
[models.huge]
provider = "openai-compatible"
base_url = "` + srv.URL + `/huge"
model = "huge"
max_response_bytes = 100000
max_retries = 0
[models.claude]
provider = "anthropic"
base_url = "` + srv.URL + `"
model = "claude-x"
api_key_env = "AGNO_CONFIG_TEST_BOUNDS_KEY"
idle_timeout = 0.3
max_retries = 0
[storage]
driver = "memory"
`,
		"agents/stalled.toml": "name = \"Stalled\"\nmodel = \"default\"\n",
		"agents/verbose.toml": "name = \"Verbose\"\nmodel = \"huge\"\n",
	})
	t.Setenv("AGNO_CONFIG_TEST_BOUNDS_KEY", "k")
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Build(context.Background(), registryFunctions(), config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = res.Close() })
	return res
}

// A provider that stalls after its first chunks ends the call with the
// idle limit named, through both official SDKs, streamed or not.
func TestStalledAnswerEndsAtTheIdleTimeout(t *testing.T) {
	res := boundedModels(t)
	for _, tc := range []struct {
		model  string
		stream bool
	}{{"default", true}, {"default", false}, {"claude", true}} {
		t.Run(fmt.Sprintf("%s/stream=%v", tc.model, tc.stream), func(t *testing.T) {
			req := &model.Request{Stream: tc.stream, Messages: []model.Message{{Role: "user", Content: "hi"}}}
			_, err := model.Collect(res.Models[tc.model].Generate(context.Background(), req))
			if !errors.Is(err, httptransport.ErrStalled) || !strings.Contains(err.Error(), "idle_timeout") {
				t.Fatalf("error %v, want the stall named", err)
			}
		})
	}
	// Through an agent the run ends ERROR, saying so.
	out, err := agentNamed(t, res, "Stalled").Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != run.StatusError || !strings.Contains(out.ContentString(), "idle_timeout") {
		t.Fatalf("run %s %q", out.Status, out.ContentString())
	}
}

// An answer longer than max_response_bytes ends the run ERROR saying so,
// without reading the rest of it.
func TestOversizedAnswerEndsTheRun(t *testing.T) {
	res := boundedModels(t)
	out, err := agentNamed(t, res, "Verbose").Run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	msg := out.ContentString()
	if out.Status != run.StatusError || !strings.Contains(msg, "exceeded 100000 bytes") || !strings.Contains(msg, "max_response_bytes") {
		t.Fatalf("run %s %.300q", out.Status, msg)
	}
}

func TestModelBoundKeysAreChecked(t *testing.T) {
	for key, want := range map[string]string{
		"idle_timeout = 0":        "positive number of seconds the provider may stay silent",
		"idle_timeout = -1":       "positive number of seconds the provider may stay silent",
		"max_response_bytes = 0":  "positive number of bytes",
		"max_response_bytes = -5": "positive number of bytes",
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"config.toml": "[models.m]\nprovider = \"openai-compatible\"\nmodel = \"x\"\nbase_url = \"http://127.0.0.1:1\"\n" + key + "\n[storage]\ndriver = \"memory\"\n"})
		_, err := config.Load(filepath.Join(dir, "config.toml"))
		if err == nil || !strings.Contains(err.Error(), "models.m."+strings.Fields(key)[0]) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", key, err)
		}
	}
}
