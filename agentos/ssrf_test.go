package agentos_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/netguard"
)

// allowingClient is a guarded client that lets the listed internal
// destinations through, as [outbound] allow does.
func allowingClient(t *testing.T, allow ...string) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// A caller cannot make AgentOS read an internal service into a knowledge
// base and read it back through search (SSRF). POST /knowledge/content
// with a URL on loopback — a file URL, a crawled one, and one with a
// reader chosen by reader_id — fails the content with the refusal named,
// and the page is not findable by POST /knowledge/search. With the
// address allowed, the same uploads are ingested and found.
func TestKnowledgeURLUploadRefusesInternalAddresses(t *testing.T) {
	var hits atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`<main>Payroll export: the vault code is aardvark-7351.</main>`))
	}))
	defer internal.Close()
	uploads := []map[string]string{
		{"url": internal.URL + "/payroll.txt"},
		{"url": internal.URL + "/intranet"},
		{"url": internal.URL + "/wiki", "reader_id": "WebsiteReader", "chunker": "RecursiveChunker"},
	}
	ingest := func(t *testing.T, h http.Handler) []map[string]any {
		t.Helper()
		var out []map[string]any
		for _, fields := range uploads {
			rec := upload(t, h, "", fields)
			if rec.Code != http.StatusAccepted {
				t.Fatalf("upload %v: %d %s", fields, rec.Code, rec.Body)
			}
			var m map[string]any
			_ = json.Unmarshal(rec.Body.Bytes(), &m)
			out = append(out, waitContent(t, h, m["id"].(string)))
		}
		return out
	}
	found := func(t *testing.T, h http.Handler) bool {
		t.Helper()
		for _, c := range contentsOf(search(t, h, `{"query": "payroll vault code aardvark", "max_results": 10}`)) {
			if strings.Contains(c, "aardvark") {
				return true
			}
		}
		return false
	}

	env := openKB(t, t.TempDir(), "docs", nil)
	h := newKnowledgeOS(t, env.store, agentos.Config{}, env.kb).Handler()
	for i, st := range ingest(t, h) {
		msg, _ := st["status_message"].(string)
		if st["status"] != "failed" || !strings.Contains(msg, "netguard: refused to connect to 127.0.0.1, a loopback address") ||
			!strings.Contains(msg, `add "127.0.0.1/32" to [outbound] allow in config.toml`) {
			t.Errorf("upload %v: %v", uploads[i], st)
		}
	}
	if found(t, h) || hits.Load() != 0 {
		t.Fatalf("the internal page is searchable (%v); it answered %d requests", found(t, h), hits.Load())
	}

	allowed := openKBClient(t, t.TempDir(), "docs", nil, allowingClient(t, "127.0.0.1/32"))
	h = newKnowledgeOS(t, allowed.store, agentos.Config{}, allowed.kb).Handler()
	for i, st := range ingest(t, h) {
		if st["status"] != "completed" {
			t.Errorf("allowed upload %v: %v", uploads[i], st)
		}
	}
	if !found(t, h) {
		t.Error("the allowed page is not searchable")
	}
}
