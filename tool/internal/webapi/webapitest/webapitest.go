// Package webapitest gives the web toolkits' tests the guarded client a
// host builds, allowing the loopback address their fake services listen
// on.
package webapitest

import (
	"net/http"
	"testing"

	"github.com/agno-go/agno/netguard"
)

// Client is a netguard client that lets 127.0.0.1 through, as
// [outbound] allow = ["127.0.0.1/32"] does.
func Client(t testing.TB) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1/32"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}
