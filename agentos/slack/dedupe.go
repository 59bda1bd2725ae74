package slack

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agno-go/agno/storage/sqldb"
)

// Slack event replays. A signed events request passes the signature
// check for ReplayWindow after it first arrives, so whoever holds one
// (a log, a proxy) can send it again; each copy would run the agent
// again. Each event_id is claimed once: in the OS's Config.DB, a row
// per event id inserted if absent, so that of N replicas exactly one
// runs it; without a DB, in a bounded set in this process.

// eventsTable holds the Slack event ids claimed.
const eventsTable = "agno_slack_events"

// eventRetention is how long a claimed id is kept: the replay window,
// plus a minute of clock skew between replicas.
const eventRetention = ReplayWindow + time.Minute

// purgeEvery is how often a claim also deletes expired ids.
const purgeEvery = time.Minute

// seenMax bounds the in-process set. Under a flood of more distinct
// events than this within the retention, the oldest ids are forgotten
// first.
const seenMax = 50_000

// eventMigrations are the schema versions of agno_slack_events.
func eventMigrations(*sqldb.DB) []sqldb.Migration {
	return []sqldb.Migration{{Table: eventsTable, Version: 1, Stmts: []string{
		`CREATE TABLE IF NOT EXISTS {t:agno_slack_events} (
			event_id    TEXT PRIMARY KEY,
			received_at BIGINT NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS idx_agno_slack_events_received_at ON {t:agno_slack_events} (received_at)`,
	}}}
}

// claimer claims Slack event ids: true for the first delivery.
type claimer interface {
	claim(ctx context.Context, eventID string) (bool, error)
}

// newClaimer is the claimer of db: its table (migrated here), or an
// in-process set without a DB.
func newClaimer(ctx context.Context, db *sqldb.DB, now func() time.Time) (claimer, error) {
	if db == nil {
		return &seenSet{ids: map[string]time.Time{}, max: seenMax, now: now}, nil
	}
	if err := db.Migrate(ctx, eventMigrations(db)); err != nil {
		return nil, fmt.Errorf("agentos: slack: migrate %s: %w", eventsTable, err)
	}
	return &seenDB{db: db, now: now}, nil
}

// seenDB claims ids in the control-plane database.
type seenDB struct {
	db  *sqldb.DB
	now func() time.Time
	// purged is when expired ids were last deleted (Unix seconds).
	purged atomic.Int64
}

func (d *seenDB) claim(ctx context.Context, eventID string) (bool, error) {
	now := d.now()
	if last := d.purged.Load(); now.Unix()-last >= int64(purgeEvery/time.Second) && d.purged.CompareAndSwap(last, now.Unix()) {
		if _, err := d.db.Exec(ctx, `DELETE FROM {t:agno_slack_events} WHERE received_at < ?`, now.Add(-eventRetention).Unix()); err != nil {
			return false, fmt.Errorf("slack: purge %s: %w", eventsTable, err)
		}
	}
	res, err := d.db.Exec(ctx, `INSERT INTO {t:agno_slack_events} (event_id, received_at) VALUES (?, ?) ON CONFLICT (event_id) DO NOTHING`,
		eventID, now.Unix())
	if err != nil {
		return false, fmt.Errorf("slack: record event %s in %s: %w", eventID, eventsTable, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// seenSet claims ids in this process: a set kept for the retention, at
// most max ids.
type seenSet struct {
	mu    sync.Mutex
	ids   map[string]time.Time
	order []string // claim order, oldest first, from head
	head  int
	max   int
	now   func() time.Time
}

func (s *seenSet) claim(_ context.Context, eventID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	// Ids expire in claim order: drop the expired, then the oldest past max.
	for s.head < len(s.order) {
		id := s.order[s.head]
		if now.Sub(s.ids[id]) < eventRetention && len(s.ids) < s.max {
			break
		}
		delete(s.ids, id)
		s.order[s.head] = ""
		s.head++
	}
	if s.head > len(s.order)/2 {
		s.order = append(s.order[:0], s.order[s.head:]...)
		s.head = 0
	}
	if _, dup := s.ids[eventID]; dup {
		return false, nil
	}
	s.ids[eventID] = now
	s.order = append(s.order, eventID)
	return true, nil
}
