package storage

import (
	"context"
	"errors"
)

// Errors a backend wraps when the database itself is the problem, so
// callers (a readiness check, an HTTP answer) can tell an outage from a
// bad request.
var (
	// ErrUnavailable: the database did not answer within the call's
	// deadline, or cannot be reached (a backend then fails calls at once
	// between connection attempts instead of dialling for each).
	ErrUnavailable = errors.New("storage: database unavailable")
	// ErrUnwritable: the database answers reads but cannot keep writes
	// (its file is on a read-only or full filesystem).
	ErrUnwritable = errors.New("storage: database cannot be written")
)

// Pinger is a Store that can check, cheaply and within ctx, that its
// database answers: nil when it does, else why not.
type Pinger interface {
	Ping(ctx context.Context) error
}

// readinessProbe is a session id no caller uses: reading it is a round
// trip to the database that finds nothing.
const readinessProbe = "agno-readiness-probe"

// Ping checks that st answers: its own Ping when it has one, else a read
// of a session that does not exist (ErrNotFound is an answer).
func Ping(ctx context.Context, st Store) error {
	if p, ok := st.(Pinger); ok {
		return p.Ping(ctx)
	}
	_, err := st.GetSession(ctx, readinessProbe)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}
