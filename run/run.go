// Package run is the shared run vocabulary of agents, teams and workflows:
// statuses, events, tool executions, human-in-the-loop requirements,
// metrics, the per-run context handed to tools, and the run output.
//
// JSON field names follow agno v2.6.13 exactly, so stored runs, SSE
// streams and API responses read the same to agno clients.
package run

import (
	"crypto/rand"
	"encoding/hex"
	"time"
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

// NewID returns a random RFC 4122 version 4 UUID string.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// Now is the epoch-seconds clock agno stamps on runs and events.
func Now() int64 { return time.Now().Unix() }
