package agentos

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// accessEntry is what the access log learns of a request as it is
// served: handlers that make or name a run put its id here.
type accessEntry struct{ runID string }

type accessKey struct{}

// noteRunID tells the access log which run a request is about.
func noteRunID(ctx context.Context, runID string) {
	if e, ok := ctx.Value(accessKey{}).(*accessEntry); ok {
		e.runID = runID
	}
}

// accessLog writes one line per request once it is answered: method,
// path, status, bytes, duration and the run it made or named.
func (o *OS) accessLog(next http.Handler) http.Handler {
	if !o.cfg.AccessLog {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		entry := &accessEntry{runID: runIDInPath(r.URL.Path)}
		rec := &accessRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), accessKey{}, entry)))
		attrs := []slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.code()), slog.Int64("bytes", rec.bytes),
			slog.Int64("duration_ms", time.Since(start).Milliseconds()), slog.String("remote", r.RemoteAddr)}
		if entry.runID != "" {
			attrs = append(attrs, slog.String("run_id", entry.runID))
		}
		o.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// runIDInPath is the {run_id} of agno's .../runs/{run_id}[/...] routes.
func runIDInPath(p string) string {
	_, rest, ok := strings.Cut(p, "/runs/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// accessRecorder notes the status and size of an answer; Unwrap keeps
// flushing (SSE) and hijacking (WebSocket) working through it.
type accessRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (a *accessRecorder) WriteHeader(code int) {
	if a.status == 0 {
		a.status = code
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *accessRecorder) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	n, err := a.ResponseWriter.Write(b)
	a.bytes += int64(n)
	return n, err
}

func (a *accessRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// code is the status sent; 101 for a hijacked WebSocket is never seen
// here, so a request that wrote nothing reads as 200 as net/http sends.
func (a *accessRecorder) code() int {
	if a.status == 0 {
		return http.StatusOK
	}
	return a.status
}
