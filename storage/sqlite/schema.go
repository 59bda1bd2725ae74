package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/agno-go/agno/storage/migrate"
)

// migration brings one table to a version. Versions per table start at 1
// and only grow; a released migration is never edited, a change is a new
// version.
type migration struct {
	table   string
	version int64
	stmts   []string
}

var migrations = []migration{
	{table: "agno_sessions", version: 1, stmts: []string{
		`CREATE TABLE agno_sessions (
			session_id    TEXT PRIMARY KEY,
			session_type  TEXT NOT NULL DEFAULT '',
			agent_id      TEXT NOT NULL DEFAULT '',
			team_id       TEXT NOT NULL DEFAULT '',
			workflow_id   TEXT NOT NULL DEFAULT '',
			user_id       TEXT NOT NULL DEFAULT '',
			session_name  TEXT NOT NULL DEFAULT '',
			session_state TEXT,
			metadata      TEXT,
			summary       TEXT,
			metrics       TEXT,
			data          TEXT,
			created_at    INTEGER NOT NULL,
			updated_at    INTEGER NOT NULL,
			version       INTEGER NOT NULL
		)`,
		`CREATE INDEX agno_sessions_created_idx ON agno_sessions (created_at)`,
		`CREATE INDEX agno_sessions_updated_idx ON agno_sessions (updated_at)`,
		`CREATE INDEX agno_sessions_type_created_idx ON agno_sessions (session_type, created_at)`,
		`CREATE INDEX agno_sessions_user_idx ON agno_sessions (user_id, created_at)`,
		`CREATE INDEX agno_sessions_agent_idx ON agno_sessions (agent_id)`,
		`CREATE INDEX agno_sessions_team_idx ON agno_sessions (team_id)`,
		`CREATE INDEX agno_sessions_workflow_idx ON agno_sessions (workflow_id)`,
	}},
	{table: "agno_runs", version: 1, stmts: []string{
		// row_seq orders runs created in the same second by insertion; it
		// is an explicit column because VACUUM may renumber rowids.
		`CREATE TABLE agno_runs (
			run_id        TEXT PRIMARY KEY,
			row_seq       INTEGER NOT NULL UNIQUE,
			session_id    TEXT NOT NULL,
			parent_run_id TEXT NOT NULL DEFAULT '',
			session_type  TEXT NOT NULL DEFAULT '',
			component_id  TEXT NOT NULL DEFAULT '',
			user_id       TEXT NOT NULL DEFAULT '',
			status        TEXT NOT NULL DEFAULT '',
			created_at    INTEGER NOT NULL,
			updated_at    INTEGER NOT NULL,
			data          TEXT
		)`,
		`CREATE INDEX agno_runs_session_idx ON agno_runs (session_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_component_idx ON agno_runs (component_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_parent_idx ON agno_runs (parent_run_id, created_at, row_seq)`,
		`CREATE INDEX agno_runs_created_idx ON agno_runs (created_at, row_seq)`,
	}},
	{table: "agno_run_events", version: 1, stmts: []string{
		`CREATE TABLE agno_run_events (
			run_id TEXT NOT NULL,
			seq    INTEGER NOT NULL,
			data   TEXT NOT NULL,
			PRIMARY KEY (run_id, seq)
		) WITHOUT ROWID`,
	}},
	{table: "agno_memories", version: 1, stmts: []string{
		`CREATE TABLE agno_memories (
			memory_id  TEXT PRIMARY KEY,
			memory     TEXT NOT NULL,
			topics     TEXT,
			user_id    TEXT NOT NULL DEFAULT '',
			agent_id   TEXT NOT NULL DEFAULT '',
			team_id    TEXT NOT NULL DEFAULT '',
			input      TEXT NOT NULL DEFAULT '',
			feedback   TEXT NOT NULL DEFAULT '',
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL
		)`,
		`CREATE INDEX agno_memories_user_idx ON agno_memories (user_id, updated_at)`,
		`CREATE INDEX agno_memories_agent_idx ON agno_memories (agent_id)`,
		`CREATE INDEX agno_memories_team_idx ON agno_memories (team_id)`,
		`CREATE INDEX agno_memories_updated_idx ON agno_memories (updated_at)`,
		`CREATE INDEX agno_memories_created_idx ON agno_memories (created_at)`,
	}},
	{table: "agno_runs", version: 2, stmts: []string{
		// Replicas: the owning instance, the listing flag of in-flight runs,
		// a cancel waiting for the owner, and the version claims compare.
		`ALTER TABLE agno_runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE agno_runs ADD COLUMN listed INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE agno_runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE agno_runs ADD COLUMN version INTEGER NOT NULL DEFAULT 0`,
		`CREATE INDEX agno_runs_status_owner_idx ON agno_runs (status, owner)`,
		`CREATE INDEX agno_runs_updated_idx ON agno_runs (updated_at)`,
	}},
	{table: "agno_runs", version: 3, stmts: []string{
		// A session's top-level runs (history, listings) are one range of
		// this index: with parent_run_id after session_id, no query of a
		// session walks the top-level runs of every session.
		`DROP INDEX agno_runs_session_idx`,
		`CREATE INDEX agno_runs_session_idx ON agno_runs (session_id, parent_run_id, created_at, row_seq)`,
	}},
	{table: "agno_runs", version: 4, stmts: []string{
		// The events of a run stored in one write, as one JSON array
		// (sqlstore.InlineEvents): a row per event cost an insert each.
		`ALTER TABLE agno_runs ADD COLUMN events TEXT`,
	}},
	{table: "agno_runs", version: 5, stmts: []string{
		// A poll of other writers' changes (runs.Engine without signals)
		// leaves its own instance's out inside the index, reading no row
		// of the runs it wrote itself.
		`DROP INDEX agno_runs_updated_idx`,
		`CREATE INDEX agno_runs_updated_idx ON agno_runs (updated_at, owner)`,
	}},
	{table: "agno_sessions", version: 2, stmts: []string{
		// Each listing order ends in session_id, the tie-break, so a page is
		// read from the index in order and the read stops at the page.
		`DROP INDEX agno_sessions_created_idx`,
		`DROP INDEX agno_sessions_updated_idx`,
		`DROP INDEX agno_sessions_type_created_idx`,
		`DROP INDEX agno_sessions_user_idx`,
		`DROP INDEX agno_sessions_agent_idx`,
		`DROP INDEX agno_sessions_team_idx`,
		`DROP INDEX agno_sessions_workflow_idx`,
		`CREATE INDEX agno_sessions_created_idx ON agno_sessions (created_at, session_id)`,
		`CREATE INDEX agno_sessions_updated_idx ON agno_sessions (updated_at, session_id)`,
		`CREATE INDEX agno_sessions_type_created_idx ON agno_sessions (session_type, created_at, session_id)`,
		`CREATE INDEX agno_sessions_user_idx ON agno_sessions (user_id, created_at, session_id)`,
		`CREATE INDEX agno_sessions_agent_idx ON agno_sessions (agent_id, session_type, created_at, session_id)`,
		`CREATE INDEX agno_sessions_team_idx ON agno_sessions (team_id, session_type, created_at, session_id)`,
		`CREATE INDEX agno_sessions_workflow_idx ON agno_sessions (workflow_id, session_type, created_at, session_id)`,
	}},
	{table: "agno_sessions", version: 3, stmts: []string{
		// A session has one owner and often no user: an index of a column
		// holds only the sessions that set it, so a new session writes
		// four index entries, not seven (ListSessions says col <> '').
		`DROP INDEX agno_sessions_user_idx`,
		`DROP INDEX agno_sessions_agent_idx`,
		`DROP INDEX agno_sessions_team_idx`,
		`DROP INDEX agno_sessions_workflow_idx`,
		`CREATE INDEX agno_sessions_user_idx ON agno_sessions (user_id, created_at, session_id) WHERE user_id <> ''`,
		`CREATE INDEX agno_sessions_agent_idx ON agno_sessions (agent_id, session_type, created_at, session_id) WHERE agent_id <> ''`,
		`CREATE INDEX agno_sessions_team_idx ON agno_sessions (team_id, session_type, created_at, session_id) WHERE team_id <> ''`,
		`CREATE INDEX agno_sessions_workflow_idx ON agno_sessions (workflow_id, session_type, created_at, session_id) WHERE workflow_id <> ''`,
	}},
	{table: "agno_session_counts", version: 1, stmts: []string{
		// total_count of the session listings without reading the matching
		// rows: counts by scope ('all', 't:'+type, 'c:'+owner,
		// 'tc:'+type+':'+owner), kept by triggers in the writing transaction.
		`CREATE TABLE agno_session_counts (
			scope TEXT PRIMARY KEY,
			n     INTEGER NOT NULL
		) WITHOUT ROWID`,
		`INSERT INTO agno_session_counts (scope, n) SELECT scope, COUNT(*) FROM (SELECT 'all' AS scope FROM agno_sessions UNION ALL SELECT 't:' || session_type AS scope FROM agno_sessions UNION ALL SELECT 'c:' || (CASE session_type WHEN 'team' THEN team_id WHEN 'workflow' THEN workflow_id ELSE agent_id END) AS scope FROM agno_sessions UNION ALL SELECT 'tc:' || session_type || ':' || (CASE session_type WHEN 'team' THEN team_id WHEN 'workflow' THEN workflow_id ELSE agent_id END) AS scope FROM agno_sessions) GROUP BY scope`,
		`CREATE TRIGGER agno_sessions_counted AFTER INSERT ON agno_sessions BEGIN
			INSERT INTO agno_session_counts (scope, n) VALUES ('all', 1), ('t:' || NEW.session_type, 1), ('c:' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END), 1), ('tc:' || NEW.session_type || ':' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END), 1)
				ON CONFLICT (scope) DO UPDATE SET n = n + 1;
		END`,
		`CREATE TRIGGER agno_sessions_uncounted AFTER DELETE ON agno_sessions BEGIN
			UPDATE agno_session_counts SET n = n - 1 WHERE scope IN ('all', 't:' || OLD.session_type, 'c:' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END), 'tc:' || OLD.session_type || ':' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END));
		END`,
		`CREATE TRIGGER agno_sessions_recounted AFTER UPDATE OF session_type, agent_id, team_id, workflow_id ON agno_sessions
		WHEN OLD.session_type IS NOT NEW.session_type OR OLD.agent_id IS NOT NEW.agent_id OR OLD.team_id IS NOT NEW.team_id OR OLD.workflow_id IS NOT NEW.workflow_id BEGIN
			UPDATE agno_session_counts SET n = n - 1 WHERE scope IN ('all', 't:' || OLD.session_type, 'c:' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END), 'tc:' || OLD.session_type || ':' || (CASE OLD.session_type WHEN 'team' THEN OLD.team_id WHEN 'workflow' THEN OLD.workflow_id ELSE OLD.agent_id END));
			INSERT INTO agno_session_counts (scope, n) VALUES ('all', 1), ('t:' || NEW.session_type, 1), ('c:' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END), 1), ('tc:' || NEW.session_type || ':' || (CASE NEW.session_type WHEN 'team' THEN NEW.team_id WHEN 'workflow' THEN NEW.workflow_id ELSE NEW.agent_id END), 1)
				ON CONFLICT (scope) DO UPDATE SET n = n + 1;
		END`,
	}},
	{table: "agno_memories", version: 2, stmts: []string{
		// Each listing order ends in memory_id, the tie-break, so a page is
		// read from the index in order (either direction) and stops there.
		`DROP INDEX agno_memories_user_idx`,
		`DROP INDEX agno_memories_agent_idx`,
		`DROP INDEX agno_memories_team_idx`,
		`DROP INDEX agno_memories_updated_idx`,
		`DROP INDEX agno_memories_created_idx`,
		`CREATE INDEX agno_memories_user_idx ON agno_memories (user_id, updated_at, memory_id)`,
		`CREATE INDEX agno_memories_agent_idx ON agno_memories (agent_id, updated_at, memory_id)`,
		`CREATE INDEX agno_memories_team_idx ON agno_memories (team_id, updated_at, memory_id)`,
		`CREATE INDEX agno_memories_updated_idx ON agno_memories (updated_at, memory_id)`,
		`CREATE INDEX agno_memories_created_idx ON agno_memories (created_at, memory_id)`,
	}},
	{table: "agno_memory_counts", version: 1, stmts: []string{
		// total_count of the memory listings without reading the matching
		// rows: counts by scope ('all', 'u:'+user, 'a:'+agent, 't:'+team,
		// and a user with an agent or a team: 'ua:'/'ut:' + the user's
		// length + ':' + user + agent/team, so no two pairs share a scope),
		// kept by triggers in the writing transaction.
		`CREATE TABLE agno_memory_counts (
			scope TEXT PRIMARY KEY,
			n     INTEGER NOT NULL
		) WITHOUT ROWID`,
		`INSERT INTO agno_memory_counts (scope, n) SELECT scope, COUNT(*) FROM (SELECT 'all' AS scope FROM agno_memories m UNION ALL SELECT 'u:' || m.user_id AS scope FROM agno_memories m UNION ALL SELECT 'a:' || m.agent_id AS scope FROM agno_memories m UNION ALL SELECT 't:' || m.team_id AS scope FROM agno_memories m UNION ALL SELECT 'ua:' || length(m.user_id) || ':' || m.user_id || m.agent_id AS scope FROM agno_memories m UNION ALL SELECT 'ut:' || length(m.user_id) || ':' || m.user_id || m.team_id AS scope FROM agno_memories m) GROUP BY scope`,
		`CREATE TRIGGER agno_memories_counted AFTER INSERT ON agno_memories BEGIN
			INSERT INTO agno_memory_counts (scope, n) VALUES ('all', 1), ('u:' || NEW.user_id, 1), ('a:' || NEW.agent_id, 1), ('t:' || NEW.team_id, 1), ('ua:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.agent_id, 1), ('ut:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.team_id, 1)
				ON CONFLICT (scope) DO UPDATE SET n = n + 1;
		END`,
		`CREATE TRIGGER agno_memories_uncounted AFTER DELETE ON agno_memories BEGIN
			UPDATE agno_memory_counts SET n = n - 1 WHERE scope IN ('all', 'u:' || OLD.user_id, 'a:' || OLD.agent_id, 't:' || OLD.team_id, 'ua:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.agent_id, 'ut:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.team_id);
		END`,
		`CREATE TRIGGER agno_memories_recounted AFTER UPDATE OF user_id, agent_id, team_id ON agno_memories
		WHEN OLD.user_id IS NOT NEW.user_id OR OLD.agent_id IS NOT NEW.agent_id OR OLD.team_id IS NOT NEW.team_id BEGIN
			UPDATE agno_memory_counts SET n = n - 1 WHERE scope IN ('all', 'u:' || OLD.user_id, 'a:' || OLD.agent_id, 't:' || OLD.team_id, 'ua:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.agent_id, 'ut:' || length(OLD.user_id) || ':' || OLD.user_id || OLD.team_id);
			INSERT INTO agno_memory_counts (scope, n) VALUES ('all', 1), ('u:' || NEW.user_id, 1), ('a:' || NEW.agent_id, 1), ('t:' || NEW.team_id, 1), ('ua:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.agent_id, 1), ('ut:' || length(NEW.user_id) || ':' || NEW.user_id || NEW.team_id, 1)
				ON CONFLICT (scope) DO UPDATE SET n = n + 1;
		END`,
	}},
	{table: "agno_memory_users", version: 1, stmts: []string{
		// GET /user_memory_stats without grouping every memory: each user's
		// count and last update, kept by triggers (a delete reads the
		// user's newest remaining memory through agno_memories_user_idx).
		`CREATE TABLE agno_memory_users (
			user_id      TEXT PRIMARY KEY,
			n            INTEGER NOT NULL,
			last_updated INTEGER NOT NULL
		) WITHOUT ROWID`,
		`INSERT INTO agno_memory_users (user_id, n, last_updated)
			SELECT user_id, COUNT(*), MAX(updated_at) FROM agno_memories WHERE user_id <> '' GROUP BY user_id`,
		`CREATE INDEX agno_memory_users_last_idx ON agno_memory_users (last_updated DESC, user_id)`,
		`CREATE TRIGGER agno_memories_user_added AFTER INSERT ON agno_memories WHEN NEW.user_id <> '' BEGIN
			INSERT INTO agno_memory_users (user_id, n, last_updated) VALUES (NEW.user_id, 1, NEW.updated_at)
				ON CONFLICT (user_id) DO UPDATE SET n = n + 1, last_updated = MAX(last_updated, excluded.last_updated);
		END`,
		`CREATE TRIGGER agno_memories_user_removed AFTER DELETE ON agno_memories WHEN OLD.user_id <> '' BEGIN
			UPDATE agno_memory_users SET n = n - 1,
				last_updated = COALESCE((SELECT MAX(updated_at) FROM agno_memories WHERE user_id = OLD.user_id), 0)
				WHERE user_id = OLD.user_id;
			DELETE FROM agno_memory_users WHERE user_id = OLD.user_id AND n <= 0;
		END`,
		// A change is the old row's removal and the new row's addition.
		`CREATE TRIGGER agno_memories_user_changed AFTER UPDATE OF user_id, updated_at ON agno_memories BEGIN
			UPDATE agno_memory_users SET n = n - 1,
				last_updated = COALESCE((SELECT MAX(updated_at) FROM agno_memories WHERE user_id = OLD.user_id), 0)
				WHERE OLD.user_id <> '' AND user_id = OLD.user_id;
			DELETE FROM agno_memory_users WHERE user_id = OLD.user_id AND n <= 0;
			INSERT INTO agno_memory_users (user_id, n, last_updated) SELECT NEW.user_id, 1, NEW.updated_at WHERE NEW.user_id <> ''
				ON CONFLICT (user_id) DO UPDATE SET n = n + 1, last_updated = MAX(last_updated, excluded.last_updated);
		END`,
	}},
	{table: "agno_instances", version: 1, stmts: []string{
		// AgentOS processes and their last heartbeat (the run lease).
		`CREATE TABLE agno_instances (
			instance_id  TEXT PRIMARY KEY,
			heartbeat_at INTEGER NOT NULL,
			started_at   INTEGER NOT NULL
		) WITHOUT ROWID`,
	}},
	{table: "agno_blobs", version: 1, stmts: []string{
		// Uploaded files, outside the run rows, a row per chunk.
		`CREATE TABLE agno_blobs (
			blob_id    TEXT NOT NULL,
			seq        INTEGER NOT NULL,
			session_id TEXT NOT NULL,
			data       BLOB NOT NULL,
			PRIMARY KEY (blob_id, seq)
		) WITHOUT ROWID`,
		`CREATE INDEX agno_blobs_session_idx ON agno_blobs (session_id)`,
	}},
}

// errForeignSchema reports tables this package did not create.
var errForeignSchema = errors.New("sqlite: the database holds agno tables in a layout this store does not know " +
	"(made by Python agno or a newer agno-go?); point Config.Path at another file")

// runMigrations brings the schema to the versions in ms inside the write
// transaction tx and returns how many migrations it applied. The versions
// table is shared with the control plane (storage/sqldb).
func runMigrations(ctx context.Context, tx *sql.Tx, ms []migration) (int, error) {
	plan := migrate.Plan{
		Name:     "sqlite",
		Versions: "agno_schema_versions",
		Foreign:  errForeignSchema,
		Exists: func(ctx context.Context, tx migrate.Tx, table string) (bool, error) {
			return migrate.HasRow(ctx, tx, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1`, table)
		},
	}
	out := make([]migrate.Migration, len(ms))
	for i, m := range ms {
		out[i] = migrate.Migration{Table: m.table, Version: m.version, Stmts: m.stmts}
	}
	return migrate.Run(ctx, migrate.SQL(tx), plan, out)
}
