package hitl_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/runs/pgsignal"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/workflow"
)

// replica is one AgentOS process's share of the HITL machinery: its own
// store value on the shared database, its engine, its socket.
type replica struct {
	store storage.Store
	eng   *runs.Engine
	sock  string
}

// openReplicas opens two replicas on one database: SQLite (one file,
// opened twice; changes found by polling) or Postgres (one schema,
// LISTEN/NOTIFY).
func openReplicas(t *testing.T, driver string) [2]*replica {
	t.Helper()
	dir := sockDir(t)
	var dsn, schema string
	if driver == "postgres" {
		dsn = pgtest.DSN(t)
		schema = pgtest.Schema(t, dsn)
	}
	var out [2]*replica
	for i, name := range []string{"a", "b"} {
		var st storage.Store
		var sig runs.Signals
		switch driver {
		case "sqlite":
			s, err := sqlite.Open(context.Background(), sqlite.Config{Path: filepath.Join(dir, "agno.db"), Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			st = s
		case "postgres":
			s, err := postgres.Open(context.Background(), postgres.Config{DSN: dsn, Schema: schema, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			if sig, err = pgsignal.New(s.Pool(), s.Schema()); err != nil {
				t.Fatal(err)
			}
			st = s
		}
		eng, err := runs.New(runs.Config{Store: st, Instance: name, Lease: 5 * time.Second, Poll: 20 * time.Millisecond, Signals: sig, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := runs.Attach(eng); err != nil {
			t.Fatal(err)
		}
		if err := eng.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			runs.Detach(eng)
			if err := eng.Close(); err != nil {
				t.Error(err)
			}
			st.Close()
		})
		out[i] = &replica{store: st, eng: eng, sock: filepath.Join(dir, name+".sock")}
	}
	return out
}

// A pause on one replica is announced on every replica's socket, and of
// two answers given at once on both, exactly one continues the run; the
// other socket hears the pause was answered.
func TestPauseAnsweredOnAnyReplica(t *testing.T) {
	for _, driver := range []string{"sqlite", "postgres"} {
		t.Run(driver, func(t *testing.T) {
			reps := openReplicas(t, driver)
			var paid atomic.Int32
			var clients [2]*hitl.Client
			var flows [2]*workflow.Workflow
			var processed atomic.Int32
			agents := [2]run.Executor{}
			for i, r := range reps {
				agents[i] = cashier(t, r.store, &paid)
				flows[i] = confirmFlow(t, r.store, &processed)
				srv := startServer(t, hitl.Config{SocketPath: r.sock, Agents: []run.Executor{agents[i]}, Workflows: []*workflow.Workflow{flows[i]}, Store: r.store, Runs: r.eng})
				flows[i].SetNotifier(srv)
				clients[i] = dial(t, r.sock)
			}

			// An agent paused on A: both sockets announce it.
			out, err := agents[0].Execute(context.Background(), &run.Request{Input: "pay 5", SessionID: "s1", RunID: "ar"}, nil)
			if err != nil || out.Status != run.StatusPaused {
				t.Fatalf("run on A: %v %v", err, out)
			}
			var pauses [2]*hitl.Pause
			for i, c := range clients {
				pauses[i] = nextPause(t, c)
				if pauses[i].RunID != "ar" || len(pauses[i].Requirements) != 1 {
					t.Fatalf("socket %d announced %+v", i, pauses[i])
				}
			}
			// Both answer at once: one wins.
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, c := range clients {
				answers, err := pauses[i].Approve("")
				if err != nil {
					t.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = c.Answer(ctxT(t), pauses[i], answers)
				}()
			}
			wg.Wait()
			winner := -1
			for i, err := range errs {
				switch {
				case err == nil && winner < 0:
					winner = i
				case err == nil:
					t.Fatal("both answers continued the run")
				case !strings.HasPrefix(err.Error(), "Run is not paused"):
					t.Fatalf("losing answer: %v", err)
				}
			}
			if winner < 0 {
				t.Fatalf("no answer won: %v", errs)
			}
			f, err := clients[winner].Wait(ctxT(t), "ar")
			if err != nil || f.Status != run.StatusCompleted {
				t.Fatalf("finished %+v %v", f, err)
			}
			if paid.Load() != 5 {
				t.Fatalf("paid %d: the tool ran %d times", paid.Load(), paid.Load()/5)
			}
			waitResumed(t, clients[1-winner], "ar")

			// A workflow paused on A is continued on B's socket.
			wout, err := flows[0].Run(context.Background(), "Q3", run.WithRunID("wr"), run.WithSessionID("s2"))
			if err != nil || wout.Status != run.StatusPaused {
				t.Fatalf("workflow on A: %v %v", err, wout)
			}
			wp := nextPause(t, clients[1])
			if wp.RunID != "wr" || wp.WorkflowID != flows[1].ID() {
				t.Fatalf("B announced %+v", wp)
			}
			// A announces it too, before anyone answers: a replica that
			// learns of a pause only after it was answered elsewhere reads
			// the run from storage and rightly announces nothing.
			if ap := nextPause(t, clients[0]); ap.RunID != "wr" {
				t.Fatalf("A announced %+v", ap)
			}
			answers, err := wp.Approve("")
			if err != nil {
				t.Fatal(err)
			}
			if err := clients[1].Answer(ctxT(t), wp, answers); err != nil {
				t.Fatal(err)
			}
			if f, err := clients[1].Wait(ctxT(t), "wr"); err != nil || f.Status != run.StatusCompleted || processed.Load() != 1 {
				t.Fatalf("workflow finished %+v %v, processed %d", f, err, processed.Load())
			}
			waitResumed(t, clients[0], "wr")
			if st := storedStatus(t, reps[0].store, "wr"); st != run.StatusCompleted {
				t.Fatalf("stored %s", st)
			}
		})
	}
}

// waitResumed skips announcements until the one saying runID was
// answered elsewhere.
func waitResumed(t *testing.T, c *hitl.Client, runID string) {
	t.Helper()
	for {
		a, err := c.Next(ctxT(t))
		if err != nil {
			t.Fatalf("waiting for %s to be resumed: %v", runID, err)
		}
		if a.Resumed != nil && a.Resumed.RunID == runID {
			return
		}
	}
}
