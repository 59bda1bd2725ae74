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
	const width = 32
	var dials atomic.Int32
	// Each burst's requests are held until all of them are in flight, so
	// every burst needs width connections at once: the first dials them
	// all, the second must find them idle.
	var mu sync.Mutex
	arrived := 0
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		arrived++
		gate := release
		if arrived == width {
			arrived = 0
			release = make(chan struct{})
			close(gate)
		}
		mu.Unlock()
		select {
		case <-gate:
		case <-time.After(10 * time.Second):
		}
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
		for range width {
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
	if first != width {
		t.Fatalf("first burst dialled %d connections, want %d", first, width)
	}
	burst()
	if again := dials.Load() - first; again != 0 {
		t.Fatalf("second burst dialled %d new connections (first: %d); idle connections were dropped", again, first)
	}
	if tr.ResponseHeaderTimeout != time.Minute {
		t.Fatalf("ResponseHeaderTimeout %v", tr.ResponseHeaderTimeout)
	}
}
