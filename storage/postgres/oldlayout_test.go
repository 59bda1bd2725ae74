package postgres

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// A schema laid out by the runner this package had before storage/migrate
// (its versions table DDL, its version rows) opens with the shared runner:
// the tables it holds are left as they are, the one it lacks is migrated.
func TestOpenOldLayout(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	conn := adminConn(t, dsn)
	q := pgx.Identifier{schema}.Sanitize()
	mustExec := func(stmt string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(t.Context(), stmt, args...); err != nil {
			t.Fatal(err)
		}
	}
	mustExec(`CREATE SCHEMA ` + q)
	mustExec(`CREATE TABLE IF NOT EXISTS ` + q + `.agno_schema_versions (
		table_name TEXT PRIMARY KEY,
		version    BIGINT NOT NULL,
		created_at BIGINT NOT NULL,
		updated_at BIGINT NOT NULL
	)`)
	// An older release: every table but agno_blobs and the counts, agno_runs at version
	// 2, agno_sessions and agno_memories at 1 (before the listing indexes).
	for _, m := range migrations {
		if m.table == "agno_blobs" || m.table == "agno_session_counts" || m.table == "agno_memory_counts" || m.table == "agno_memory_users" || m.table == "agno_runs" && m.version > 2 ||
			(m.table == "agno_sessions" || m.table == "agno_memories") && m.version > 1 {
			continue
		}
		for _, stmt := range m.stmts {
			mustExec(strings.ReplaceAll(stmt, "{schema}", q))
		}
		mustExec(`INSERT INTO `+q+`.agno_schema_versions (table_name, version, created_at, updated_at) VALUES ($1, $2, 5, 5)
			ON CONFLICT (table_name) DO UPDATE SET version = excluded.version`, m.table, m.version)
	}

	st, err := Open(t.Context(), Config{DSN: dsn, Schema: schema, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.applied != 8 {
		t.Errorf("applied %d migrations, want 8 (agno_blobs, the session, run and memory indexes, the run's inline events, the session and memory counts, the memory users)", st.applied)
	}
	v := versions(t, conn, schema)
	for table, want := range map[string]int64{"agno_run_events": 1, "agno_instances": 1} {
		if v[table] != [3]int64{want, 5, 5} {
			t.Errorf("%s version row %v, want [%d 5 5] untouched", table, v[table], want)
		}
	}
	if v["agno_sessions"][0] != 2 || v["agno_runs"][0] != 4 || v["agno_memories"][0] != 2 {
		t.Errorf("sessions %v, runs %v, memories %v: not migrated", v["agno_sessions"], v["agno_runs"], v["agno_memories"])
	}
	if v["agno_blobs"][0] != 1 {
		t.Errorf("agno_blobs version row %v", v["agno_blobs"])
	}
	seed(t, st)
	checkSeed(t, st)
}
