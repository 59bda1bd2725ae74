package sqltools_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/go-sql-driver/mysql"

	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/sqltools" // registers "sql"
	"github.com/agno-go/agno/tool/tooltest"
)

// seed makes the people table every test reads: 12 rows.
func seed(t *testing.T, db *sql.DB, create string) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, create); err != nil {
		t.Fatal(err)
	}
	names := []string{"Ada", "Grace", "Edsger", "Barbara", "Donald", "Alan", "Niklaus", "Tony", "John", "Ken", "Dennis", "Bjarne"}
	for i, n := range names {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO people (id, name, score, joined) VALUES (%d, '%s', %d.5, '2024-01-%02d')", i+1, n, i+1, i+1)); err != nil {
			t.Fatal(err)
		}
	}
}

const sqliteCreate = `CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, score REAL DEFAULT 1.5, joined DATE)`

func sqliteDB(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "test.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seed(t, db, sqliteCreate)
	return path
}

// TestConformance checks SQLTools against agno v2.6.13's tools/sql.py on
// a SQLite file.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "sql",
		Name:    "sql_tools",
		Functions: []tooltest.Function{
			{Name: "list_tables"},
			{Name: "describe_table", Args: []string{"table_name"}},
			{Name: "run_sql_query", Args: []string{"query", "limit"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			if strings.HasSuffix(t.Name(), "/Failures") {
				// A file that is not a database: every function fails,
				// list_tables included.
				if err := os.WriteFile(filepath.Join(env.Dir, "test.db"), []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				sqliteDB(t, env.Dir)
			}
			return "db_url = \"sqlite:///test.db\"\nmax_result_bytes = 1000"
		},
		Failures: map[string][]tooltest.Call{
			"list_tables":    {{Args: `{}`, Want: "Error getting tables: file is not a database"}},
			"describe_table": {{Args: `{"table_name": "people"}`, Want: "Error getting table schema: file is not a database"}},
			"run_sql_query":  {{Args: `{"query": "SELECT * FROM people"}`, Want: "Error running query: file is not a database"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "run_sql_query", Option: "max_result_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 500) SELECT x, 'padding padding' AS pad FROM c", "limit": null}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `db_url = "ftp://x/y"`, Key: "db_url"},
			{Table: `db_url = "sqlite:///"`, Key: "db_url"},
			{Table: `db_url_env = "1BAD"`, Key: "db_url_env"},
			{Table: `db_url_env = "AGNO_TEST_SQL_UNSET_VARIABLE"`, Key: "db_url_env"},
			{Table: "db_url = \"sqlite:///x.db\"\ntimeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "db_url = \"sqlite:///x.db\"\nmax_rows = -1", Key: "max_rows"},
		},
	})
}

// dbCase is one database the behaviour tests run on.
type dbCase struct {
	// url is db_url; schema, when set, the schema option.
	url, schema string
	// columns is describe_table(people)'s answer.
	columns string
	// readOnlyErr is the database's refusal of an INSERT when read-only.
	readOnlyErr string
	// count counts the people rows with a connection of the test's own.
	count func() int
}

func build(t *testing.T, dir, table string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("sql")
	env := tool.ToolkitEnv{Dir: dir}
	opts := rt.DefaultOptions(env)
	if _, err := toml.Decode(table, opts); err != nil {
		t.Fatal(err)
	}
	if err := rt.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := rt.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.(tool.Connector).Close() })
	fns, _ := p.Functions(context.Background())
	out := map[string]*tool.Function{}
	for _, f := range fns {
		out[f.Name] = f
	}
	return out
}

func invoke(t *testing.T, f *tool.Function, raw string) string {
	t.Helper()
	args := f.DecodeArguments(raw)
	if args.Error != "" {
		t.Fatalf("%s(%s): %s", f.Name, raw, args.Error)
	}
	res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args)
	if err != nil {
		t.Fatalf("%s(%s): %v", f.Name, raw, err)
	}
	return res.Content
}

func runCase(t *testing.T, c dbCase) {
	opts := fmt.Sprintf("db_url = %q\n", c.url)
	if c.schema != "" {
		opts += fmt.Sprintf("schema = %q\n", c.schema)
	}
	dir := t.TempDir()
	fns := build(t, dir, opts)
	check := func(fn, args, want string) {
		t.Helper()
		if got := invoke(t, fns[fn], args); got != want {
			t.Errorf("%s(%s) =\n%s\nwant\n%s", fn, args, got, want)
		}
	}
	check("list_tables", `{}`, `["people"]`)
	check("describe_table", `{"table_name": "people"}`, c.columns)
	check("describe_table", `{"table_name": "nope"}`, "Error getting table schema: nope")
	// agno's default limit is 10 rows.
	got := invoke(t, fns["run_sql_query"], `{"query": "SELECT id, name, score, joined FROM people ORDER BY id"}`)
	if !strings.HasPrefix(got, `[{"id": 1, "name": "Ada", "score": 1.5, "joined": "2024-01-01"}, {"id": 2, "name": "Grace", "score": 2.5, "joined": "2024-01-02"}`) || strings.Count(got, `"id"`) != 10 {
		t.Errorf("run_sql_query: want agno's first 10 rows, got %s", got)
	}
	if got := invoke(t, fns["run_sql_query"], `{"query": "SELECT id FROM people ORDER BY id", "limit": null}`); strings.Count(got, `"id"`) != 12 {
		t.Errorf("limit null is every row, got %s", got)
	}
	check("run_sql_query", `{"query": "SELECT name FROM people ORDER BY id", "limit": 2}`, `[{"name": "Ada"}, {"name": "Grace"}]`)
	check("run_sql_query", `{"query": "SELECT name FROM people WHERE id < 0"}`, `[]`)
	if got := invoke(t, fns["run_sql_query"], `{"query": "SELEC nonsense"}`); !strings.HasPrefix(got, "Error running query: ") {
		t.Errorf("bad SQL: got %s", got)
	}

	// The database refuses writes while read_only (the default).
	if got := invoke(t, fns["run_sql_query"], `{"query": "INSERT INTO people (id, name) VALUES (100, 'Eve')"}`); !strings.HasPrefix(got, "Error running query: ") || !strings.Contains(got, c.readOnlyErr) {
		t.Errorf("a write while read-only: got %s, want the database's refusal %q", got, c.readOnlyErr)
	}
	if got := invoke(t, fns["run_sql_query"], `{"query": "DELETE FROM people"}`); !strings.HasPrefix(got, "Error running query: ") {
		t.Errorf("a delete while read-only: got %s", got)
	}
	if n := c.count(); n != 12 {
		t.Fatalf("read-only toolkit changed the table: %d rows", n)
	}

	// max_rows bounds every answer, saying so.
	capped := build(t, dir, opts+"max_rows = 5\n")
	if got := invoke(t, capped["run_sql_query"], `{"query": "SELECT id FROM people ORDER BY id", "limit": null}`); strings.Count(got, `"id"`) != 5 || !strings.Contains(got, "[only the first 5 rows") {
		t.Errorf("max_rows 5: got %s", got)
	}

	// read_only = false lets the write through and commits it.
	rw := build(t, dir, opts+"read_only = false\n")
	if got := invoke(t, rw["run_sql_query"], `{"query": "INSERT INTO people (id, name) VALUES (100, 'Eve')"}`); got != "[]" {
		t.Errorf("a write with read_only = false: got %s, want agno's []", got)
	}
	if n := c.count(); n != 13 {
		t.Errorf("after the write: %d rows, want 13", n)
	}
}

func counter(t *testing.T, driver, dsn, table string) func() int {
	return func() int {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
}

func TestSQLite(t *testing.T) {
	path := sqliteDB(t, t.TempDir())
	// ATTACH could open or create any file read-write (a URI may ask for
	// mode=rwc) or read another database: refused, writes enabled or not.
	for _, table := range []string{"", "read_only = false\n"} {
		fns := build(t, t.TempDir(), fmt.Sprintf("db_url = %q\n%s", "sqlite:///"+path, table))
		other := filepath.Join(t.TempDir(), "other.db")
		for _, q := range []string{"ATTACH DATABASE 'file:" + other + "?mode=rwc' AS o", "VACUUM INTO '" + other + "'"} {
			got := invoke(t, fns["run_sql_query"], fmt.Sprintf(`{"query": %q}`, q))
			if !strings.HasPrefix(got, "Error running query: ") {
				t.Errorf("%s (%s): %s, want the refusal", q, table, got)
			}
		}
		if _, err := os.Stat(other); err == nil {
			t.Errorf("%s was created", other)
		}
	}
	runCase(t, dbCase{
		url: "sqlite:///" + path,
		columns: `[{"name": "id", "type": "INTEGER", "nullable": true, "default": null}, {"name": "name", "type": "VARCHAR(50)", "nullable": false, "default": null}, ` +
			`{"name": "score", "type": "REAL", "nullable": true, "default": "1.5"}, {"name": "joined", "type": "DATE", "nullable": true, "default": null}]`,
		readOnlyErr: "attempt to write a readonly database",
		count:       counter(t, "sqlite", path, "people"),
	})
}

// TestPostgres runs on the server at AGNO_TEST_POSTGRES_DSN, in a fresh
// schema.
func TestPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA "` + schema + `"`); err != nil {
		t.Fatal(err)
	}
	seed(t, db, strings.Replace(`CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, score DOUBLE PRECISION DEFAULT 1.5, joined DATE)`, "people", `"`+schema+`".people`, 1)+
		`; SET search_path TO "`+schema+`"`)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	u.Scheme = "postgresql"
	runCase(t, dbCase{
		url: u.String(), schema: schema,
		columns: `[{"name": "id", "type": "INTEGER", "nullable": false, "default": null}, {"name": "name", "type": "VARCHAR(50)", "nullable": false, "default": null}, ` +
			`{"name": "score", "type": "DOUBLE PRECISION", "nullable": true, "default": "1.5"}, {"name": "joined", "type": "DATE", "nullable": true, "default": null}]`,
		readOnlyErr: "cannot execute INSERT in a read-only transaction",
		count:       counter(t, "pgx", dsn, `"`+schema+`".people`),
	})
}

// mysqlURL is the MySQL or MariaDB server of AGNO_TEST_MYSQL_URL
// (mysql://root@127.0.0.1:3306/test), with a fresh database for the
// test; without it the test skips, unless AGNO_TEST_REQUIRE_MYSQL=1.
func mysqlURL(t *testing.T) (dbURL, dsn string) {
	raw := os.Getenv("AGNO_TEST_MYSQL_URL")
	required := os.Getenv("AGNO_TEST_REQUIRE_MYSQL") == "1"
	if raw == "" {
		if required {
			t.Fatal("AGNO_TEST_REQUIRE_MYSQL=1 but AGNO_TEST_MYSQL_URL is not set")
		}
		t.Skip("AGNO_TEST_MYSQL_URL not set (mysql://root@127.0.0.1:3306/test): skipping MySQL tests")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := mysql.NewConfig()
	c.User = u.User.Username()
	c.Passwd, _ = u.User.Password()
	c.Net, c.Addr = "tcp", u.Host
	c.MultiStatements = true
	admin, err := sql.Open("mysql", c.FormatDSN())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = admin.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if required {
			t.Fatalf("MySQL at AGNO_TEST_MYSQL_URL is required but unreachable: %v", err)
		}
		t.Skipf("MySQL at AGNO_TEST_MYSQL_URL unreachable, skipping: %v", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "agno_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec("DROP DATABASE " + name)
		admin.Close()
	})
	c.DBName = name
	u.Path = "/" + name
	return u.String(), c.FormatDSN()
}

func TestMySQL(t *testing.T) {
	dbURL, dsn := mysqlURL(t)
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seed(t, db, `CREATE TABLE people (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, score DOUBLE DEFAULT 1.5, joined DATE)`)
	runCase(t, dbCase{
		url: dbURL,
		columns: `[{"name": "id", "type": "INTEGER", "nullable": false, "default": null}, {"name": "name", "type": "VARCHAR(50)", "nullable": false, "default": null}, ` +
			`{"name": "score", "type": "DOUBLE", "nullable": true, "default": "1.5"}, {"name": "joined", "type": "DATE", "nullable": true, "default": null}]`,
		readOnlyErr: "READ ONLY transaction",
		count:       counter(t, "mysql", dsn, "people"),
	})
}

// agno's SQLTools() without a database raises "Could not build the
// database connection" when built.
func TestNoDatabase(t *testing.T) {
	rt, _ := tool.LookupToolkit("sql")
	if _, err := rt.New(tool.ToolkitEnv{}, nil); err == nil || !strings.HasPrefix(err.Error(), "Could not build the database connection: set db_url") {
		t.Fatalf("New without a database: %v", err)
	}
}

// A query running past timeout_seconds is interrupted and reported.
func TestTimeout(t *testing.T) {
	path := sqliteDB(t, t.TempDir())
	fns := build(t, t.TempDir(), fmt.Sprintf("db_url = %q\ntimeout_seconds = 0.2", "sqlite:///"+path))
	got := invoke(t, fns["run_sql_query"], `{"query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT MAX(x) FROM c"}`)
	if got != "Error running query: the query did not finish within timeout_seconds (200ms)" {
		t.Errorf("got %q", got)
	}
}
