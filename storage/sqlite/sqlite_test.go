package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "agno.db"), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return openTemp(t) })
	storetest.RunSerialized(t, func(t *testing.T) storage.Store { return openTemp(t) })
}

func TestConformanceInMemory(t *testing.T) {
	open := func(t *testing.T) storage.Store {
		st, err := Open(t.Context(), Config{Path: ":memory:", Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	storetest.Run(t, open)
}

func TestOpenCreatesFileAndDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "agno.db")
	st, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	var mode string
	if err := st.w.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode %q, want wal", mode)
	}
	var fk, busy int
	if err := st.r.QueryRowContext(t.Context(), "PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if err := st.r.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if fk != 1 || busy != 5000 {
		t.Errorf("reader foreign_keys=%d busy_timeout=%d, want 1 and 5000", fk, busy)
	}
}

func TestDefaultPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	st, err := Open(t.Context(), Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := os.Stat(filepath.Join(dir, DefaultPath)); err != nil {
		t.Fatalf("default database file: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Path: "file:agno.db"},
		{Path: "agno.db?mode=ro"},
		{Path: filepath.Join(t.TempDir(), "x.db"), Synchronous: "sometimes"},
	} {
		if st, err := Open(t.Context(), cfg); err == nil {
			st.Close()
			t.Errorf("Open(%+v): no error", cfg)
		}
	}
}

func versions(t *testing.T, db *sql.DB) map[string][3]int64 {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT table_name, version, created_at, updated_at FROM agno_schema_versions`)
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
	path := filepath.Join(t.TempDir(), "agno.db")

	st, err := Open(ctx, Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != len(migrations) {
		t.Errorf("empty database: %d migrations applied, want %d", st.applied, len(migrations))
	}
	first := versions(t, st.w)
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

	// Second open: nothing to apply, nothing lost.
	st, err = Open(ctx, Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != 0 {
		t.Errorf("second open applied %d migrations, want 0", st.applied)
	}
	if again := versions(t, st.w); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("versions changed on reopen: %v -> %v", first, again)
	}
	checkSeed(t, st)
	st.Close()

	// A database at an older version gets the newer migrations.
	next := append(append([]migration{}, migrations...), migration{table: "agno_memories", version: latest["agno_memories"] + 1, stmts: []string{
		`ALTER TABLE agno_memories ADD COLUMN importance INTEGER NOT NULL DEFAULT 0`,
	}})
	st, err = open(ctx, Config{Path: path, Logger: quiet}, next)
	if err != nil {
		t.Fatal(err)
	}
	if st.applied != 1 {
		t.Errorf("upgrade applied %d migrations, want 1", st.applied)
	}
	v := versions(t, st.w)["agno_memories"]
	if v[0] != latest["agno_memories"]+1 || v[1] != first["agno_memories"][1] {
		t.Errorf("agno_memories version row %v, want version %d with created_at %d", v, latest["agno_memories"]+1, first["agno_memories"][1])
	}
	var importance int
	if err := st.r.QueryRowContext(ctx, `SELECT importance FROM agno_memories WHERE memory_id = 'm1'`).Scan(&importance); err != nil {
		t.Errorf("new column missing after upgrade: %v", err)
	}
	checkSeed(t, st)
	st.Close()

	// The build that knows only the released versions refuses the newer database.
	if st, err := Open(ctx, Config{Path: path, Logger: quiet}); err == nil {
		st.Close()
		t.Error("opening a database newer than this build: no error")
	}
}

func TestForeignTables(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agno.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Python agno's layout: one sessions table with runs as JSON.
	if _, err := db.Exec(`CREATE TABLE agno_sessions (session_id TEXT PRIMARY KEY, session_data TEXT, runs TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err == nil {
		st.Close()
		t.Fatal("Open over a foreign agno_sessions table: no error")
	}
	if !errors.Is(err, errForeignSchema) {
		t.Errorf("error %v, want errForeignSchema", err)
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

// Two stores on one file stand for two processes: each has its own write
// connection, so their transactions meet SQLite's file lock.
func TestTwoProcessesWriteOneFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "agno.db")
	a, err := Open(ctx, Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, _, err := a.EnsureSession(ctx, &storage.Session{SessionID: "s", SessionType: storage.SessionAgent}); err != nil {
		t.Fatal(err)
	}
	const perWriter = 20
	var wg sync.WaitGroup
	for w, st := range []*Store{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				id := fmt.Sprintf("w%d-%d", w, i)
				if err := st.CreateRun(ctx, &storage.Run{RunID: id, SessionID: "s", Status: run.StatusCompleted}); err != nil {
					t.Errorf("put %s: %v", id, err)
				}
				if _, err := st.AppendEvents(ctx, "shared-run", json.RawMessage(`{"w":1}`)); err != nil {
					t.Errorf("append from %s: %v", id, err)
				}
				if _, err := st.UpdateSession(ctx, "s", func(s *storage.Session) error {
					if s.SessionState == nil {
						s.SessionState = map[string]any{}
					}
					s.SessionState[id] = true
					return nil
				}); err != nil {
					t.Errorf("update %s: %v", id, err)
				}
			}
		}()
	}
	wg.Wait()
	runs, err := b.ListRuns(ctx, storage.RunQuery{SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 4*perWriter {
		t.Errorf("%d runs, want %d", len(runs), 4*perWriter)
	}
	s, err := a.GetSession(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SessionState) != 4*perWriter {
		t.Errorf("%d state keys, want %d", len(s.SessionState), 4*perWriter)
	}
	evs, err := a.ListEvents(ctx, "shared-run", -1)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if len(evs) != 4*perWriter {
		t.Errorf("%d events, want %d", len(evs), 4*perWriter)
	}
}

// Many goroutines writing at once through one store all succeed: writes
// queue on the single write connection instead of failing with BUSY.
func TestManyWriters(t *testing.T) {
	st := openTemp(t)
	ctx := t.Context()
	const writers, each = 32, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sid := fmt.Sprintf("s%d", w)
			if _, _, err := st.EnsureSession(ctx, &storage.Session{SessionID: sid, SessionType: storage.SessionAgent}); err != nil {
				errs <- err
				return
			}
			for i := range each {
				rid := fmt.Sprintf("%s-r%d", sid, i)
				if err := st.CreateRun(ctx, &storage.Run{RunID: rid, SessionID: sid}); err != nil {
					errs <- err
				}
				if err := st.UpsertMemory(ctx, &storage.Memory{MemoryID: rid, Memory: "m", UserID: sid}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runs, err := st.ListRuns(ctx, storage.RunQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != writers*each {
		t.Errorf("%d runs, want %d", len(runs), writers*each)
	}
}

func TestCanceledContext(t *testing.T) {
	st := openTemp(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := st.CreateRun(ctx, &storage.Run{RunID: "r", SessionID: "s"}); !errors.Is(err, context.Canceled) {
		t.Errorf("CreateRun with a canceled context: %v, want context.Canceled", err)
	}
}

// An update that loses the race every time gives up after UpdateAttempts
// with ErrConflict and leaves the winners' writes in place.
func TestUpdateConflict(t *testing.T) {
	st, err := Open(t.Context(), Config{Path: filepath.Join(t.TempDir(), "agno.db"), UpdateAttempts: 3, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	storetest.UpdateConflict(t, st, 3)
}

// The database holds conversations: the file SQLite writes, its -wal and
// -shm beside it, and a directory Open makes are private to this user.
func TestDatabaseFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "agno.db")
	st, err := Open(context.Background(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.EnsureSession(context.Background(), &storage.Session{SessionID: "s", SessionType: storage.SessionAgent}); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600, path + "-shm": 0o600}
	for p, mode := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %v, want %v", filepath.Base(p), got, mode)
		}
	}
}
