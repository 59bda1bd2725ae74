package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/internal/plantest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/storage/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// openFresh opens a store on a schema of its own, dropped after the test.
func openFresh(t *testing.T) *Store {
	t.Helper()
	dsn := pgtest.DSN(t)
	st, err := Open(t.Context(), Config{DSN: dsn, Schema: pgtest.Schema(t, dsn), MaxConns: 8, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return openFresh(t) })
	storetest.RunSerialized(t, func(t *testing.T) storage.Store { return openFresh(t) })
}

func adminConn(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func versions(t *testing.T, conn *pgx.Conn, schema string) map[string][3]int64 {
	t.Helper()
	rows, err := conn.Query(t.Context(), `SELECT table_name, version, created_at, updated_at FROM `+
		pgx.Identifier{schema, "agno_schema_versions"}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][3]int64{}
	for rows.Next() {
		var name string
		var v [3]int64
		if err := rows.Scan(&name, &v[0], &v[1], &v[2]); err != nil {
			t.Fatal(err)
		}
		out[name] = v
	}
	return out
}

func TestMigrations(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	conn := adminConn(t, dsn)
	cfg := Config{DSN: dsn, Schema: schema, Logger: quiet}

	st, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != len(migrations) {
		t.Errorf("empty schema: %d migrations applied, want %d", st.applied, len(migrations))
	}
	first := versions(t, conn, schema)
	latest := map[string]int64{}
	for _, m := range migrations {
		latest[m.table] = max(latest[m.table], m.version)
	}
	for table, v := range latest {
		if first[table][0] != v {
			t.Errorf("%s at version %d, want %d", table, first[table][0], v)
		}
	}
	seed(t, st)
	st.Close()

	st, err = Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != 0 {
		t.Errorf("second open applied %d migrations, want 0", st.applied)
	}
	if again := versions(t, conn, schema); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("versions changed on reopen: %v -> %v", first, again)
	}
	checkSeed(t, st)
	st.Close()

	next := append(append([]migration{}, migrations...), migration{table: "agno_memories", version: latest["agno_memories"] + 1, stmts: []string{
		`ALTER TABLE {schema}.agno_memories ADD COLUMN importance INTEGER NOT NULL DEFAULT 0`,
	}})
	st, err = open(ctx, cfg, next)
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != 1 {
		t.Errorf("upgrade applied %d migrations, want 1", st.applied)
	}
	v := versions(t, conn, schema)["agno_memories"]
	if v[0] != latest["agno_memories"]+1 || v[1] != first["agno_memories"][1] {
		t.Errorf("agno_memories version row %v, want version %d with created_at %d", v, latest["agno_memories"]+1, first["agno_memories"][1])
	}
	var importance int
	if err := conn.QueryRow(ctx, `SELECT importance FROM `+pgx.Identifier{schema, "agno_memories"}.Sanitize()+
		` WHERE memory_id = 'm1'`).Scan(&importance); err != nil {
		t.Errorf("new column missing after upgrade: %v", err)
	}
	checkSeed(t, st)
	st.Close()

	if st, err := Open(ctx, cfg); err == nil {
		st.Close()
		t.Error("opening a schema newer than this build: no error")
	}
}

// Replicas starting together on an empty schema: every Open succeeds and
// the migrations run once.
func TestConcurrentOpen(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	const replicas = 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := Open(t.Context(), Config{DSN: dsn, Schema: schema, MaxConns: 2, Logger: quiet})
			if err != nil {
				t.Error(err)
				return
			}
			defer st.Close()
			mu.Lock()
			applied += st.applied
			mu.Unlock()
		}()
	}
	wg.Wait()
	if applied != len(migrations) {
		t.Errorf("replicas applied %d migrations in total, want %d", applied, len(migrations))
	}
}

func TestForeignTables(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	conn := adminConn(t, dsn)
	// Python agno's layout: one sessions table with runs as JSON, and a
	// version table with string versions.
	q := pgx.Identifier{schema}.Sanitize()
	if _, err := conn.Exec(t.Context(), `CREATE SCHEMA `+q+`;
		CREATE TABLE `+q+`.agno_sessions (session_id VARCHAR PRIMARY KEY, session_data JSONB, runs JSONB)`); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), Config{DSN: dsn, Schema: schema})
	if !errors.Is(err, errForeignSchema) {
		t.Errorf("Open over a foreign agno_sessions table: %v, want errForeignSchema", err)
	}

	schema2 := pgtest.Schema(t, dsn)
	q2 := pgx.Identifier{schema2}.Sanitize()
	if _, err := conn.Exec(t.Context(), `CREATE SCHEMA `+q2+`;
		CREATE TABLE `+q2+`.agno_schema_versions (table_name VARCHAR PRIMARY KEY, version VARCHAR, created_at BIGINT, updated_at BIGINT);
		INSERT INTO `+q2+`.agno_schema_versions VALUES ('agno_sessions', 'v2.3.0', 0, 0)`); err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), Config{DSN: dsn, Schema: schema2})
	if !errors.Is(err, errForeignSchema) {
		t.Errorf("Open over agno's string versions: %v, want errForeignSchema", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{DSN: "postgres://x@127.0.0.1:1/db", Schema: "bad-name"},
		{DSN: "postgres://x@127.0.0.1:1/db", Schema: `ai"; DROP TABLE x; --`},
		{DSN: "::not a dsn::"},
	} {
		if st, err := Open(t.Context(), cfg); err == nil {
			st.Close()
			t.Errorf("Open(%+v): no error", cfg)
		}
	}
}

func TestGivenPoolStaysOpen(t *testing.T) {
	dsn := pgtest.DSN(t)
	pool, err := pgxpool.New(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	st, err := Open(t.Context(), Config{Pool: pool, Schema: pgtest.Schema(t, dsn)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Pool() != pool {
		t.Error("Pool() is not the given pool")
	}
	st.Close()
	if _, err := st.GetSession(t.Context(), "x"); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("GetSession after Close: %v, want ErrClosed", err)
	}
	if err := pool.Ping(t.Context()); err != nil {
		t.Errorf("the given pool was closed by Store.Close: %v", err)
	}
}

func seed(t *testing.T, st storage.Store) {
	t.Helper()
	ctx := t.Context()
	if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: "s1", SessionType: storage.SessionAgent,
		SessionState: map[string]any{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateRun(ctx, &storage.Run{RunID: "r1", SessionID: "s1", Status: run.StatusCompleted, Data: json.RawMessage(`{"a":1}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendEvents(ctx, "r1", json.RawMessage(`{"event":"RunStarted"}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.UpsertMemory(ctx, &storage.Memory{MemoryID: "m1", Memory: "remember", UserID: "u", Topics: []string{"t"}}); err != nil {
		t.Fatal(err)
	}
}

func checkSeed(t *testing.T, st storage.Store) {
	t.Helper()
	ctx := t.Context()
	s, err := st.GetSession(ctx, "s1")
	if err != nil || s.SessionState["k"] != "v" {
		t.Errorf("session after reopen: %+v, %v", s, err)
	}
	r, err := st.GetRun(ctx, "r1")
	if err != nil || string(r.Data) != `{"a":1}` {
		t.Errorf("run after reopen: %+v, %v", r, err)
	}
	evs, err := st.ListEvents(ctx, "r1", -1)
	if err != nil || len(evs) != 1 {
		t.Errorf("events after reopen: %v, %v", evs, err)
	}
	m, err := st.GetMemory(ctx, "m1")
	if err != nil || m.Memory != "remember" || len(m.Topics) != 1 {
		t.Errorf("memory after reopen: %+v, %v", m, err)
	}
}

// An update that loses the race every time gives up after UpdateAttempts
// with ErrConflict and leaves the winners' writes in place.
func TestUpdateConflict(t *testing.T) {
	dsn := pgtest.DSN(t)
	st, err := Open(t.Context(), Config{DSN: dsn, Schema: pgtest.Schema(t, dsn), UpdateAttempts: 3, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.UpdateConflict(t, st, 3)
}

// The queries of one session's rows and the session and memory listings
// are served by an index in their order: with sequential scans priced
// out, no plan sorts and every plan reads an index (the shape a planner
// without statistics, autovacuum off, still has in front of it).
func TestSessionQueriesHaveTheirIndex(t *testing.T) {
	st := openFresh(t)
	ctx := t.Context()
	conn, err := st.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	plan := func(query string, args []any) string { return plantest.Postgres(t, conn, query, args...) }
	for name, tc := range map[string]struct {
		q     storage.RunQuery
		index string
	}{
		"history":     {storage.RunQuery{SessionID: "s1", TopLevel: true, Newest: true, Limit: 10}, "agno_runs_session_idx"},
		"member runs": {storage.RunQuery{ParentRunID: "r1"}, "agno_runs_parent_idx"},
		"a component": {storage.RunQuery{ComponentID: "a", Newest: true, Limit: 20}, "agno_runs_component_idx"},
	} {
		query, args := st.d.ListRuns(tc.q, "row_seq")
		if p := plan(query, args); !strings.Contains(p, tc.index) || strings.Contains(p, "Sort") {
			t.Errorf("%s: plan\n%s\ndoes not read %s in order", name, p, tc.index)
		}
	}
	for name, q := range map[string]storage.SessionQuery{
		"all, newest":       {SortOrder: storage.Desc, Limit: 20, Page: 1},
		"by update":         {SortBy: "updated_at", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"an agent's (agno)": {SessionType: storage.SessionAgent, ComponentID: "a", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"a user's":          {UserID: "u", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"of a type":         {SessionType: storage.SessionWorkflow, Limit: 20, Page: 1},
	} {
		_, list, args := st.d.ListSessions(q)
		plantest.ReadsInOrder(t, name, plan(list, args), true)
	}
	for name, q := range map[string]storage.MemoryQuery{
		"memories, newest":      {SortOrder: storage.Desc, Limit: 20, Page: 1},
		"memories, oldest":      {SortBy: "created_at", SortOrder: storage.Asc, Limit: 20, Page: 2},
		"memories, by creation": {SortBy: "created_at", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"a user's memories":     {UserID: "u", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"an agent's memories":   {AgentID: "a", SortOrder: storage.Desc, Limit: 20, Page: 1},
		"a team's memories":     {TeamID: "t", SortOrder: storage.Asc, Limit: 20, Page: 1},
	} {
		_, list, args := st.d.ListMemories(q)
		plantest.ReadsInOrder(t, name, plan(list, args), true)
	}
}
