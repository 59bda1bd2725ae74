package agentos

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// Connection timeouts (Config.IdleTimeout, BodyReadTimeout,
// WSAuthTimeout) and their defaults.
const (
	// DefaultIdleTimeout closes keep-alive connections idle for 2
	// minutes. agno's uvicorn closes them after 5 s; AgentOS keeps them
	// longer because it is often run behind a load balancer or reverse
	// proxy that reuses its upstream connections (AWS ALB and nginx
	// upstream keep-alive idle for 60 s by default): a server that closes
	// an idle connection before the proxy does races the proxy's next
	// request on it, which the proxy then answers 502. Without any
	// timeout (as before) idle connections were never closed.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultBodyReadTimeout cuts a request body that sends nothing for
	// 60 s (a stalled or slowloris upload).
	DefaultBodyReadTimeout = 60 * time.Second
	// DefaultWSAuthTimeout closes a WebSocket that has not authenticated
	// (or, without auth, sent a first message) 10 s after it opened.
	DefaultWSAuthTimeout = 10 * time.Second
)

// setTimeouts checks the connection timeouts and fills their defaults.
func (c *Config) setTimeouts() error {
	for _, t := range []struct {
		name, key string
		d         *time.Duration
		def       time.Duration
	}{
		{"IdleTimeout", " ([agentos] idle_timeout_seconds)", &c.IdleTimeout, DefaultIdleTimeout},
		{"BodyReadTimeout", "", &c.BodyReadTimeout, DefaultBodyReadTimeout},
		{"WSAuthTimeout", "", &c.WSAuthTimeout, DefaultWSAuthTimeout},
	} {
		if *t.d < 0 {
			return fmt.Errorf("agentos: %s%s = %s is negative: give a positive duration, or 0 for the default %s", t.name, t.key, *t.d, t.def)
		}
		if *t.d == 0 {
			*t.d = t.def
		}
	}
	return nil
}

// bodyDeadline gives each request body a read deadline of idle from each
// read: a body that stalls that long fails its read (the handler answers
// and the connection is closed), while one that keeps sending is read to
// its end however long it takes. Once the body is read the deadline is
// cleared (net/http clears it too when it starts watching the connection
// for a hang-up), so a long run or SSE stream answering it is not cut.
func bodyDeadline(h http.Handler, idle time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && idle > 0 {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w), idle: idle}
		}
		h.ServeHTTP(w, r)
	})
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		// Read whole: the handler answers for as long as it takes.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		// Stalled (or broken): the deadline stays passed, so the server
		// does not wait for the rest of the body after the answer either;
		// it closes the connection.
		b.done = true
		_ = b.rc.SetReadDeadline(time.Now())
	}
	return n, err
}
