// Package safe contains panics in code that runs user logic (tools,
// hooks, models, workflow steps) or handles outside input (WebSocket and
// socket handlers, background runs). A panic becomes a *PanicError the
// caller reports like any failure — a run ends ERROR — its value and
// stack go to the log, and the process lives. Clients see only the
// error's text, which never carries the panic value.
package safe

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// PanicError is a recovered panic. Value and Stack are for the log.
type PanicError struct {
	// Where names what panicked ("tool get_weather", "workflow step x").
	Where string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error in %s (details are in the server log)", e.Where)
}

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error { err, _ := e.Value.(error); return err }

// FromPanic logs the value recover() returned and wraps it; for a
// deferred func that must itself call recover().
func FromPanic(log *slog.Logger, where string, p any) *PanicError {
	if pe, ok := p.(*PanicError); ok { // re-raised from below: logged already
		return pe
	}
	pe := &PanicError{Where: where, Value: p, Stack: debug.Stack()}
	if log == nil {
		log = slog.Default()
	}
	log.Error("recovered from a panic", "where", where, "panic", fmt.Sprint(p), "stack", string(pe.Stack))
	return pe
}

// Call runs fn and returns its error, or a *PanicError if it panicked.
func Call(log *slog.Logger, where string, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = FromPanic(log, where, p)
		}
	}()
	return fn()
}

// Go runs fn on a new goroutine. A panic is logged and handed to
// onPanic (nil: only logged); it never takes the process down.
func Go(log *slog.Logger, where string, fn func(), onPanic func(*PanicError)) {
	go func() {
		defer Recover(log, where, onPanic)
		fn()
	}()
}

// Recover is deferred directly (defer safe.Recover(...)) at the top of a
// goroutine or handler: it stops a panic there, logs it and hands it to
// onPanic (may be nil).
func Recover(log *slog.Logger, where string, onPanic func(*PanicError)) {
	p := recover()
	if p == nil {
		return
	}
	pe := FromPanic(log, where, p)
	if onPanic != nil {
		onPanic(pe)
	}
}
