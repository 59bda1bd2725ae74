// Package webfetchtest builds the guarded clients the web fetch
// toolkits' tests use.
package webfetchtest

import (
	"net/http"
	"testing"

	"github.com/agno-go/agno/netguard"
)

// Client is a guarded client, as a host builds from [outbound], that
// lets the listed internal destinations through ("127.0.0.1" for an
// httptest server); with none it refuses every internal address.
func Client(t testing.TB, allow ...string) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}
