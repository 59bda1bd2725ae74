// Package httptransport builds the HTTP transport model clients use.
package httptransport

import (
	"net"
	"net/http"
	"time"
)

// MaxIdlePerHost is how many idle connections to one provider host are
// kept. net/http keeps 2, so under concurrent runs nearly every request
// would dial (and leave a TIME_WAIT socket behind).
const MaxIdlePerHost = 256

// New returns a transport like http.DefaultTransport with a pool sized for
// many concurrent runs against one host. responseHeaderTimeout bounds the
// wait for the provider to start answering; streams may then run long.
func New(responseHeaderTimeout time.Duration) *http.Transport {
	var t *http.Transport
	if base, ok := http.DefaultTransport.(*http.Transport); ok {
		t = base.Clone()
	} else {
		t = &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2: true, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second}
	}
	t.MaxIdleConns = max(t.MaxIdleConns, MaxIdlePerHost)
	t.MaxIdleConnsPerHost = MaxIdlePerHost
	t.ResponseHeaderTimeout = responseHeaderTimeout
	return t
}
