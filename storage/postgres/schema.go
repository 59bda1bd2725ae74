package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/migrate"
	"github.com/agno-go/agno/storage/migrate/pgxmigrate"
)

// migration brings one table to a version. Versions per table start at 1
// and only grow; a released migration is never edited, a change is a new
// version. "{schema}" in a statement stands for the quoted schema name.
type migration struct {
	table   string
	version int64
	stmts   []string
}

// Documents (state, run data, events) are JSON, not JSONB: JSON keeps the
// text exactly as written (key order, number spelling, \u0000), and nothing
// queries inside them. Topics are JSONB because lists filter on them.
var migrations = []migration{
	{table: "agno_sessions", version: 1, stmts: []string{
		`CREATE TABLE {schema}.agno_sessions (
			session_id    TEXT PRIMARY KEY,
			session_type  TEXT NOT NULL DEFAULT '',
			agent_id      TEXT NOT NULL DEFAULT '',
			team_id       TEXT NOT NULL DEFAULT '',
			workflow_id   TEXT NOT NULL DEFAULT '',
			user_id       TEXT NOT NULL DEFAULT '',
			session_name  TEXT NOT NULL DEFAULT '',
			session_state JSON,
			metadata      JSON,
			summary       JSON,
			metrics       JSON,
			data          JSON,
			created_at    BIGINT NOT NULL,
			updated_at    BIGINT NOT NULL,
			version       BIGINT NOT NULL
		)`,
		`CREATE INDEX agno_sessions_created_idx ON {schema}.agno_sessions (created_at)`,
		`CREATE INDEX agno_sessions_updated_idx ON {schema}.agno_sessions (updated_at)`,
		`CREATE INDEX agno_sessions_type_created_idx ON {schema}.agno_sessions (session_type, created_at)`,
		`CREATE INDEX agno_sessions_user_idx ON {schema}.agno_sessions (user_id, created_at)`,
		`CREATE INDEX agno_sessions_agent_idx ON {schema}.agno_sessions (agent_id)`,
		`CREATE INDEX agno_sessions_team_idx ON {schema}.agno_sessions (team_id)`,
		`CREATE INDEX agno_sessions_workflow_idx ON {schema}.agno_sessions (workflow_id)`,
	}},
	{table: "agno_runs", version: 1, stmts: []string{
		// row_seq orders runs created in the same second by insertion.
		`CREATE TABLE {schema}.agno_runs (
			run_id        TEXT PRIMARY KEY,
			row_seq       BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
			session_id    TEXT NOT NULL,
			parent_run_id TEXT NOT NULL DEFAULT '',
			session_type  TEXT NOT NULL DEFAULT '',
			component_id  TEXT NOT NULL DEFAULT '',
			user_id       TEXT NOT NULL DEFAULT '',
			status        TEXT NOT NULL DEFAULT '',
			created_at    BIGINT NOT NULL,
			updated_at    BIGINT NOT NULL,
			data          JSON
		)`,
		`CREATE INDEX agno_runs_session_idx ON {schema}.agno_runs (session_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_component_idx ON {schema}.agno_runs (component_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_parent_idx ON {schema}.agno_runs (parent_run_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_created_idx ON {schema}.agno_runs (created_at, row_seq)`,
	}},
	{table: "agno_run_events", version: 1, stmts: []string{
		`CREATE TABLE {schema}.agno_run_events (
			run_id TEXT NOT NULL,
			seq    BIGINT NOT NULL,
			data   JSON NOT NULL,
			PRIMARY KEY (run_id, seq)
		)`,
	}},
	{table: "agno_memories", version: 1, stmts: []string{
		`CREATE TABLE {schema}.agno_memories (
			memory_id  TEXT PRIMARY KEY,
			memory     TEXT NOT NULL,
			topics     JSONB,
			user_id    TEXT NOT NULL DEFAULT '',
			agent_id   TEXT NOT NULL DEFAULT '',
			team_id    TEXT NOT NULL DEFAULT '',
			input      TEXT NOT NULL DEFAULT '',
			feedback   TEXT NOT NULL DEFAULT '',
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL
		)`,
		`CREATE INDEX agno_memories_user_idx ON {schema}.agno_memories (user_id, updated_at)`,
		`CREATE INDEX agno_memories_agent_idx ON {schema}.agno_memories (agent_id)`,
		`CREATE INDEX agno_memories_team_idx ON {schema}.agno_memories (team_id)`,
		`CREATE INDEX agno_memories_updated_idx ON {schema}.agno_memories (updated_at)`,
		`CREATE INDEX agno_memories_created_idx ON {schema}.agno_memories (created_at)`,
		`CREATE INDEX agno_memories_topics_idx ON {schema}.agno_memories USING GIN (topics jsonb_path_ops)`,
	}},
	{table: "agno_runs", version: 2, stmts: []string{
		// Replicas: the owning instance, the listing flag of in-flight runs,
		// a cancel waiting for the owner, and the version claims compare.
		`ALTER TABLE {schema}.agno_runs ADD COLUMN owner TEXT NOT NULL DEFAULT '',
			ADD COLUMN listed BOOLEAN NOT NULL DEFAULT false,
			ADD COLUMN cancel_requested BOOLEAN NOT NULL DEFAULT false,
			ADD COLUMN version BIGINT NOT NULL DEFAULT 0`,
		`CREATE INDEX agno_runs_status_owner_idx ON {schema}.agno_runs (status, owner)`,
		`CREATE INDEX agno_runs_updated_idx ON {schema}.agno_runs (updated_at)`,
	}},
	{table: "agno_runs", version: 3, stmts: []string{
		// A session's top-level runs (history, listings) are one range of
		// this index: with parent_run_id after session_id, no query of a
		// session walks the top-level runs of every session.
		`DROP INDEX {schema}.agno_runs_session_idx`,
		`CREATE INDEX agno_runs_session_idx ON {schema}.agno_runs (session_id, parent_run_id, created_at, row_seq)`,
	}},
	{table: "agno_sessions", version: 2, stmts: []string{
		// Each listing order ends in session_id, the tie-break, so a page is
		// read from the index in order and the read stops at the page.
		`DROP INDEX {schema}.agno_sessions_created_idx`,
		`DROP INDEX {schema}.agno_sessions_updated_idx`,
		`DROP INDEX {schema}.agno_sessions_type_created_idx`,
		`DROP INDEX {schema}.agno_sessions_user_idx`,
		`DROP INDEX {schema}.agno_sessions_agent_idx`,
		`DROP INDEX {schema}.agno_sessions_team_idx`,
		`DROP INDEX {schema}.agno_sessions_workflow_idx`,
		`CREATE INDEX agno_sessions_created_idx ON {schema}.agno_sessions (created_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_updated_idx ON {schema}.agno_sessions (updated_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_type_created_idx ON {schema}.agno_sessions (session_type, created_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_user_idx ON {schema}.agno_sessions (user_id, created_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_agent_idx ON {schema}.agno_sessions (agent_id, session_type, created_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_team_idx ON {schema}.agno_sessions (team_id, session_type, created_at, session_id COLLATE "C")`,
		`CREATE INDEX agno_sessions_workflow_idx ON {schema}.agno_sessions (workflow_id, session_type, created_at, session_id COLLATE "C")`,
	}},
	{table: "agno_memories", version: 2, stmts: []string{
		// Each listing order ends in memory_id, the tie-break, so a page is
		// read from the index in order (either direction) and stops there.
		`DROP INDEX {schema}.agno_memories_user_idx`,
		`DROP INDEX {schema}.agno_memories_agent_idx`,
		`DROP INDEX {schema}.agno_memories_team_idx`,
		`DROP INDEX {schema}.agno_memories_updated_idx`,
		`DROP INDEX {schema}.agno_memories_created_idx`,
		`CREATE INDEX agno_memories_user_idx ON {schema}.agno_memories (user_id, updated_at, memory_id COLLATE "C")`,
		`CREATE INDEX agno_memories_agent_idx ON {schema}.agno_memories (agent_id, updated_at, memory_id COLLATE "C")`,
		`CREATE INDEX agno_memories_team_idx ON {schema}.agno_memories (team_id, updated_at, memory_id COLLATE "C")`,
		`CREATE INDEX agno_memories_updated_idx ON {schema}.agno_memories (updated_at, memory_id COLLATE "C")`,
		`CREATE INDEX agno_memories_created_idx ON {schema}.agno_memories (created_at, memory_id COLLATE "C")`,
	}},
	{table: "agno_instances", version: 1, stmts: []string{
		// AgentOS processes and their last heartbeat (the run lease).
		`CREATE TABLE {schema}.agno_instances (
			instance_id  TEXT PRIMARY KEY,
			heartbeat_at BIGINT NOT NULL,
			started_at   BIGINT NOT NULL
		)`,
	}},
	{table: "agno_blobs", version: 1, stmts: []string{
		// Uploaded files, outside the run rows, a row per chunk.
		`CREATE TABLE {schema}.agno_blobs (
			blob_id    TEXT NOT NULL,
			seq        BIGINT NOT NULL,
			session_id TEXT NOT NULL,
			data       BYTEA NOT NULL,
			PRIMARY KEY (blob_id, seq)
		)`,
		`CREATE INDEX agno_blobs_session_idx ON {schema}.agno_blobs (session_id)`,
	}},
}

// errForeignSchema reports tables this package did not create.
var errForeignSchema = errors.New("postgres: the schema holds agno tables in a layout this store does not know " +
	"(made by Python agno or a newer agno-go?); set Config.Schema to another schema")

// Advisory lock classes (first key of the two-key form) used by this
// package.
const lockMigrate = 0x61676e6f // "agno"

// runMigrations creates the schema if needed and brings its tables to the
// versions in ms, in tx holding an advisory lock so replicas starting
// together migrate once. It returns how many migrations ran. The versions
// table is shared with the control plane (storage/sqldb).
func runMigrations(ctx context.Context, tx pgx.Tx, schema string, ms []migration) (int, error) {
	q := pgx.Identifier{schema}.Sanitize()
	if err := pgxmigrate.Lock(ctx, tx, lockMigrate, schema); err != nil {
		return 0, fmt.Errorf("postgres: lock for migrations: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+q); err != nil {
		return 0, fmt.Errorf("postgres: create schema %s: %w", schema, err)
	}
	plan := migrate.Plan{
		Name:     "postgres: schema " + schema,
		Versions: q + ".agno_schema_versions",
		Postgres: true,
		Foreign:  errForeignSchema,
		Exists:   pgxmigrate.Exists(schema),
		Expand:   func(stmt string) string { return strings.ReplaceAll(stmt, "{schema}", q) },
	}
	out := make([]migrate.Migration, len(ms))
	for i, m := range ms {
		out[i] = migrate.Migration{Table: m.table, Version: m.version, Stmts: m.stmts}
	}
	return migrate.Run(ctx, pgxmigrate.Tx(tx), plan, out)
}
