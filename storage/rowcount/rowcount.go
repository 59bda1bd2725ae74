// Package rowcount keeps how many rows of a table each listing filter
// selects, in a counts table the database maintains by triggers in the
// writing transaction, so a listing's total_count is one read instead of
// a count of the matching rows (which grows with the table, and on
// Postgres reads the heap of rows not yet all-visible).
//
// A Spec names the filters (scopes); Statements renders the migration
// that creates the counts table, its triggers and the backfill; Lookup
// renders the read of one filter's count. Postgres keeps each count in
// shards, the writing backend's own, so concurrent writers do not queue
// on one counter row; a read sums the shards.
package rowcount

import (
	"slices"
	"strconv"
	"strings"
)

// Spec is what one table counts: each scope is the set of columns a
// listing filters by equality (an empty scope counts every row).
type Spec struct {
	Scopes [][]string
}

// Names are how the statements write the objects: SQL text, which may hold
// the caller's placeholders ({t:…}) that its migration runner expands.
type Names struct {
	Postgres bool
	// Table is the counted table and Counts the counts table.
	Table, Counts string
	// Func is the Postgres trigger function (schema-qualified).
	Func string
	// Trigger prefixes the trigger names: a bare identifier, unique in
	// the database on SQLite.
	Trigger string
}

// shards spreads a Postgres count over this many rows.
const shards = 16

// keys are the scope keys of the row alias r: the scope's index, then
// each column's text, length-prefixed so no two values collide. NULL and
// ” share a key; Lookup never asks for ”.
func (s Spec) keys(r string) []string {
	out := make([]string, len(s.Scopes))
	for i, cols := range s.Scopes {
		k := "'" + strconv.Itoa(i) + "'"
		for _, c := range cols {
			v := "COALESCE(CAST(" + r + "." + c + " AS TEXT), '')"
			k += " || ':' || length(" + v + ") || ':' || " + v
		}
		out[i] = k
	}
	return out
}

func (s Spec) columns() []string {
	var cols []string
	for _, sc := range s.Scopes {
		for _, c := range sc {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// Statements are the migration that creates n.Counts for n.Table, the
// triggers that keep it and the backfill of the rows already there.
func (s Spec) Statements(n Names) []string {
	if n.Postgres {
		return s.postgres(n)
	}
	return s.sqlite(n)
}

func (s Spec) sqlite(n Names) []string {
	values := func(r, d string) string {
		var vs []string
		for _, k := range s.keys(r) {
			vs = append(vs, "("+k+", 0, "+d+")")
		}
		return `INSERT INTO ` + n.Counts + ` (scope, shard, n) VALUES ` + strings.Join(vs, ", ") +
			` ON CONFLICT (scope, shard) DO UPDATE SET n = n + excluded.n;`
	}
	prune := func(r string) string {
		return `DELETE FROM ` + n.Counts + ` WHERE n = 0 AND shard = 0 AND scope IN (` + strings.Join(s.keys(r), ", ") + `);`
	}
	stmts := []string{
		`CREATE TABLE ` + n.Counts + ` (
			scope TEXT NOT NULL,
			shard INTEGER NOT NULL,
			n     INTEGER NOT NULL,
			PRIMARY KEY (scope, shard)
		) WITHOUT ROWID`,
		`CREATE TRIGGER ` + n.Trigger + `_ins AFTER INSERT ON ` + n.Table + ` BEGIN ` + values("NEW", "1") + ` END`,
		`CREATE TRIGGER ` + n.Trigger + `_del AFTER DELETE ON ` + n.Table + ` BEGIN ` + values("OLD", "-1") + ` ` + prune("OLD") + ` END`,
	}
	if cols := s.columns(); len(cols) > 0 {
		var changed []string
		for _, c := range cols {
			changed = append(changed, "OLD."+c+" IS NOT NEW."+c)
		}
		stmts = append(stmts, `CREATE TRIGGER `+n.Trigger+`_upd AFTER UPDATE OF `+strings.Join(cols, ", ")+` ON `+n.Table+
			` WHEN `+strings.Join(changed, " OR ")+` BEGIN `+values("OLD", "-1")+` `+prune("OLD")+` `+values("NEW", "1")+` END`)
	}
	var each []string
	for _, k := range s.keys("r") {
		each = append(each, `SELECT `+k+` AS scope FROM `+n.Table+` r`)
	}
	return append(stmts, `INSERT INTO `+n.Counts+` (scope, shard, n) SELECT scope, 0, COUNT(*) FROM (`+
		strings.Join(each, " UNION ALL ")+`) GROUP BY scope`)
}

func (s Spec) postgres(n Names) []string {
	unnest := func(r string) string {
		return `LATERAL unnest(ARRAY[` + strings.Join(s.keys(r), ", ") + `]) AS k(scope)`
	}
	shard := `pg_backend_pid() % ` + strconv.Itoa(shards)
	// Scopes in order, so two bulk writes sharing a shard do not deadlock.
	upsert := func(from string) string {
		return `INSERT INTO ` + n.Counts + ` AS c (scope, shard, n)
				SELECT scope, ` + shard + `, SUM(d) FROM (` + from + `) moves GROUP BY scope HAVING SUM(d) <> 0 ORDER BY scope
				ON CONFLICT (scope, shard) DO UPDATE SET n = c.n + excluded.n;`
	}
	added := `SELECT k.scope, 1 AS d FROM new_rows r, ` + unnest("r")
	removed := `SELECT k.scope, -1 AS d FROM old_rows r, ` + unnest("r")
	prune := `DELETE FROM ` + n.Counts + ` WHERE n = 0 AND shard = ` + shard + ` AND scope IN (SELECT k.scope FROM old_rows r, ` + unnest("r") + `);`
	stmts := []string{
		`CREATE TABLE ` + n.Counts + ` (
			scope TEXT NOT NULL,
			shard SMALLINT NOT NULL,
			n     BIGINT NOT NULL,
			PRIMARY KEY (scope, shard)
		)`,
		// One function for the three statement triggers: each reads only
		// the transition tables its event has.
		`CREATE FUNCTION ` + n.Func + `() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF TG_OP = 'INSERT' THEN
				` + upsert(added) + `
			ELSIF TG_OP = 'DELETE' THEN
				` + upsert(removed) + `
				` + prune + `
			ELSE
				` + upsert(removed+` UNION ALL `+added) + `
				` + prune + `
			END IF;
			RETURN NULL;
		END
		$$`,
		// The triggers lock the table against writes until the backfill
		// below commits: every row is counted once.
		`CREATE TRIGGER ` + n.Trigger + `_ins AFTER INSERT ON ` + n.Table +
			` REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ` + n.Func + `()`,
		`CREATE TRIGGER ` + n.Trigger + `_del AFTER DELETE ON ` + n.Table +
			` REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ` + n.Func + `()`,
	}
	if len(s.columns()) > 0 { // with no column an update moves no row between scopes
		stmts = append(stmts, `CREATE TRIGGER `+n.Trigger+`_upd AFTER UPDATE ON `+n.Table+
			` REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION `+n.Func+`()`)
	}
	return append(stmts, `INSERT INTO `+n.Counts+` (scope, shard, n) SELECT k.scope, 0, COUNT(*) FROM `+n.Table+` r, `+unnest("r")+` GROUP BY k.scope`)
}

// Eq is one equality filter of a listing.
type Eq struct {
	Col string
	Val any // string, bool or an integer
}

// Other stands in a listing's filters for one that is not an equality
// (a range, a set, a search): no scope serves them.
var Other = Eq{Col: "(other)"}

// Lookup renders the read of the count of rows whose columns equal eq
// (? placeholders on SQLite, $n on Postgres). ok is false when no scope
// has exactly eq's columns, or a value is empty or of another type: the
// caller counts the rows itself.
func (s Spec) Lookup(postgres bool, counts string, eq []Eq) (query string, args []any, ok bool) {
	vals := map[string]any{}
	for _, e := range eq {
		vals[e.Col] = e.Val
	}
	i := slices.IndexFunc(s.Scopes, func(cols []string) bool {
		return len(cols) == len(eq) && len(vals) == len(eq) && !slices.ContainsFunc(cols, func(c string) bool { _, ok := vals[c]; return !ok })
	})
	if i < 0 {
		return "", nil, false
	}
	param := func() string {
		if postgres {
			return "$" + strconv.Itoa(len(args)+1)
		}
		return "?"
	}
	key := "'" + strconv.Itoa(i) + "'"
	for _, c := range s.Scopes[i] {
		v, ok := text(postgres, vals[c])
		if !ok {
			return "", nil, false
		}
		key += " || ':' || length(CAST(" + param() + " AS TEXT))"
		args = append(args, v)
		key += " || ':' || CAST(" + param() + " AS TEXT)"
		args = append(args, v)
	}
	return `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM ` + counts + ` WHERE scope = ` + key, args, true
}

// text is v as CAST(column AS TEXT) writes it: a boolean column is 1/0 on
// SQLite, true/false on Postgres.
func text(postgres bool, v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, v != ""
	case bool:
		switch {
		case postgres:
			return strconv.FormatBool(v), true
		case v:
			return "1", true
		default:
			return "0", true
		}
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}
