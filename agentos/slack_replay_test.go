package agentos_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/agentos/slack"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func withDB(db *sqldb.DB) func(*agentos.Config) { return func(c *agentos.Config) { c.DB = db } }

// postSlack posts body to an events URL signed at ts, as Slack does; safe
// off the test goroutine.
func postSlack(u, body string, ts time.Time) (int, error) {
	req, err := http.NewRequest(http.MethodPost, u+"/slack/events", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	sec := strconv.FormatInt(ts.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Slack-Request-Timestamp", sec)
	req.Header.Set("X-Slack-Signature", slack.Sign(slackSecret, []byte(body), sec))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A validly signed event replayed within the signature window (the same
// request: body, timestamp and signature) runs once; every copy is
// acknowledged 200. Without a DB the ids are kept in the process; with
// one, in agno_slack_events.
func TestSlackEventReplayRunsOnce(t *testing.T) {
	for name, mod := range map[string]func(t *testing.T) func(*agentos.Config){
		"memory":   func(*testing.T) func(*agentos.Config) { return func(*agentos.Config) {} },
		"sqlite":   func(t *testing.T) func(*agentos.Config) { return withDB(sqldbtest.SQLite(t)) },
		"postgres": func(t *testing.T) func(*agentos.Config) { return withDB(sqldbtest.Postgres(t)) },
	} {
		t.Run(name, func(t *testing.T) {
			e := newSlackEnv(t, true, mod(t))
			body, ts := eventCallback(mentionEvent), time.Now()
			for i := range 3 {
				if code, got := e.send(t, body, ts, nil); code != 200 || got != `{"status":"ok"}` {
					t.Fatalf("delivery %d: %d %s", i+1, code, got)
				}
			}
			// Another event (its own event_id) still runs.
			other := strings.Replace(eventCallback(dmEvent), `"event_id":"Ev1"`, `"event_id":"Ev2"`, 1)
			if code, _ := e.send(t, other, time.Time{}, nil); code != 200 {
				t.Fatal(code)
			}
			e.drain(t)
			if n := len(e.seen); n != 2 {
				t.Fatalf("the model ran %d times for two events", n)
			}
			channels := map[string]int{}
			for _, p := range e.slack.posts() {
				channels[p.Form["channel"]]++
			}
			if channels["C1"] != 1 || channels["D1"] != 1 {
				t.Fatalf("replies per channel %v, want one in C1 (the replayed event) and one in D1", channels)
			}
		})
	}
}

// Two AgentOS replicas on one database (each its own connection pool):
// the same signed event delivered to both, at once and again, runs once
// in all.
func TestSlackEventReplayAcrossReplicas(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) (*sqldb.DB, *sqldb.DB){
		"sqlite": func(t *testing.T) (*sqldb.DB, *sqldb.DB) {
			path := filepath.Join(t.TempDir(), "control.db")
			return openSQLite(t, path), openSQLite(t, path)
		},
		"postgres": func(t *testing.T) (*sqldb.DB, *sqldb.DB) {
			dsn := pgtest.DSN(t)
			schema := pgtest.Schema(t, dsn)
			return openPostgres(t, dsn, schema), openPostgres(t, dsn, schema)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dbA, dbB := open(t)
			a := newSlackEnv(t, true, withDB(dbA))
			b := newSlackEnv(t, true, withDB(dbB))
			body, ts := eventCallback(dmEvent), time.Now()
			urls := []string{a.url, b.url, a.url, b.url, a.url, b.url}
			codes := make([]int, len(urls))
			errs := make([]error, len(urls))
			var wg sync.WaitGroup
			for i, u := range urls {
				wg.Go(func() { codes[i], errs[i] = postSlack(u, body, ts) })
			}
			wg.Wait()
			for i := range urls {
				if errs[i] != nil || codes[i] != 200 {
					t.Fatalf("delivery %d: %d %v", i, codes[i], errs[i])
				}
			}
			for _, e := range []*slackEnv{a, b} { // once more, one after the other
				if code, _ := e.send(t, body, ts, nil); code != 200 {
					t.Fatal(code)
				}
			}
			a.drain(t)
			b.drain(t)
			if runs := len(a.seen) + len(b.seen); runs != 1 {
				t.Fatalf("the event ran %d times across the replicas (a %d, b %d)", runs, len(a.seen), len(b.seen))
			}
			if posts := len(a.slack.posts()) + len(b.slack.posts()); posts != 1 {
				t.Fatalf("%d replies posted across the replicas", posts)
			}
		})
	}
}

func openSQLite(t *testing.T, path string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t *testing.T, dsn, schema string) *sqldb.DB {
	t.Helper()
	db, err := sqldb.OpenPostgres(context.Background(), dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
