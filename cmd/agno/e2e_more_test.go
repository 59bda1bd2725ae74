package main

import (
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/model/modeltest"
)

// The binary with the users' config, two teams (coordinate and route),
// --host and --insecure: registry counts, both teams' runs, a proxied
// client served because protected mode is off, a graceful stop.
func TestE2ETwoTeamsAndStartFlags(t *testing.T) {
	bin := agnoBinary(t)
	dir := t.TempDir()
	fake := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeModel, APIKey: "sk-e2e"})
	defer fake.Close()
	cfg, _ := usersConfig(t, fake.URL)
	if !strings.Contains(cfg, `host = "0.0.0.0"`) {
		t.Fatal("the users' config no longer binds 0.0.0.0; update this test")
	}
	files := map[string]string{
		"config.toml":              cfg,
		"agents/researcher.toml":   "name = \"Researcher\"\nmodel = \"default\"\nrole = \"Finds facts\"\n",
		"agents/writer.toml":       "name = \"Writer\"\nmodel = \"default\"\nrole = \"Writes\"\n",
		"teams/research-team.toml": "name = \"Research Team\"\nmode = \"coordinate\"\nmodel = \"default\"\nmembers = [\"researcher\", \"writer\"]\n",
		"teams/routing-team.toml":  "name = \"Routing Team\"\nmode = \"route\"\nmodel = \"default\"\nmembers = [\"writer\", \"researcher\"]\n",
	}
	writeTree(t, dir, files)
	// --host keeps the users' 0.0.0.0 off: only loopback is bound.
	p := startAgno(t, bin, []string{"agentos", "start", "--config", filepath.Join(dir, "config.toml"), "--host", "127.0.0.1", "--insecure"},
		[]string{"TAOTOKEN_API_KEY=sk-e2e", "OS_SECURITY_KEY="})
	base := p.base
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	p.waitLogged(t, "addr=127.0.0.1:"+port)

	var reg struct {
		Data []struct{ Name, Type, ID string } `json:"data"`
	}
	getJSON(t, base+"/registry?limit=100", &reg)
	teams := map[string]bool{}
	counts := map[string]int{}
	for _, r := range reg.Data {
		counts[r.Type]++
		if r.Type == "team" {
			teams[r.ID] = true
		}
	}
	if counts["agent"] != 2 || counts["team"] != 2 || !teams["research-team"] || !teams["routing-team"] {
		t.Fatalf("registry %v %v", counts, teams)
	}
	var out map[string]any
	postJSON(t, base+"/teams/research-team/runs", url.Values{"message": {"capital of France?"}, "stream": {"false"}, "session_id": {"s-coord"}}, &out)
	if out["status"] != "COMPLETED" || out["team_id"] != "research-team" || out["content"] != "Team says: Answer: find it" {
		t.Fatalf("coordinate team %v", out)
	}
	// A route team answers with the member's response itself.
	postJSON(t, base+"/teams/routing-team/runs", url.Values{"message": {"capital of France?"}, "stream": {"false"}, "session_id": {"s-route"}}, &out)
	if out["status"] != "COMPLETED" || out["team_id"] != "routing-team" || out["content"] != "Answer: find it" {
		t.Fatalf("route team %v", out)
	}
	evs := postSSE(t, base+"/teams/routing-team/runs", url.Values{"message": {"again"}, "session_id": {"s-route"}})
	if seq := eventNames(evs); !strings.HasPrefix(seq, "TeamRunStarted") || !strings.HasSuffix(seq, "TeamRunCompleted") {
		t.Fatalf("route team stream %s", seq)
	}
	var sessions struct {
		Data []map[string]any `json:"data"`
	}
	getJSON(t, base+"/sessions?type=team", &sessions)
	if len(sessions.Data) != 2 {
		t.Fatalf("team sessions %v", sessions.Data)
	}

	// --insecure: a proxied client is served without a key.
	req, _ := http.NewRequest(http.MethodGet, base+"/agents", nil)
	req.Header.Set("Forwarded", "for=203.0.113.9")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("proxied client with --insecure: %d", resp.StatusCode)
	}
	// Unknown routes answer as FastAPI does.
	resp, err = http.Get(base + "/no-such-route")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("unknown route: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	p.stop(t)
}
