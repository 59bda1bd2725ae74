// Package approval keeps agno's human approvals: a record of a tool call
// (or workflow step) a person must approve before a paused run goes on
// ("required"), or one kept after the person answered ("audit"). Records
// live in the control-plane database (agno_approvals); a pending record
// is resolved once, by whoever wins the compare-and-set.
package approval

import (
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
)

// Status is an approval's state.
type Status string

// Statuses, as agno names them. Only pending moves, and only once.
const (
	StatusPending   Status = "pending"
	StatusApproved  Status = "approved"
	StatusRejected  Status = "rejected"
	StatusExpired   Status = "expired"
	StatusCancelled Status = "cancelled"
)

// Valid reports a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusApproved, StatusRejected, StatusExpired, StatusCancelled:
		return true
	}
	return false
}

// Type is agno's approval_type.
type Type string

// Approval types: Required blocks the paused run until resolved; Audit
// records the human's answer after the fact.
const (
	TypeRequired Type = "required"
	TypeAudit    Type = "audit"
)

// ParseType checks an approval type written by a user.
func ParseType(s string) (Type, error) {
	switch Type(s) {
	case TypeRequired, TypeAudit:
		return Type(s), nil
	}
	return "", fmt.Errorf("invalid approval type %q: use \"required\" or \"audit\"", s)
}

// Source types.
const (
	SourceAgent    = "agent"
	SourceTeam     = "team"
	SourceWorkflow = "workflow"
)

// Approval is one record, with agno's fields. Empty strings are stored
// (and answered) as null; times are epoch seconds.
type Approval struct {
	ID           string
	RunID        string
	SessionID    string
	Status       Status
	SourceType   string
	ApprovalType Type
	// PauseType is confirmation, user_input, external_execution (or a
	// workflow step's kind).
	PauseType string
	ToolName  string
	ToolArgs  map[string]any
	ExpiresAt *int64

	AgentID       string
	TeamID        string
	WorkflowID    string
	UserID        string
	ScheduleID    string
	ScheduleRunID string
	SourceName    string

	// Requirements are the paused run's requirements as agno serialises
	// them (a JSON list of objects); Context holds display hints
	// (tool_names, source_name).
	Requirements   json.RawMessage
	Context        map[string]any
	ResolutionData map[string]any
	ResolvedBy     string
	ResolvedAt     *int64
	CreatedAt      int64
	UpdatedAt      *int64
	// RunStatus mirrors the run's status (PAUSED, RUNNING, COMPLETED, …);
	// RunVersion is the run row's version it was read at (not in agno's
	// API: it orders late readings).
	RunStatus  string
	RunVersion int64
}

// Errors of the store.
var (
	ErrNotFound = errors.New("approval: not found")
	// ErrNotPending is wrapped by *ConflictError.
	ErrNotPending = errors.New("approval: not pending")
)

// ConflictError is a resolve of an approval that is no longer pending;
// Status is its current status.
type ConflictError struct {
	ID     string
	Status Status
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("approval %s is already '%s' and cannot be resolved", e.ID, e.Status)
}

func (e *ConflictError) Unwrap() error { return ErrNotPending }

// DerivedID is a stable UUID-shaped id made from parts, so that replicas
// recording the same fact (an audit of one tool call) write one row.
func DerivedID(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = (b[6] & 0x0f) | 0x50 // version 5
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
