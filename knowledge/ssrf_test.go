package knowledge

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/netguard"
)

// A Knowledge without a client of its own refuses URLs on loopback, a
// file URL and a crawled one: the contents fail with the refusal named
// and nothing of the page is searchable. Allowed by a netguard policy,
// the same URLs are ingested.
func TestInsertURLRefusesInternalByDefault(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`<main>Internal payroll figures zebracorn.</main>`))
	}))
	defer srv.Close()

	f := newFixture(t, Config{Name: "kb"})
	for _, u := range []string{srv.URL + "/payroll.txt", srv.URL + "/intranet"} {
		cs, err := f.k.Insert(t.Context(), Input{URL: u})
		if !errors.As(err, new(*netguard.BlockedError)) || len(cs) != 1 {
			t.Fatalf("%s: want a refusal, got %v", u, err)
		}
		row := f.row(t, cs[0].ID)
		if row.Status != contents.StatusFailed || !strings.Contains(row.StatusMessage, "refused to connect to 127.0.0.1") ||
			!strings.Contains(row.StatusMessage, netguard.DefaultSetting) {
			t.Errorf("%s: row %s %q", u, row.Status, row.StatusMessage)
		}
	}
	if docs := f.search(t, "zebracorn payroll", filter.Filters{}); len(docs) != 0 || hits.Load() != 0 {
		t.Errorf("found %d chunks; the server answered %d requests", len(docs), hits.Load())
	}

	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1/32"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	defer c.CloseIdleConnections()
	allowed := newFixture(t, Config{Name: "kb", HTTPClient: c})
	if allowed.k.HTTPClient() != c {
		t.Error("HTTPClient is not the configured client")
	}
	for _, u := range []string{srv.URL + "/payroll.txt", srv.URL + "/intranet"} {
		if cs, err := allowed.k.Insert(t.Context(), Input{URL: u}); err != nil || allowed.row(t, cs[0].ID).Status != contents.StatusCompleted {
			t.Errorf("%s allowed: %v", u, err)
		}
	}
	if docs := allowed.search(t, "zebracorn payroll", filter.Filters{}); len(docs) == 0 {
		t.Error("the allowed page is not searchable")
	}
}
