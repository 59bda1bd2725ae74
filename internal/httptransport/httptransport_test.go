package httptransport

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Concurrent requests to one host reuse their connections: a second
// burst of the same size dials nothing new.
func TestConcurrentRequestsReuseConnections(t *testing.T) {
	var dials atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(5 * time.Millisecond)
		_, _ = io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	tr := New(time.Minute)
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	burst := func() {
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	burst()
	first := dials.Load()
	burst()
	if again := dials.Load() - first; again != 0 {
		t.Fatalf("second burst dialled %d new connections (first: %d); idle connections were dropped", again, first)
	}
	if tr.ResponseHeaderTimeout != time.Minute {
		t.Fatalf("ResponseHeaderTimeout %v", tr.ResponseHeaderTimeout)
	}
}
