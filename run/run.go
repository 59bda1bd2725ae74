// Package run is the shared run vocabulary of agents, teams and workflows:
// statuses, events, tool executions, human-in-the-loop requirements,
// metrics, the per-run context handed to tools, and the run output.
//
// JSON field names follow agno v2.6.13 exactly, so stored runs, SSE
// streams and API responses read the same to agno clients.
package run

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// Status is the state of a run.
type Status string

// Run statuses, as agno spells them.
const (
	StatusPending   Status = "PENDING"
	StatusRunning   Status = "RUNNING"
	StatusCompleted Status = "COMPLETED"
	StatusPaused    Status = "PAUSED"
	StatusCancelled Status = "CANCELLED"
	StatusError     Status = "ERROR"
)

// Terminal reports whether no further work happens on a run in this status
// without a continue.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusCancelled, StatusError, StatusPaused:
		return true
	}
	return false
}

// NewID returns an RFC 9562 version 7 UUID string: the time in
// milliseconds, then 74 random bits. Ids made later sort later, so the
// indexes keyed by run, session and memory id take them at their end (a
// few hot pages) instead of one random page each (SQLite writes every
// dirtied page to its WAL at commit; Postgres logs a full page image on
// the first change of a page after a checkpoint). agno's ids are version
// 4; both are UUID strings to a client.
//
// Not uuid.NewV7: it reads through an io.Reader, which moves the 16 bytes
// to the heap, 2 allocations per id instead of 1 (64 vs 48 B). A run makes
// 4 or 5 ids: with it BenchmarkRun in package agent takes 52 allocs, not
// 48, and BenchmarkFreshRun 55, not 50. Filling a uuid.UUID from
// crypto/rand keeps one allocation, the string.
func NewID() string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[:8], uint64(time.Now().UnixMilli())<<16)
	_, _ = rand.Read(u[6:]) // never fails, per crypto/rand
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u.String()
}

// Now is the epoch-seconds clock agno stamps on runs and events.
func Now() int64 { return time.Now().Unix() }
