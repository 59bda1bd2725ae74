// Package storage defines how sessions, runs, run events and user memories
// are kept. Backends live in subpackages (memory, sqlite, postgres) and all
// pass the conformance suite in storage/storetest.
//
// A run is its own row and its events are rows keyed by (run_id, seq):
// nothing rewrites a whole session per turn. Session updates go through
// UpdateSession, which applies a change under optimistic versioning so
// concurrent runs in one session lose nothing.
package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agno-go/agno/run"
)

// Errors every backend returns (wrapped) for these conditions.
var (
	ErrNotFound = errors.New("storage: not found")
	// ErrConflict is returned when an optimistic update lost a race too
	// many times, or a create found the key taken.
	ErrConflict = errors.New("storage: conflict")
	ErrClosed   = errors.New("storage: closed")
)

// SessionType is agent, team or workflow.
type SessionType string

// Session types.
const (
	SessionAgent    SessionType = "agent"
	SessionTeam     SessionType = "team"
	SessionWorkflow SessionType = "workflow"
)

// Valid reports a known session type.
func (t SessionType) Valid() bool {
	return t == SessionAgent || t == SessionTeam || t == SessionWorkflow
}

// Session is one conversation (agno's AgentSession / TeamSession /
// WorkflowSession, without the runs, which are rows of their own).
type Session struct {
	SessionID    string         `json:"session_id"`
	SessionType  SessionType    `json:"session_type"`
	AgentID      string         `json:"agent_id,omitempty"`
	TeamID       string         `json:"team_id,omitempty"`
	WorkflowID   string         `json:"workflow_id,omitempty"`
	UserID       string         `json:"user_id,omitempty"`
	SessionName  string         `json:"session_name,omitempty"`
	SessionState map[string]any `json:"session_state,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	Summary      *Summary       `json:"summary,omitempty"`
	// Metrics are the session's accumulated run metrics.
	Metrics *run.Metrics `json:"metrics,omitempty"`
	// Data is agno's agent_data / team_data / workflow_data (name, model…).
	Data      map[string]any `json:"data,omitempty"`
	CreatedAt int64          `json:"created_at"`
	UpdatedAt int64          `json:"updated_at"`
	// Version increases with every write; UpdateSession uses it.
	Version int64 `json:"-"`
}

// ComponentID is the id of the agent, team or workflow owning the session.
func (s *Session) ComponentID() string {
	switch s.SessionType {
	case SessionTeam:
		return s.TeamID
	case SessionWorkflow:
		return s.WorkflowID
	}
	return s.AgentID
}

// SetComponentID makes id the session's owner as ComponentID reads it
// (the agent, team or workflow id its type names); the other two clear.
func (s *Session) SetComponentID(id string) {
	s.AgentID, s.TeamID, s.WorkflowID = "", "", ""
	switch s.SessionType {
	case SessionTeam:
		s.TeamID = id
	case SessionWorkflow:
		s.WorkflowID = id
	default:
		s.AgentID = id
	}
}

// Summary is a session summary (agno's SessionSummary).
type Summary struct {
	Summary   string   `json:"summary"`
	Topics    []string `json:"topics,omitempty"`
	UpdatedAt string   `json:"updated_at,omitempty"`
}

// Run is one stored run: typed columns for querying, the full run document
// in Data (RunOutput / TeamRunOutput / WorkflowRunOutput JSON).
type Run struct {
	RunID       string      `json:"run_id"`
	SessionID   string      `json:"session_id"`
	ParentRunID string      `json:"parent_run_id,omitempty"`
	SessionType SessionType `json:"session_type"`
	// ComponentID is the agent, team or workflow id that ran.
	ComponentID string          `json:"component_id"`
	UserID      string          `json:"user_id,omitempty"`
	Status      run.Status      `json:"status"`
	CreatedAt   int64           `json:"created_at"`
	UpdatedAt   int64           `json:"updated_at"`
	Data        json.RawMessage `json:"data"`

	// Owner is the instance (AgentOS process) running the run while it is
	// PENDING or RUNNING; only it writes the run then.
	Owner string `json:"owner,omitempty"`
	// Listed: the run shows in listings while in flight (background runs
	// and continuations; a foreground run shows once it settles, as agno
	// stores it only then).
	Listed bool `json:"listed,omitempty"`
	// CancelRequested is a cancel waiting for the owner to see it.
	CancelRequested bool `json:"cancel_requested,omitempty"`
	// Version grows with every write of the row; claims compare it.
	Version int64 `json:"version"`
}

// InFlight reports a run that is PENDING or RUNNING.
func (r *Run) InFlight() bool { return r.Status == run.StatusPending || r.Status == run.StatusRunning }

// RunWrite is one write of a run's progress (Store.SaveRun): everything
// in it commits together.
type RunWrite struct {
	// Run, when set, replaces the row's status, user and document. While
	// the stored run is in flight only its owner may write it.
	Run *Run
	// RunID names the run Events belong to when Run is nil.
	RunID string
	// Owner, with Run nil, writes the events only while the run is in
	// flight and owned by Owner: ErrConflict otherwise, nothing written
	// (an instance that lost its lease cannot add to a run taken over).
	Owner string
	// Events are stored with the Seq they carry (the run's event_index).
	Events []Event
	// Children are runs the run started (team members): created, or
	// updated when they exist under this run.
	Children []*Run
	// SessionID and Session apply a change to the session inside the same
	// transaction (nil: none); the session must exist.
	SessionID string
	Session   func(*Session) error
	// Create: Run is not stored yet and this write creates it, as
	// StartRun(ctx, StartSession, Run, false) would, before the rest. A
	// run that ends before its start was written is stored in one write.
	// ErrConflict when its id is taken; nothing is written then.
	Create       bool
	StartSession *Session
	// SessionNew hints that StartSession did not exist when the run began:
	// the store tries inserting it first instead of reading it first.
	// Either way the outcome is the same.
	SessionNew bool
}

// Claim moves a run from one status to another atomically
// (Store.ClaimRun).
type Claim struct {
	RunID    string
	From, To run.Status
	// Owner becomes the run's owner ("" clears it).
	Owner string
	// ExpectOwner, when set, requires the run to be owned by it.
	ExpectOwner string
	// Version, when not negative, requires the row to be at it: the claim
	// is of the run as the claimer read it.
	Version int64
	// Listed sets the run's listing flag.
	Listed bool
	// Data, when set, replaces the run's document in the same write (a
	// recovery stores the ERROR and its reason at once).
	Data json.RawMessage
}

// Event is one stored event of a run stream. Seq starts at 0 and is
// contiguous per run.
type Event struct {
	RunID string          `json:"run_id"`
	Seq   int64           `json:"seq"`
	Data  json.RawMessage `json:"data"`
}

// BlobChunkSize is how much of a blob one stored row holds.
const BlobChunkSize = 1 << 20

// Memory is one user memory (agno's UserMemory).
type Memory struct {
	MemoryID  string   `json:"memory_id"`
	Memory    string   `json:"memory"`
	Topics    []string `json:"topics,omitempty"`
	UserID    string   `json:"user_id,omitempty"`
	AgentID   string   `json:"agent_id,omitempty"`
	TeamID    string   `json:"team_id,omitempty"`
	Input     string   `json:"input,omitempty"`
	Feedback  string   `json:"feedback,omitempty"`
	CreatedAt int64    `json:"created_at"`
	UpdatedAt int64    `json:"updated_at"`
}

// SortOrder is asc or desc.
type SortOrder string

// Sort orders.
const (
	Asc  SortOrder = "asc"
	Desc SortOrder = "desc"
)

// SessionQuery filters ListSessions. Zero values do not filter. Page is
// 1-based; Limit 0 means no limit.
type SessionQuery struct {
	SessionType SessionType
	ComponentID string
	UserID      string
	// NameContains matches session_name case-insensitively.
	NameContains string
	// CreatedAfter and CreatedBefore keep sessions created in that window
	// (epoch s, both inclusive; 0 leaves that side open).
	CreatedAfter  int64
	CreatedBefore int64
	SortBy        string // created_at (default), updated_at, session_name
	SortOrder     SortOrder
	Limit         int
	Page          int
}

// RunQuery filters ListRuns; results are in creation order (oldest first)
// unless Newest is set.
type RunQuery struct {
	SessionID string
	// SessionIDs keeps runs of any of these sessions (empty: no filter).
	SessionIDs  []string
	ComponentID string
	Status      []run.Status
	// TopLevel keeps only runs without a parent run.
	TopLevel bool
	// Owner keeps runs of one instance; ExcludeOwner leaves one's out.
	Owner, ExcludeOwner string
	// CancelRequested keeps runs with a pending cancel.
	CancelRequested bool
	// UpdatedAfter keeps runs written at or after this time (epoch s).
	UpdatedAfter int64
	// Settled leaves out in-flight runs that are not listed (foreground
	// runs until they end).
	Settled       bool
	ParentRunID   string
	CreatedAfter  int64
	CreatedBefore int64
	Newest        bool
	Limit         int
	// WithoutData leaves Run.Data out: the caller reads the rows' other
	// fields only (a poll of changes).
	WithoutData bool
}

// MemoryQuery filters ListMemories.
type MemoryQuery struct {
	UserID        string
	AgentID       string
	TeamID        string
	Topics        []string
	ContentSearch string
	SortBy        string // updated_at (default), created_at
	SortOrder     SortOrder
	Limit         int
	Page          int
}

// UserMemoryStats is one row of GET /user_memory_stats.
type UserMemoryStats struct {
	UserID              string `json:"user_id"`
	TotalMemories       int    `json:"total_memories"`
	LastMemoryUpdatedAt int64  `json:"last_memory_updated_at"`
}

// Store is a storage backend. Every method is safe for concurrent use.
type Store interface {
	// EnsureSession creates the session if no session has its id and
	// returns the stored one; created reports whether it was new.
	EnsureSession(ctx context.Context, s *Session) (stored *Session, created bool, err error)
	GetSession(ctx context.Context, sessionID string) (*Session, error)
	// UpdateSession reads the session, calls fn on a copy and writes it
	// back if nobody wrote in between, retrying fn otherwise. An error from
	// fn aborts and leaves the stored session untouched.
	UpdateSession(ctx context.Context, sessionID string, fn func(*Session) error) (*Session, error)
	ListSessions(ctx context.Context, q SessionQuery) (sessions []*Session, total int, err error)
	// DeleteSessions removes sessions with their runs, events and blobs.
	DeleteSessions(ctx context.Context, sessionIDs ...string) error

	// CreateRun inserts a new run. If any run has its id, it fails with
	// ErrConflict and the stored run is untouched: a new run is never an
	// upsert, so no caller can move a run to another session or mix its
	// events with another's.
	CreateRun(ctx context.Context, r *Run) error
	// UpdateRun writes a stored run's status, user, owner and document. A
	// run keeps its session, parent, session type and component: an r
	// naming others fails with ErrConflict, as does an r.Owner that is not
	// the owner of a run in flight; ErrNotFound when there is no run.
	UpdateRun(ctx context.Context, r *Run) error
	GetRun(ctx context.Context, runID string) (*Run, error)
	// StartRun creates a run — after ensuring its session, when sess is
	// not nil — in one write, and returns the stored session. With
	// pending, the run's row exists PENDING (a background run) and is
	// taken over instead: ErrConflict when it is not PENDING. A new run
	// whose id is taken fails with ErrConflict and writes nothing.
	StartRun(ctx context.Context, sess *Session, r *Run, pending bool) (*Session, error)
	// SaveRun commits one RunWrite. A run no longer owned by w.Run.Owner
	// fails with ErrConflict and nothing is written.
	SaveRun(ctx context.Context, w RunWrite) error
	// ClaimRun applies a Claim and returns the run after it: ErrConflict
	// when the run is not in c.From (someone else claimed it) or not at
	// c.Version / c.ExpectOwner, ErrNotFound when there is no such run.
	// Only status, owner and the listing flag change.
	ClaimRun(ctx context.Context, c Claim) (*Run, error)
	// RequestCancel flags a run for cancellation and returns it;
	// ErrNotFound when there is no such run.
	RequestCancel(ctx context.Context, runID string) (*Run, error)

	// Heartbeat records that an instance is alive now; Instances returns
	// every instance's last heartbeat (epoch s).
	Heartbeat(ctx context.Context, instanceID string) error
	Instances(ctx context.Context) (map[string]int64, error)
	ListRuns(ctx context.Context, q RunQuery) ([]*Run, error)

	// AppendEvents stores events after the run's last one; Seq values are
	// assigned by the store and returned.
	AppendEvents(ctx context.Context, runID string, events ...json.RawMessage) (firstSeq int64, err error)
	// ListEvents returns events with Seq > afterSeq (-1 for all).
	ListEvents(ctx context.Context, runID string, afterSeq int64) ([]Event, error)

	// PutBlob stores a file of a session outside the run rows (an upload),
	// read from r in chunks so it never sits whole in one row or in
	// memory; ErrConflict when the id is taken. DeleteSessions removes a
	// session's blobs.
	PutBlob(ctx context.Context, sessionID, blobID string, r io.Reader) (size int64, err error)
	// GetBlob reads a blob of a session; a blob of another session is
	// ErrNotFound.
	GetBlob(ctx context.Context, sessionID, blobID string) ([]byte, error)

	UpsertMemory(ctx context.Context, m *Memory) error
	GetMemory(ctx context.Context, memoryID string) (*Memory, error)
	ListMemories(ctx context.Context, q MemoryQuery) (memories []*Memory, total int, err error)
	DeleteMemories(ctx context.Context, memoryIDs ...string) error
	MemoryTopics(ctx context.Context, userID string) ([]string, error)
	MemoryStats(ctx context.Context, userID string, limit, page int) (stats []UserMemoryStats, total int, err error)

	Close() error
}

// InstanceReleaser is a Store that can end an instance's lease at once
// (a clean shutdown): its restart need not wait for the lease to lapse,
// and other instances recover what it left in flight without waiting.
type InstanceReleaser interface {
	ReleaseInstance(ctx context.Context, instanceID string) error
}

// Migrator is a Store whose schema is versioned in its database: Migrate
// applies the migrations this build knows that the database lacks (Open
// applied them already; another process sharing the database, or an
// operator's request, may ask again). A store without a schema (memory)
// is not one.
type Migrator interface {
	Migrate(ctx context.Context) error
}

// ValidateRun checks what CreateRun and UpdateRun need before touching
// the store.
func ValidateRun(r *Run) error {
	if r.RunID == "" {
		return errors.New("storage: run_id is empty: set Run.RunID")
	}
	if r.SessionID == "" {
		return fmt.Errorf("storage: run %q: session_id is empty: a run belongs to a session", r.RunID)
	}
	if len(r.Data) > 0 && !json.Valid(r.Data) {
		return fmt.Errorf("storage: run %q: data is not valid JSON", r.RunID)
	}
	return nil
}

// ValidateWrite checks a RunWrite before anything of it is written and
// returns the run id it is for.
func ValidateWrite(w RunWrite) (string, error) {
	runID := w.RunID
	if w.Run != nil {
		if err := ValidateRun(w.Run); err != nil {
			return "", err
		}
		runID = w.Run.RunID
	}
	if runID == "" {
		return "", fmt.Errorf("storage: SaveRun needs a Run or a RunID")
	}
	if w.Create && w.Run == nil {
		return "", fmt.Errorf("storage: SaveRun of run %q creates it but carries no Run", runID)
	}
	if w.StartSession != nil && w.StartSession.SessionID == "" {
		return "", fmt.Errorf("storage: SaveRun of run %q starts a session without a session_id", runID)
	}
	for _, e := range w.Events {
		if !json.Valid(e.Data) {
			return "", fmt.Errorf("storage: event %d of run %q is not valid JSON", e.Seq, runID)
		}
	}
	for _, c := range w.Children {
		if err := ValidateRun(c); err != nil {
			return "", err
		}
	}
	if w.Session != nil && w.SessionID == "" {
		return "", fmt.Errorf("storage: SaveRun of run %q changes a session but names none", runID)
	}
	return runID, nil
}

// CheckOwner refuses a write of a run by an instance that does not own
// it: an in-flight run is written by its owner only, and an instance's
// late write of a run taken from it (recovered by a replica, or claimed
// again) is refused even once the run settled. A writer without an
// owner (a library engine, a recovery) may write a settled run.
func CheckOwner(stored, r *Run) error {
	if stored.Owner != r.Owner && (stored.InFlight() || r.Owner != "") {
		return fmt.Errorf("run %q is owned by %q, not %q: %w", r.RunID, stored.Owner, r.Owner, ErrConflict)
	}
	return nil
}

// CheckClaim reports whether a claim applies to the stored run, and why
// not.
func CheckClaim(stored *Run, c Claim) error {
	switch {
	case stored.Status != c.From:
		return fmt.Errorf("run %q is %s, not %s: %w", c.RunID, stored.Status, c.From, ErrConflict)
	case c.ExpectOwner != "" && stored.Owner != c.ExpectOwner:
		return fmt.Errorf("run %q is owned by %q, not %q: %w", c.RunID, stored.Owner, c.ExpectOwner, ErrConflict)
	case c.Version >= 0 && stored.Version != c.Version:
		return fmt.Errorf("run %q changed since it was read (version %d, not %d): %w", c.RunID, stored.Version, c.Version, ErrConflict)
	}
	return nil
}

// SameRunPlace checks that an update keeps the stored run where it is.
func SameRunPlace(stored, r *Run) error {
	if stored.SessionID != r.SessionID || stored.ParentRunID != r.ParentRunID ||
		stored.SessionType != r.SessionType || stored.ComponentID != r.ComponentID {
		return fmt.Errorf("run %q belongs to session %q (%s %q, parent %q); an update cannot move it: %w",
			r.RunID, stored.SessionID, stored.SessionType, stored.ComponentID, stored.ParentRunID, ErrConflict)
	}
	return nil
}

// Clone deep-copies a session.
func (s *Session) Clone() *Session {
	if s == nil {
		return nil
	}
	c := *s
	c.SessionState = run.CloneMap(s.SessionState)
	c.Metadata = run.CloneMap(s.Metadata)
	c.Data = run.CloneMap(s.Data)
	if s.Summary != nil {
		sum := *s.Summary
		sum.Topics = append([]string(nil), s.Summary.Topics...)
		c.Summary = &sum
	}
	if s.Metrics != nil {
		m := *s.Metrics
		if s.Metrics.Details != nil {
			m.Details = make(map[string][]run.ModelMetrics, len(s.Metrics.Details))
			for k, v := range s.Metrics.Details {
				m.Details[k] = append([]run.ModelMetrics(nil), v...)
			}
		}
		c.Metrics = &m
	}
	return &c
}
