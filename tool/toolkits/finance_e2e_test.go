package toolkits_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/toolkits" // registers the built-in toolkits
)

// buildToolkit builds a registered toolkit from its [toolkits.<name>]
// table, as a config file does.
func buildToolkit(t *testing.T, name, table string, env tool.ToolkitEnv) tool.Provider {
	t.Helper()
	rt, ok := tool.LookupToolkit(name)
	if !ok {
		t.Fatalf("toolkit %q is not registered", name)
	}
	opts := rt.DefaultOptions(env)
	md, err := toml.Decode(table, opts)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("%s: unknown keys %v", name, u)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFinanceAndDataThroughAgentOS: an agent with yfinance (against a
// fake Yahoo chart endpoint, in the shape yfinance's history scraper
// reads), calculator and sql (a SQLite file) is run through AgentOS's
// POST /agents/{id}/runs; the scripted model calls one function of each,
// then answers with what they returned.
func TestFinanceAndDataThroughAgentOS(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())

	yahoo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v8/finance/chart/AAPL" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"chart":{"result":[{"meta":{"currency":"USD","symbol":"AAPL","exchangeTimezoneName":"America/New_York","regularMarketPrice":237.33},"timestamp":[1733149800],"indicators":{"quote":[{"open":[237.27],"high":[240.79],"low":[237.16],"close":[239.59],"volume":[48137100]}]}}],"error":null}}`)
	}))
	defer yahoo.Close()

	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "portfolio.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []string{"CREATE TABLE holdings (symbol TEXT, shares INTEGER)", "INSERT INTO holdings VALUES ('AAPL', 10)"} {
		if _, err := db.Exec(st); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	hc := g.Client(0)
	defer hc.CloseIdleConnections()
	env := tool.ToolkitEnv{Dir: dir, HTTPClient: hc}
	finance := buildToolkit(t, "yfinance", fmt.Sprintf("base_url = %q\ncookie_url = %q", yahoo.URL, yahoo.URL+"/cookie"), env)
	calc := buildToolkit(t, "calculator", "", env)
	sqlTools := buildToolkit(t, "sql", `db_url = "sqlite:///portfolio.db"`, env)

	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != model.RoleTool {
			return modeltest.Response{ToolCalls: []model.ToolCall{
				modeltest.ToolCall("c1", "get_current_stock_price", `{"symbol": "AAPL"}`),
				modeltest.ToolCall("c2", "run_sql_query", `{"query": "SELECT symbol, shares FROM holdings"}`),
				modeltest.ToolCall("c3", "multiply", `{"a": 237.33, "b": 10}`),
			}}
		}
		var results []string
		for _, msg := range req.Messages {
			if msg.Role == model.RoleTool {
				results = append(results, msg.Content)
			}
		}
		return modeltest.Response{Content: strings.Join(results, " | ")}
	})
	store := memory.New()
	a, err := agent.New(agent.Config{Name: "Finance Agent", Model: m, Tools: []tool.Provider{finance, calc, sqlTools}, Store: store})
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

	form := url.Values{"message": {"What are my AAPL shares worth?"}, "stream": {"false"}}
	resp, err := srv.Client().Post(srv.URL+"/agents/finance-agent/runs", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /agents/finance-agent/runs: %d %s", resp.StatusCode, body)
	}
	var out struct {
		Content string `json:"content"`
		Status  string `json:"status"`
		Tools   []struct {
			ToolName string `json:"tool_name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	want := `237.3300 | [{"symbol": "AAPL", "shares": 10}] | {"operation": "multiplication", "result": 2373.3}`
	if out.Content != want {
		t.Errorf("content %q, want %q (status %s)", out.Content, want, out.Status)
	}
	if len(out.Tools) != 3 {
		t.Errorf("the run records %d tool calls, want 3: %s", len(out.Tools), body)
	}
	for _, p := range []tool.Provider{finance, calc, sqlTools} {
		if c, ok := p.(tool.Connector); ok {
			_ = c.Close()
		}
	}
}
