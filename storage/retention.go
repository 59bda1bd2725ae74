package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/agno-go/agno/run"
)

// RetentionPolicy says what a Pruner deletes ([storage.retention]). A
// zero field is off; the zero policy deletes nothing.
//
// A run is pruned as a whole: a top-level run (no parent) with the
// member runs it started (team members, workflow steps, at any depth)
// and the events of all of them, and only when every one of them has
// finished (COMPLETED, ERROR or CANCELLED). A run PENDING, RUNNING or
// PAUSED is never deleted, nor is any run of its tree.
type RetentionPolicy struct {
	// MaxAge deletes the finished runs last written longer ago than
	// MaxAge, and the sessions not updated for that long that have no
	// unfinished run and no run written since, with all their runs,
	// events and uploaded files.
	MaxAge time.Duration
	// MaxRuns keeps the MaxRuns newest top-level runs of the whole store
	// (by creation, every session and component together) and deletes the
	// finished ones older than those. Sessions are left as they are.
	MaxRuns int
}

// Enabled reports a policy that deletes something.
func (p RetentionPolicy) Enabled() bool { return p.MaxAge > 0 || p.MaxRuns > 0 }

// Validate refuses a negative field.
func (p RetentionPolicy) Validate() error {
	switch {
	case p.MaxAge < 0:
		return fmt.Errorf("storage: retention MaxAge %s is negative: use a positive age, or 0 to keep runs and sessions whatever their age", p.MaxAge)
	case p.MaxRuns < 0:
		return fmt.Errorf("storage: retention MaxRuns %d is negative: use a positive count, or 0 to keep every run", p.MaxRuns)
	}
	return nil
}

// Cutoff is the epoch second before which a row is older than MaxAge,
// measured from now (0 when MaxAge is off).
func (p RetentionPolicy) Cutoff(now time.Time) int64 {
	if p.MaxAge <= 0 {
		return 0
	}
	return now.Add(-p.MaxAge).Unix()
}

// PruneResult counts what one Prune deleted.
type PruneResult struct {
	Sessions int64 `json:"sessions"`
	Runs     int64 `json:"runs"`
	Events   int64 `json:"events"`
}

// Add sums two results.
func (r PruneResult) Add(o PruneResult) PruneResult {
	return PruneResult{Sessions: r.Sessions + o.Sessions, Runs: r.Runs + o.Runs, Events: r.Events + o.Events}
}

// Zero reports a prune that deleted nothing.
func (r PruneResult) Zero() bool { return r == PruneResult{} }

// Pruner is a Store that can delete what a RetentionPolicy no longer
// keeps. Prune works in small transactions (other writers go on between
// them), so a prune interrupted by ctx has deleted whole runs and whole
// sessions only, and a later one goes on where it stopped. Several
// processes may prune one database at once.
type Pruner interface {
	Prune(ctx context.Context, p RetentionPolicy) (PruneResult, error)
}

// UnfinishedStatuses are the statuses retention never deletes: a run
// that may still write (PENDING, RUNNING) or be continued (PAUSED).
func UnfinishedStatuses() []run.Status {
	return []run.Status{run.StatusPending, run.StatusRunning, run.StatusPaused}
}

// Unfinished reports a run status retention keeps whatever its age.
func Unfinished(s run.Status) bool {
	return s == run.StatusPending || s == run.StatusRunning || s == run.StatusPaused
}
