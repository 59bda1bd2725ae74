package newspaper4k_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webfetch/webfetchtest"
	_ "github.com/agno-go/agno/tool/newspaper4k"
	"github.com/agno-go/agno/tool/tooltest"
)

// newsSite serves testdata/news-article.html, a wire-service story page
// (see the fixture's comment), with a few other answers around it.
func newsSite(t *testing.T) *httptest.Server {
	t.Helper()
	page, err := os.ReadFile("testdata/news-article.html")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/local/riverside-park":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write(page)
		case "/moved":
			http.Redirect(w, r, "/local/riverside-park", http.StatusMovedPermanently)
		case "/long":
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><head><title>Long read</title></head><body><article><h1>Long read</h1>" +
				strings.Repeat("<p>"+strings.Repeat("The river rose again this spring, and the town watched it. ", 20)+"</p>", 100) + "</article></body></html>"))
		case "/notes.txt":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write([]byte("Council agenda: parks, budget, bridges."))
		case "/report.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write([]byte("%PDF-1.7 binary"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestConformance(t *testing.T) {
	srv := newsSite(t)
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "newspaper4k",
		Name:      "newspaper4k_tools",
		Functions: []tooltest.Function{{Name: "read_article", Args: []string{"url"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.HTTPClient = webfetchtest.Client(t, "127.0.0.1")
			return "max_output_bytes = 3000"
		},
		Failures: map[string][]tooltest.Call{
			"read_article": {
				{Args: `{"url": "` + srv.URL + `/missing"}`, Want: "Error reading article from " + srv.URL + "/missing: No data found."},
				{Args: `{"url": "` + srv.URL + `/report.pdf"}`, Want: "No data found."},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_article", Option: "max_output_bytes", Limit: 3000,
			Call: tooltest.Call{Args: `{"url": "` + srv.URL + `/long"}`, Want: "[text truncated]"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: "article_length = -1", Key: "article_length"},
			{Table: "timeout = 0", Key: "timeout"},
			{Table: "max_bytes = 0", Key: "max_bytes"},
			{Table: "max_output_bytes = 10", Key: "max_output_bytes"},
		},
	})
}

func readArticle(t *testing.T, env tool.ToolkitEnv, tbl, u string) string {
	t.Helper()
	rt, _ := tool.LookupToolkit("newspaper4k")
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(tbl, opts); err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	res, err := fns[0].Invoke(context.Background(), &tool.Call{Function: fns[0]}, map[string]any{"url": u})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

func TestReadArticle(t *testing.T) {
	srv := newsSite(t)
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t, "127.0.0.1")}
	out := readArticle(t, env, "", srv.URL+"/moved")
	var data map[string]any
	if err := json.Unmarshal([]byte(out), &data); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !strings.HasPrefix(out, "{\n  \"title\": \"City council approves riverside park expansion\",\n  \"authors\": [\n    \"Jane Roe\",\n    \"John Doe\"\n  ],\n  \"text\": ") {
		t.Errorf("not agno's json.dumps(indent=2) with title, authors, text first:\n%s", out)
	}
	if data["publish_date"] != "2026-03-14T09:30:00-05:00" {
		t.Errorf("publish_date = %v, want the isoformat of article:published_time", data["publish_date"])
	}
	text, _ := data["text"].(string)
	for _, want := range []string{"The city council voted 7-2 on Thursday", "A public comment period on the final design will open in May."} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, clutter := range []string{"Advertisement", "Sign up for our morning newsletter", "All rights reserved", "window.ads", "Politics"} {
		if strings.Contains(text, clutter) {
			t.Errorf("text keeps the page's clutter %q:\n%s", clutter, text)
		}
	}
	if _, ok := data["summary"]; ok {
		t.Error("summary without include_summary")
	}
	if !strings.Contains(out, `\u201cThis is the biggest`) {
		t.Error("non-ASCII is not escaped as json.dumps does (ensure_ascii)")
	}

	out = readArticle(t, env, "include_summary = true\narticle_length = 30", srv.URL+"/local/riverside-park")
	data = nil
	_ = json.Unmarshal([]byte(out), &data)
	if data["text"] != "SPRINGFIELD (EN) — The city co" {
		t.Errorf("article_length = 30: text %q", data["text"])
	}
	if data["summary"] != "The plan adds 40 acres of green space along the river and a new pedestrian bridge." {
		t.Errorf("summary %q", data["summary"])
	}

	if out := readArticle(t, env, "", srv.URL+"/notes.txt"); out != "{\n  \"text\": \"Council agenda: parks, budget, bridges.\"\n}" {
		t.Errorf("plain text: %s", out)
	}
}

// The guard refuses a private address: agno's get_article_data logs the
// failure and read_article says no data was found; the log names the
// refusal.
func TestReadArticleRefusesInternalAddresses(t *testing.T) {
	srv := newsSite(t)
	var logs bytes.Buffer
	env := tool.ToolkitEnv{HTTPClient: webfetchtest.Client(t), Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	u := srv.URL + "/local/riverside-park"
	if out := readArticle(t, env, "", u); out != "Error reading article from "+u+": No data found." {
		t.Errorf("read_article of a refused address = %q", out)
	}
	if !strings.Contains(logs.String(), "netguard: refused to connect to 127.0.0.1") {
		t.Errorf("the refusal is not logged:\n%s", logs.String())
	}
}
