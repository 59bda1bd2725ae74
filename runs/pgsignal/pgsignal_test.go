package pgsignal_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/runs/pgsignal"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pool opens a pool of its own: another process on the database.
func pool(t *testing.T, dsn string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	p, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func signals(t *testing.T, p *pgxpool.Pool, schema string) *pgsignal.Signals {
	t.Helper()
	s, err := pgsignal.New(p, schema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listener listens on s until the test ends or stop is called; stop
// returns what Listen returned.
func listener(t *testing.T, s *pgsignal.Signals) (heard <-chan runs.Signal, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan runs.Signal, 256)
	ended := make(chan error, 1)
	go func() { ended <- s.Listen(ctx, func(sig runs.Signal) { ch <- sig }) }()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-ended:
			return err
		case <-time.After(10 * time.Second):
			t.Error("Listen did not end with its context")
			return nil
		}
	})
	t.Cleanup(func() { stop() })
	return ch, stop
}

// ready publishes probes until the listener hears one (LISTEN runs in
// the background), then drains whatever else it heard.
func ready(t *testing.T, from *pgsignal.Signals, heard <-chan runs.Signal) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := from.Publish(context.Background(), runs.Signal{Kind: "probe", RunID: "probe"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
			for {
				select {
				case <-heard:
				case <-time.After(50 * time.Millisecond):
					return
				}
			}
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the listener never heard a probe")
		}
	}
}

func next(t *testing.T, heard <-chan runs.Signal) runs.Signal {
	t.Helper()
	select {
	case sig := <-heard:
		return sig
	case <-time.After(10 * time.Second):
		t.Fatal("no signal heard")
		return runs.Signal{}
	}
}

func TestNewRefusesSchemasThatMakeNoChannel(t *testing.T) {
	for _, schema := range []string{"Ai", "my-schema", "a b", `x"; DROP TABLE y; --`} {
		if _, err := pgsignal.New(nil, schema); err == nil {
			t.Errorf("New(%q) made a channel", schema)
		}
	}
	if _, err := pgsignal.New(nil, "ai"); err != nil {
		t.Fatal(err)
	}
}

// A signal published by one process reaches another on the same schema
// whole; other schemas' signals and payloads that are not signals are
// not delivered.
func TestSignalsCrossPools(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	listenPool := pool(t, dsn, 4)
	// One connection: the publishes below are delivered in their order.
	publishPool := pool(t, dsn, 1)
	a, b := signals(t, listenPool, schema), signals(t, publishPool, schema)
	heard, _ := listener(t, a)
	ready(t, b, heard)

	other := signals(t, publishPool, pgtest.Schema(t, dsn))
	if err := other.Publish(context.Background(), runs.Signal{Kind: runs.SignalCancel, RunID: "other-schema"}); err != nil {
		t.Fatal(err)
	}
	if _, err := publishPool.Exec(context.Background(), "SELECT pg_notify($1, $2)", "agno_runs_"+schema, "not a signal"); err != nil {
		t.Fatal(err)
	}
	want := runs.Signal{Kind: runs.SignalStatus, RunID: "r-1", Owner: "host:7777", Status: "PAUSED", ComponentID: "wf", SessionType: "workflow", ParentRunID: "p-1"}
	if err := b.Publish(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	if got := next(t, heard); got != want {
		t.Fatalf("heard %+v, want %+v", got, want)
	}
	// The publisher hears itself too (Publish reaches every instance).
	self, _ := listener(t, b)
	ready(t, b, self)
}

// Schemas too long for a channel name are cut to Postgres's limit; both
// sides cut alike.
func TestLongSchema(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := strings.Repeat("s", 63)
	p := pool(t, dsn, 4)
	a, b := signals(t, p, schema), signals(t, p, schema)
	heard, _ := listener(t, a)
	ready(t, b, heard)
}

// Listen ends when its context does, closing its connection; on a
// closed pool it fails at once.
func TestListenEnds(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	p := pool(t, dsn, 4)
	s := signals(t, p, schema)
	heard, stop := listener(t, s)
	ready(t, s, heard)
	admin := pool(t, dsn, 1)
	listeners := func() int {
		var n int
		if err := admin.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND query LIKE '%' || $1 || '%'`, schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := listeners(); n != 1 {
		t.Fatalf("%d listening connections, want 1", n)
	}
	if err := stop(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Listen ended with %v, want its context's error", err)
	}
	for deadline := time.Now().Add(10 * time.Second); listeners() != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the listening connection was left open")
		}
	}
	if st := p.Stat(); st.AcquiredConns() != 0 {
		t.Fatalf("%d connections still acquired", st.AcquiredConns())
	}

	closed := pool(t, dsn, 1)
	closed.Close()
	cs := signals(t, closed, schema)
	if err := cs.Listen(context.Background(), func(runs.Signal) {}); err == nil {
		t.Fatal("Listen on a closed pool")
	}
	ctx, cancelled := context.WithCancel(context.Background())
	cancelled()
	if err := s.Publish(ctx, runs.Signal{Kind: "x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish with a cancelled context: %v", err)
	}
}

// Many signals published at once arrive whole and in order, however many
// notifications they take.
func TestBatchesArriveInOrder(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	a, b := signals(t, pool(t, dsn, 2), schema), signals(t, pool(t, dsn, 1), schema)
	heard, _ := listener(t, a)
	ready(t, b, heard)
	const n = 200 // ~20 KB of JSON: several notifications
	batch := make([]runs.Signal, n)
	for i := range batch {
		batch[i] = runs.Signal{Kind: runs.SignalEvents, RunID: fmt.Sprintf("run-%03d-%s", i, strings.Repeat("x", 60)), Owner: "host:7777"}
	}
	if err := b.Publish(context.Background(), batch...); err != nil {
		t.Fatal(err)
	}
	for i := range batch {
		if got := next(t, heard); got != batch[i] {
			t.Fatalf("signal %d: heard %+v, want %+v", i, got, batch[i])
		}
	}
	if err := b.Publish(context.Background()); err != nil {
		t.Fatalf("an empty publish: %v", err)
	}
}
