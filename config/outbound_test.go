package config_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/netguard"
)

// Each [outbound] allow entry is a host name, an address or a CIDR; any
// other is reported with its index, its line and what to write.
func TestOutboundAllowValidation(t *testing.T) {
	c, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte(`[outbound]
allow = ["wiki.corp.example", "10.1.0.0/16", "127.0.0.1", "::1/128"]
`))
	if err != nil || !slices.Equal(c.Outbound.Allow, []string{"wiki.corp.example", "10.1.0.0/16", "127.0.0.1", "::1/128"}) {
		t.Fatalf("valid entries: %+v %v", c.Outbound, err)
	}
	errs := configErrors(t, parse(t, `[outbound]
allow = [
  "wiki.corp.example",
  "https://wiki.corp.example/",
  "10.1.2.3/16",
  "",
]
`))
	for _, want := range []struct {
		key   string
		line  int
		parts []string
	}{
		{"outbound.allow[1]", 4, []string{`outbound.allow[1] = "https://wiki.corp.example/"`, "without scheme, port or path", `"10.1.0.0/16"`}},
		{"outbound.allow[2]", 5, []string{`outbound.allow[2] = "10.1.2.3/16"`, `write "10.1.0.0/16"`}},
		{"outbound.allow[3]", 6, []string{`outbound.allow[3] = ""`, "empty"}},
	} {
		e := findError(t, errs, want.parts...)
		if e.Key != want.key || e.Line != want.line {
			t.Errorf("%s: key %q line %d: %v", want.key, e.Key, e.Line, e)
		}
	}
	if len(errs) != 3 {
		t.Errorf("%d errors, want 3: %v", len(errs), errs)
	}
}

// The knowledge bases config builds fetch with the [outbound] client:
// without it a loopback URL fails naming the setting, with it the URL is
// ingested — also by the readers [knowledge.x.chunking] makes.
func TestKnowledgeFetchesThroughOutbound(t *testing.T) {
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`<main>Internal runbook quokka.</main>`))
	}))
	defer site.Close()
	const kbs = "[agentos]\nregistry_auto_populate = false\n[knowledge.docs]\n[knowledge.chunked]\n[knowledge.chunked.chunking]\nstrategy = \"RecursiveChunker\"\n"
	open := func(t *testing.T, extra string, build bool) *config.Resources {
		t.Helper()
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"agno.toml": kbs + extra})
		c, err := config.Load(filepath.Join(dir, "agno.toml"))
		if err != nil {
			t.Fatal(err)
		}
		var res *config.Resources
		if build {
			res, err = c.Build(context.Background(), config.Functions{}, config.Existing{})
		} else {
			res, err = c.OpenKnowledge(context.Background())
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = res.Close() })
		if res.Outbound == nil {
			t.Fatal("no Outbound client")
		}
		return res
	}
	insert := func(kb *knowledge.Knowledge, u string) (contents.Row, error) {
		cs, err := kb.Insert(context.Background(), knowledge.Input{URL: u})
		if len(cs) == 0 {
			return contents.Row{}, err
		}
		row, gerr := kb.ContentsDB().Get(context.Background(), cs[0].ID)
		return row, errors.Join(err, gerr)
	}

	for _, build := range []bool{false, true} {
		res := open(t, "", build)
		for _, name := range []string{"docs", "chunked"} {
			for _, u := range []string{site.URL + "/runbook", site.URL + "/runbook.html"} {
				row, err := insert(res.Knowledge[name], u)
				if !errors.As(err, new(*netguard.BlockedError)) || row.Status != contents.StatusFailed ||
					!strings.Contains(row.StatusMessage, `add "127.0.0.1/32" to [outbound] allow in agno.toml`) {
					t.Errorf("build %v, %s, %s: %v; row %s %q", build, name, u, err, row.Status, row.StatusMessage)
				}
			}
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the loopback server answered %d requests", hits.Load())
	}

	res := open(t, "[outbound]\nallow = [\"127.0.0.1/32\"]\n", false)
	for _, name := range []string{"docs", "chunked"} {
		for _, u := range []string{site.URL + "/runbook", site.URL + "/runbook.html"} {
			if row, err := insert(res.Knowledge[name], u); err != nil || row.Status != contents.StatusCompleted {
				t.Errorf("allowed, %s, %s: %v; row %s %q", name, u, err, row.Status, row.StatusMessage)
			}
		}
		if docs, err := res.Knowledge[name].Search(context.Background(), "runbook quokka", knowledge.SearchOptions{}); err != nil || len(docs) == 0 {
			t.Errorf("%s: allowed page not found: %v", name, err)
		}
	}
}
