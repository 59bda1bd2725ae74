package slack

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The claimed ids do not pile up: past the retention (the replay window
// and a minute) they are purged from the table, and the in-process set
// forgets them and holds at most its bound.
func TestSlackEventIDsPurged(t *testing.T) {
	ctx := context.Background()
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
		c, err := newClaimer(ctx, db, clock.now)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"Ev1", "Ev2"} {
			if first, err := c.claim(ctx, id); err != nil || !first {
				t.Fatalf("%s: %v %v", id, first, err)
			}
		}
		clock.add(eventRetention - time.Second)
		if first, err := c.claim(ctx, "Ev1"); err != nil || first {
			t.Fatalf("Ev1 within the retention claimed again: %v %v", first, err)
		}
		clock.add(2 * time.Minute)
		if first, err := c.claim(ctx, "Ev3"); err != nil || !first {
			t.Fatalf("Ev3: %v %v", first, err)
		}
		var ids []string
		rows, err := db.Query(ctx, `SELECT event_id FROM {t:agno_slack_events} ORDER BY event_id`)
		if err != nil {
			t.Fatal(err)
		}
		ids, err = sqldb.Collect(rows, func(r sqldb.Row) (string, error) { var s string; return s, r.Scan(&s) })
		if err != nil || strings.Join(ids, ",") != "Ev3" {
			t.Fatalf("rows after the retention: %v %v", ids, err)
		}
	})
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	s := &seenSet{ids: map[string]time.Time{}, max: 3, now: clock.now}
	for _, id := range []string{"a", "b", "c", "d"} {
		if first, _ := s.claim(ctx, id); !first {
			t.Fatalf("%s not first", id)
		}
	}
	if len(s.ids) != 3 {
		t.Fatalf("set holds %d ids, bound 3", len(s.ids))
	}
	if first, _ := s.claim(ctx, "d"); first {
		t.Fatal("d claimed twice")
	}
	clock.add(eventRetention)
	if first, _ := s.claim(ctx, "d"); !first {
		t.Fatal("d not forgotten after the retention")
	}
	if len(s.ids) != 1 {
		t.Fatalf("expired ids kept: %v", s.ids)
	}
}
