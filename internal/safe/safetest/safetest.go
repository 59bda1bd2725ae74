// Package safetest helps tests see the panics a server recovered: each is
// a bug, even though the process lived.
package safetest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// PanicLog is a slog.Handler that keeps the panics reported by package
// safe and drops every other record.
type PanicLog struct {
	mu     sync.Mutex
	panics []string
}

// Logger returns a logger writing to l.
func (l *PanicLog) Logger() *slog.Logger { return slog.New(l) }

// Enabled implements slog.Handler.
func (l *PanicLog) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs implements slog.Handler.
func (l *PanicLog) WithAttrs([]slog.Attr) slog.Handler { return l }

// WithGroup implements slog.Handler.
func (l *PanicLog) WithGroup(string) slog.Handler { return l }

// Handle implements slog.Handler.
func (l *PanicLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "recovered from a panic" {
		return nil
	}
	var b strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(a.Key + "=" + a.Value.String() + " ")
		return true
	})
	l.mu.Lock()
	l.panics = append(l.panics, b.String())
	l.mu.Unlock()
	return nil
}

// Check fails t if a panic was recovered, naming the input that caused it.
func (l *PanicLog) Check(t testing.TB, input any) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.panics) > 0 {
		t.Fatalf("input %q made the server panic: %s", input, l.panics[0])
	}
}
