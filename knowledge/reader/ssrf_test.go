package reader

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/netguard"
)

// secretServer is an internal service the readers must not read for a
// caller; it counts the requests that reached it.
func secretServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `<main>internal secret s3cr3t-token</main>`)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// Readers given no client refuse loopback: the HTML reader, the website
// reader and Fetch.
func TestDefaultClientRefusesLoopback(t *testing.T) {
	srv, hits := secretServer(t)
	h, _ := NewHTML(HTMLOptions{})
	w, _ := NewWebsite(WebsiteOptions{Logger: quiet})
	for name, read := range map[string]func() error{
		"html":    func() error { _, err := h.Read(t.Context(), Source{URL: srv.URL + "/"}); return err },
		"website": func() error { _, err := w.Read(t.Context(), Source{URL: srv.URL + "/"}); return err },
		"fetch":   func() error { _, err := Fetch(t.Context(), nil, srv.URL+"/a.txt", 0); return err },
		"localhost": func() error {
			_, err := h.Read(t.Context(), Source{URL: strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/"})
			return err
		},
	} {
		var be *netguard.BlockedError
		if err := read(); !errors.As(err, &be) || !be.Addr.IsLoopback() || !strings.Contains(err.Error(), netguard.DefaultSetting) {
			t.Errorf("%s: want a refusal naming %q, got %v", name, netguard.DefaultSetting, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the loopback server answered %d requests", hits.Load())
	}
}

type names map[string]string

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := n[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// A crawl of an allowed site skips a page that redirects to an internal
// address and a subdomain that resolves to one: the secret is in no
// document.
func TestCrawlRefusesInternalRedirectsAndSubdomains(t *testing.T) {
	secret, hits := secretServer(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(secret.URL, "http://"))
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<main>Welcome <a href="/moved">moved</a> <a href="http://intranet.docs.example:%s/">intranet</a> <a href="/b">b</a></main>`, port)
		case "/moved":
			http.Redirect(w, r, secret.URL+"/", http.StatusFound)
		case "/b":
			fmt.Fprint(w, `<main>Public page B</main>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	// docs.example stands for a public site: allowed by name, as an
	// operator would allow an internal wiki; intranet.docs.example is not.
	g, err := netguard.New(netguard.Policy{Allow: []string{"docs.example"}, Resolver: names{"docs.example": "127.0.0.1", "intranet.docs.example": "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(DefaultTimeout)
	t.Cleanup(c.CloseIdleConnections)
	_, sitePort, _ := net.SplitHostPort(strings.TrimPrefix(site.URL, "http://"))
	start := "http://docs.example:" + sitePort + "/"

	w, _ := NewWebsite(WebsiteOptions{HTTPClient: c, Logger: quiet})
	docs, err := w.Read(t.Context(), Source{URL: start})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, d := range docs {
		texts = append(texts, d.Content)
	}
	if len(docs) != 2 || !strings.Contains(texts[0], "Welcome") || texts[1] != "Public page B" || hits.Load() != 0 {
		t.Errorf("crawled %q; the internal server answered %d requests", texts, hits.Load())
	}
	// The same redirect read by the HTML reader is an error, not a page.
	h, _ := NewHTML(HTMLOptions{HTTPClient: c})
	var got []*document.Document
	if got, err = h.Read(t.Context(), Source{URL: start + "moved"}); !errors.As(err, new(*netguard.BlockedError)) {
		t.Errorf("html reader through a redirect to loopback: %v %v", got, err)
	}
}
