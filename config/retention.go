package config

import (
	"time"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/storage"
)

// RetentionConfig is [storage.retention]: old runs, their events and idle
// sessions deleted in the background. Off unless max_age_days or
// max_runs is set. A run not finished (PENDING, RUNNING, PAUSED) is
// never deleted.
type RetentionConfig struct {
	// MaxAgeDays deletes finished runs (with their member runs and
	// events) last written more than that many days ago, and sessions
	// not updated for that long that have no unfinished run and no newer
	// run, with their runs, events and files.
	MaxAgeDays int `toml:"max_age_days"`
	// MaxRuns keeps the newest MaxRuns top-level runs of the whole
	// database (every session and component counted together) and
	// deletes the finished ones older than those; sessions stay.
	MaxRuns int `toml:"max_runs"`
	// IntervalMinutes is how often the prune runs (default 60); the
	// first runs at start.
	IntervalMinutes int `toml:"interval_minutes"`
}

// DefaultRetentionIntervalMinutes is interval_minutes' default.
const DefaultRetentionIntervalMinutes = 60

// Bounds of the retention keys (a larger value would overflow a
// duration, and means "keep everything" anyway).
const (
	maxRetentionDays     = 36500  // 100 years
	maxRetentionInterval = 525600 // a year of minutes
)

// Enabled reports a retention policy that deletes something.
func (r RetentionConfig) Enabled() bool { return r.MaxAgeDays > 0 || r.MaxRuns > 0 }

// Policy is the storage policy of the table.
func (r RetentionConfig) Policy() storage.RetentionPolicy {
	return storage.RetentionPolicy{MaxAge: time.Duration(r.MaxAgeDays) * 24 * time.Hour, MaxRuns: r.MaxRuns}
}

// Interval is how often to prune.
func (r RetentionConfig) Interval() time.Duration {
	if r.IntervalMinutes <= 0 {
		return DefaultRetentionIntervalMinutes * time.Minute
	}
	return time.Duration(r.IntervalMinutes) * time.Minute
}

// validateRetention checks [storage.retention].
func (c *Config) validateRetention(p *problems, md *toml.MetaData) {
	r := c.Storage.Retention
	def := func(key string) bool { return md.IsDefined("storage", "retention", key) }
	const k = "storage.retention."
	if r.MaxAgeDays < 0 || r.MaxAgeDays > maxRetentionDays || (r.MaxAgeDays == 0 && def("max_age_days")) {
		p.at(k+"max_age_days", "storage.retention.max_age_days = %d: use a number of days from 1 to %d after which finished runs and idle sessions are deleted, or remove the key to keep them whatever their age", r.MaxAgeDays, maxRetentionDays)
	}
	if r.MaxRuns < 0 || (r.MaxRuns == 0 && def("max_runs")) {
		p.at(k+"max_runs", "storage.retention.max_runs = %d: use a positive number of newest runs to keep (older finished runs are deleted), or remove the key to keep every run", r.MaxRuns)
	}
	if r.IntervalMinutes < 0 || r.IntervalMinutes > maxRetentionInterval || (r.IntervalMinutes == 0 && def("interval_minutes")) {
		p.at(k+"interval_minutes", "storage.retention.interval_minutes = %d: use a number of minutes from 1 to %d between prunes, or remove the key for %d", r.IntervalMinutes, maxRetentionInterval, DefaultRetentionIntervalMinutes)
	}
	if def("interval_minutes") && !def("max_age_days") && !def("max_runs") {
		p.at(k+"interval_minutes", "storage.retention.interval_minutes is set but nothing is to be deleted: add max_age_days (delete finished runs and idle sessions older than that) or max_runs (keep that many newest runs), or remove the [storage.retention] table")
	}
}
