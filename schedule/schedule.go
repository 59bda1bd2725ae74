// Package schedule is agno's scheduler: cron schedules that call an
// endpoint of AgentOS (an agent, team or workflow run, or any route), kept
// in the control-plane database (agno_schedules, agno_schedule_runs), and
// a poller that claims the due ones so that N replicas on one database
// fire each due time once.
//
// Claiming is a lease on the schedule's row (locked_by, locked_at), taken
// by one conditional UPDATE that also moves next_run_at past now; see
// Store.ClaimDue. River (riverqueue) was the alternative: its SQLite
// driver is a separate module from its Postgres one, it adds its own job,
// leader and queue tables and migrations beside ours, and it brings a
// job runtime and its dependencies, all to do what one conditional UPDATE
// does here. The lease row works the same on SQLite and Postgres with one
// SQL text, in the tables agno defines.
package schedule

import (
	"encoding/json"
	"errors"
	"regexp"
)

// Schedule is a cron schedule (agno's Schedule).
type Schedule struct {
	ID          string
	Name        string
	Description *string
	// Method and Endpoint are the request fired, a path of AgentOS
	// ("/agents/researcher/runs"); Payload its body (the form fields of a
	// run).
	Method   string
	Endpoint string
	Payload  map[string]any
	CronExpr string
	Timezone string
	// TimeoutSeconds bounds one attempt; a failed attempt is retried
	// MaxRetries times, RetryDelaySeconds apart.
	TimeoutSeconds    int
	MaxRetries        int
	RetryDelaySeconds int
	Enabled           bool
	// NextRunAt is the next due time (epoch seconds); nil when disabled
	// for good.
	NextRunAt *int64
	// LockedBy and LockedAt are the lease of the instance firing it.
	LockedBy  *string
	LockedAt  *int64
	CreatedAt int64
	UpdatedAt *int64
	// CreatedBy is the user that created the schedule ("" when no user
	// was known): its owner, whose listings show it under user isolation.
	CreatedBy string
	// Principal is who the schedule fires as: the caller that created or
	// last changed it, encoded by the server (AgentOS stores the user and
	// the scopes it held). The store keeps it as given.
	Principal json.RawMessage
}

// Run is one attempt of a schedule's firing (agno's ScheduleRun).
type Run struct {
	ID           string
	ScheduleID   string
	Attempt      int
	TriggeredAt  *int64
	CompletedAt  *int64
	Status       string
	StatusCode   *int
	RunID        *string
	SessionID    *string
	Error        *string
	Input        map[string]any
	Output       map[string]any
	Requirements []map[string]any
	CreatedAt    int64
}

// Run statuses, as agno stores them.
const (
	StatusRunning   = "running"
	StatusSuccess   = "success"
	StatusFailed    = "failed"
	StatusPaused    = "paused"
	StatusCancelled = "cancelled"
)

// Defaults of a new schedule (agno's ScheduleCreate).
const (
	DefaultMethod            = "POST"
	DefaultTimezone          = "UTC"
	DefaultTimeoutSeconds    = 3600
	DefaultMaxRetries        = 0
	DefaultRetryDelaySeconds = 60
)

// RunEndpoint matches an agent, team or workflow run endpoint and captures
// the type and id (agno's RUN_ENDPOINT_RE; \z so a trailing newline does
// not pass).
var RunEndpoint = regexp.MustCompile(`^/(agents|teams|workflows)/([^/]+)/runs/?\z`)

var (
	// ErrNotFound: no schedule (or run) with that id.
	ErrNotFound = errors.New("schedule: not found")
	// ErrNameTaken: another schedule has the name.
	ErrNameTaken = errors.New("schedule: name taken")
)
