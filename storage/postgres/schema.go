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
	{table: "agno_runs", version: 4, stmts: []string{
		// The events of a run stored in one write, as one JSON array
		// (sqlstore.InlineEvents): a row per event cost an insert each.
		`ALTER TABLE {schema}.agno_runs ADD COLUMN events JSON`,
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
	{table: "agno_session_counts", version: 1, stmts: []string{
		// total_count of the session listings without reading the matching
		// rows (they are not all-visible without autovacuum, so even an
		// index-only count reads the heap): counts by scope ('all',
		// 't:'+type, 'c:'+owner, 'tc:'+type+':'+owner) in shards, a
		// backend's own, so concurrent session creations do not queue on
		// one counter row. A listing sums the scope's shards.
		`CREATE TABLE {schema}.agno_session_counts (
			scope TEXT NOT NULL,
			shard SMALLINT NOT NULL,
			n     BIGINT NOT NULL,
			PRIMARY KEY (scope, shard)
		)`,
		// Inserts and deletes count once per statement, from its transition
		// table: a bulk insert updates each counter once, not once per row
		// (every update of a row in one transaction adds a version that
		// the next one walks).
		`CREATE FUNCTION {schema}.agno_sessions_count() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO {schema}.agno_session_counts AS c (scope, shard, n)
				SELECT scope, pg_backend_pid() % 16, CASE TG_OP WHEN 'DELETE' THEN -COUNT(*) ELSE COUNT(*) END
				FROM changed s, LATERAL unnest(ARRAY['all', 't:' || s.session_type, 'c:' || (CASE s.session_type WHEN 'team' THEN s.team_id WHEN 'workflow' THEN s.workflow_id ELSE s.agent_id END), 'tc:' || s.session_type || ':' || (CASE s.session_type WHEN 'team' THEN s.team_id WHEN 'workflow' THEN s.workflow_id ELSE s.agent_id END)]) AS scope GROUP BY scope
				ON CONFLICT (scope, shard) DO UPDATE SET n = c.n + excluded.n;
			RETURN NULL;
		END
		$$`,
		// A session that changes owner or type moves between scopes (rare:
		// a row trigger on those columns only).
		`CREATE FUNCTION {schema}.agno_sessions_recount() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO {schema}.agno_session_counts AS c (scope, shard, n)
				SELECT scope, pg_backend_pid() % 16, SUM(d) FROM (
					SELECT unnest(ARRAY['all', 't:' || OLD.session_type, 'c:' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END), 'tc:' || OLD.session_type || ':' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END)]) AS scope, -1 AS d
					UNION ALL SELECT unnest(ARRAY['all', 't:' || NEW.session_type, 'c:' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END), 'tc:' || NEW.session_type || ':' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END)]), 1) moves
				GROUP BY scope
				ON CONFLICT (scope, shard) DO UPDATE SET n = c.n + excluded.n;
			RETURN NULL;
		END
		$$`,
		// The triggers lock the sessions against writes until the backfill
		// below commits: every session is counted once.
		`CREATE TRIGGER agno_sessions_counted AFTER INSERT ON {schema}.agno_sessions
			REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_sessions_count()`,
		`CREATE TRIGGER agno_sessions_uncounted AFTER DELETE ON {schema}.agno_sessions
			REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_sessions_count()`,
		`CREATE TRIGGER agno_sessions_recounted AFTER UPDATE OF session_type, agent_id, team_id, workflow_id ON {schema}.agno_sessions
			FOR EACH ROW WHEN (OLD.session_type IS DISTINCT FROM NEW.session_type OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
				OR OLD.team_id IS DISTINCT FROM NEW.team_id OR OLD.workflow_id IS DISTINCT FROM NEW.workflow_id)
			EXECUTE FUNCTION {schema}.agno_sessions_recount()`,
		`INSERT INTO {schema}.agno_session_counts (scope, shard, n)
			SELECT scope, 0, COUNT(*) FROM {schema}.agno_sessions s, LATERAL unnest(ARRAY['all', 't:' || s.session_type, 'c:' || (CASE s.session_type WHEN 'team' THEN s.team_id WHEN 'workflow' THEN s.workflow_id ELSE s.agent_id END), 'tc:' || s.session_type || ':' || (CASE s.session_type WHEN 'team' THEN s.team_id WHEN 'workflow' THEN s.workflow_id ELSE s.agent_id END)]) AS scope GROUP BY scope`,
	}},
	{table: "agno_memory_counts", version: 1, stmts: []string{
		// total_count of the memory listings as agno_session_counts does
		// for sessions: scopes 'all', 'u:'+user, 'a:'+agent, 't:'+team and
		// 'ua:'/'ut:' + the user's length + ':' + user + agent/team.
		`CREATE TABLE {schema}.agno_memory_counts (
			scope TEXT NOT NULL,
			shard SMALLINT NOT NULL,
			n     BIGINT NOT NULL,
			PRIMARY KEY (scope, shard)
		)`,
		`CREATE FUNCTION {schema}.agno_memories_count() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO {schema}.agno_memory_counts AS c (scope, shard, n)
				SELECT scope, pg_backend_pid() % 16, CASE TG_OP WHEN 'DELETE' THEN -COUNT(*) ELSE COUNT(*) END
				FROM changed m, LATERAL unnest(ARRAY['all', 'u:' || m.user_id, 'a:' || m.agent_id, 't:' || m.team_id, 'ua:' || length(m.user_id) || ':' || m.user_id || m.agent_id, 'ut:' || length(m.user_id) || ':' || m.user_id || m.team_id]) AS scope GROUP BY scope
				ON CONFLICT (scope, shard) DO UPDATE SET n = c.n + excluded.n;
			RETURN NULL;
		END
		$$`,
		`CREATE FUNCTION {schema}.agno_memories_recount() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO {schema}.agno_memory_counts AS c (scope, shard, n)
				SELECT scope, pg_backend_pid() % 16, SUM(d) FROM (
					SELECT unnest(ARRAY['all', 'u:' || OLD.user_id, 'a:' || OLD.agent_id, 't:' || OLD.team_id, 'ua:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.agent_id, 'ut:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.team_id]) AS scope, -1 AS d
					UNION ALL SELECT unnest(ARRAY['all', 'u:' || NEW.user_id, 'a:' || NEW.agent_id, 't:' || NEW.team_id, 'ua:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.agent_id, 'ut:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.team_id]), 1) moves
				GROUP BY scope
				ON CONFLICT (scope, shard) DO UPDATE SET n = c.n + excluded.n;
			RETURN NULL;
		END
		$$`,
		`CREATE TRIGGER agno_memories_counted AFTER INSERT ON {schema}.agno_memories
			REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_memories_count()`,
		`CREATE TRIGGER agno_memories_uncounted AFTER DELETE ON {schema}.agno_memories
			REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_memories_count()`,
		`CREATE TRIGGER agno_memories_recounted AFTER UPDATE OF user_id, agent_id, team_id ON {schema}.agno_memories
			FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.agent_id IS DISTINCT FROM NEW.agent_id
				OR OLD.team_id IS DISTINCT FROM NEW.team_id)
			EXECUTE FUNCTION {schema}.agno_memories_recount()`,
		`INSERT INTO {schema}.agno_memory_counts (scope, shard, n)
			SELECT scope, 0, COUNT(*) FROM {schema}.agno_memories m, LATERAL unnest(ARRAY['all', 'u:' || m.user_id, 'a:' || m.agent_id, 't:' || m.team_id, 'ua:' || length(m.user_id) || ':' || m.user_id || m.agent_id, 'ut:' || length(m.user_id) || ':' || m.user_id || m.team_id]) AS scope GROUP BY scope`,
	}},
	{table: "agno_memory_users", version: 1, stmts: []string{
		// GET /user_memory_stats without grouping every memory, as on
		// SQLite: each user's count and last update. Inserts and deletes
		// count per statement (one update per user, users in order, so two
		// bulk writes do not deadlock), a change row by row.
		`CREATE TABLE {schema}.agno_memory_users (
			user_id      TEXT PRIMARY KEY,
			n            BIGINT NOT NULL,
			last_updated BIGINT NOT NULL
		)`,
		`CREATE INDEX agno_memory_users_last_idx ON {schema}.agno_memory_users (last_updated DESC, user_id COLLATE "C")`,
		`CREATE FUNCTION {schema}.agno_memories_users_added() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO {schema}.agno_memory_users AS u (user_id, n, last_updated)
				SELECT user_id, COUNT(*), MAX(updated_at) FROM changed WHERE user_id <> '' GROUP BY user_id ORDER BY user_id
				ON CONFLICT (user_id) DO UPDATE SET n = u.n + excluded.n, last_updated = GREATEST(u.last_updated, excluded.last_updated);
			RETURN NULL;
		END
		$$`,
		`CREATE FUNCTION {schema}.agno_memories_users_removed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			UPDATE {schema}.agno_memory_users AS u SET n = u.n - g.k,
				last_updated = COALESCE((SELECT MAX(m.updated_at) FROM {schema}.agno_memories m WHERE m.user_id = u.user_id), 0)
				FROM (SELECT user_id, COUNT(*) AS k FROM changed WHERE user_id <> '' GROUP BY user_id ORDER BY user_id) g
				WHERE u.user_id = g.user_id;
			DELETE FROM {schema}.agno_memory_users WHERE n <= 0 AND user_id IN (SELECT user_id FROM changed);
			RETURN NULL;
		END
		$$`,
		`CREATE FUNCTION {schema}.agno_memories_user_changed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF OLD.user_id <> '' THEN
				UPDATE {schema}.agno_memory_users SET n = n - 1,
					last_updated = COALESCE((SELECT MAX(updated_at) FROM {schema}.agno_memories WHERE user_id = OLD.user_id), 0)
					WHERE user_id = OLD.user_id;
				DELETE FROM {schema}.agno_memory_users WHERE user_id = OLD.user_id AND n <= 0;
			END IF;
			IF NEW.user_id <> '' THEN
				INSERT INTO {schema}.agno_memory_users AS u (user_id, n, last_updated) VALUES (NEW.user_id, 1, NEW.updated_at)
					ON CONFLICT (user_id) DO UPDATE SET n = u.n + 1, last_updated = GREATEST(u.last_updated, excluded.last_updated);
			END IF;
			RETURN NULL;
		END
		$$`,
		`CREATE TRIGGER agno_memories_users_added AFTER INSERT ON {schema}.agno_memories
			REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_memories_users_added()`,
		`CREATE TRIGGER agno_memories_users_removed AFTER DELETE ON {schema}.agno_memories
			REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION {schema}.agno_memories_users_removed()`,
		`CREATE TRIGGER agno_memories_user_changed AFTER UPDATE OF user_id, updated_at ON {schema}.agno_memories
			FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
			EXECUTE FUNCTION {schema}.agno_memories_user_changed()`,
		`INSERT INTO {schema}.agno_memory_users (user_id, n, last_updated)
			SELECT user_id, COUNT(*), MAX(updated_at) FROM {schema}.agno_memories WHERE user_id <> '' GROUP BY user_id`,
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
