package agentos_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/storage/sqlite"
)

// A simple run costs the embedded store at most two write transactions:
// the start (session and run row) and the end (run, events, session
// state) — streamed or not, in a new session or an existing one.
func TestSimpleRunWritesTwice(t *testing.T) {
	llm := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "Hello"}}, NoRecord: true})
	defer llm.Close()
	m, err := openai.New(openai.Config{ID: "fake-model", BaseURL: llm.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, err := agent.New(agent.Config{ID: "simple", Model: m, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Store: st, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	srv := httptest.NewServer(o.Handler())
	defer srv.Close()

	for i, tc := range []struct {
		stream  bool
		session string
	}{{false, "s1"}, {false, "s1"}, {true, "s2"}, {true, "s2"}} {
		before := st.Stats().Writes
		form := url.Values{"message": {"hi"}, "stream": {strconv.FormatBool(tc.stream)}, "session_id": {tc.session}}
		resp, err := http.Post(srv.URL+"/agents/simple/runs", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "Hello") {
			t.Fatalf("run %d: %d %s", i, resp.StatusCode, body)
		}
		if n := st.Stats().Writes - before; n > 2 {
			t.Errorf("run %d (stream=%v, session %s): %d write transactions, want at most 2", i, tc.stream, tc.session, n)
		}
	}
}
