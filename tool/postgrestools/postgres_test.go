package postgrestools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/storage/postgres/pgtest"
	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/postgrestools" // registers "postgres"
	"github.com/agno-go/agno/tool/tooltest"
)

// database makes a fresh schema with the people table (12 rows) on the
// server at AGNO_TEST_POSTGRES_DSN.
func database(t *testing.T) (dsn, schema string) {
	t.Helper()
	dsn = pgtest.DSN(t)
	schema = pgtest.Schema(t, dsn)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	s := pgx.Identifier{schema}.Sanitize()
	stmts := []string{
		"CREATE SCHEMA " + s,
		"CREATE TABLE " + s + ".people (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, score DOUBLE PRECISION, joined DATE, balance NUMERIC(10, 2))",
	}
	names := []string{"Ada", "Grace", "Edsger", "Barbara", "Donald", "Alan", "Niklaus", "Tony", "John", "Ken", "Dennis", "Bjarne"}
	for i, n := range names {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.people VALUES (%d, '%s', %d.5, '2024-01-%02d', %d.50)", s, i+1, n, i+1, i+1, (i+1)*10))
	}
	for _, st := range stmts {
		if _, err := conn.Exec(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	return dsn, schema
}

// TestConformance checks PostgresTools against agno v2.6.13's
// tools/postgres.py on a real server.
func TestConformance(t *testing.T) {
	pgtest.DSN(t) // skips without a server, before the suite starts
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "postgres",
		Name:    "postgres_tools",
		Functions: []tooltest.Function{
			{Name: "show_tables"},
			{Name: "describe_table", Args: []string{"table"}},
			{Name: "summarize_table", Args: []string{"table"}},
			{Name: "inspect_query", Args: []string{"query"}},
			{Name: "run_query", Args: []string{"query"}},
			{Name: "export_table_to_path", Args: []string{"table", "path"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			if strings.HasSuffix(t.Name(), "/Failures") {
				// A server that is not there: every function fails.
				return "dsn = \"postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=5\"\nmax_result_bytes = 1000"
			}
			dsn, schema := database(t)
			return fmt.Sprintf("dsn = %q\ntable_schema = %q\nmax_result_bytes = 1000", dsn, schema)
		},
		Failures: map[string][]tooltest.Call{
			"show_tables":          {{Args: `{}`, Want: "Error executing query: "}},
			"describe_table":       {{Args: `{"table": "people"}`, Want: "Error executing query: "}},
			"summarize_table":      {{Args: `{"table": "people"}`, Want: "Error summarizing table: "}},
			"inspect_query":        {{Args: `{"query": "SELECT 1"}`, Want: "Error executing query: "}},
			"run_query":            {{Args: `{"query": "SELECT 1"}`, Want: "Error executing query: "}},
			"export_table_to_path": {{Args: `{"table": "people", "path": "people.csv"}`, Want: "Error exporting table: "}},
		},
		Oversized: &tooltest.Oversized{
			Function: "run_query", Option: "max_result_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"query": "SELECT x, 'padding padding' AS pad FROM generate_series(1, 500) AS x"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `dsn = "host=x port=notaport"`, Key: "dsn"},
			{Table: `password_env = "1BAD"`, Key: "password_env"},
			{Table: `port = 70000`, Key: "port"},
			{Table: `table_schema = ""`, Key: "table_schema"},
			{Table: "timeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "max_rows = -1", Key: "max_rows"},
			{Table: "max_export_bytes = -1", Key: "max_export_bytes"},
		},
	})
}

func build(t *testing.T, dir, table string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("postgres")
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

func TestResults(t *testing.T) {
	dsn, schema := database(t)
	dir := t.TempDir()
	opts := fmt.Sprintf("dsn = %q\ntable_schema = %q\n", dsn, schema)
	fns := build(t, dir, opts)
	check := func(fn, args, want string) {
		t.Helper()
		if got := invoke(t, fns[fn], args); got != want {
			t.Errorf("%s(%s) =\n%q\nwant\n%q", fn, args, got, want)
		}
	}
	check("show_tables", `{}`, "table_name\npeople")
	check("describe_table", `{"table": "people"}`, "column_name,data_type,is_nullable\nid,integer,NO\nname,character varying,NO\nscore,double precision,YES\njoined,date,YES\nbalance,numeric,YES")
	check("describe_table", `{"table": "nope"}`, "Query returned no results.\nColumns: column_name, data_type, is_nullable")
	// Unqualified names resolve in table_schema (agno's search_path).
	check("run_query", `{"query": "SELECT id, name, score, joined, balance, score > 2 AS big, NULL AS nothing FROM people ORDER BY id LIMIT 2"}`,
		"id,name,score,joined,balance,big,nothing\n1,Ada,1.5,2024-01-01,10.50,False,None\n2,Grace,2.5,2024-01-02,20.50,True,None")
	check("run_query", `{"query": "SELECT id FROM people WHERE id < 0"}`, "Query returned no results.\nColumns: id")
	check("run_query", `{"query": "SELECT * FROM nope"}`, `Error executing query: relation "nope" does not exist`)
	check("run_query", `{"query": "INSERT INTO people (id, name) VALUES (100, 'Eve')"}`, "Error executing query: cannot execute INSERT in a read-only transaction")
	// A statement cannot widen the read-only transaction for another: one
	// statement a call, each call its own READ ONLY transaction.
	check("run_query", `{"query": "SET TRANSACTION READ WRITE; INSERT INTO people (id, name) VALUES (100, 'Eve')"}`, "Error executing query: cannot insert multiple commands into a prepared statement")
	check("run_query", `{"query": "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE"}`, "SET")
	check("run_query", `{"query": "DELETE FROM people"}`, "Error executing query: cannot execute DELETE in a read-only transaction")
	if got := invoke(t, fns["inspect_query"], `{"query": "SELECT * FROM people"}`); !strings.HasPrefix(got, "QUERY PLAN\nSeq Scan on people") {
		t.Errorf("inspect_query: %q", got)
	}
	sum := invoke(t, fns["summarize_table"], `{"table": "people"}`)
	for _, want := range []string{
		"Summary for table: people\n\n\n--- Column: id (Type: integer) ---\n  total_rows: 12\n  non_null_rows: 12\n  min: 1\n  max: 12\n  average: 6.5000000000000000\n  std_deviation: 3.6055512754639893\n",
		"--- Column: name (Type: character varying) ---\n  total_rows: 12\n  non_null_rows: 12\n  unique_values: 12\n  avg_length: 5.0833333333333333",
		// A float column: agno's f"{value:.2f}".
		"--- Column: score (Type: double precision) ---\n  total_rows: 12\n  non_null_rows: 12\n  min: 1.50\n  max: 12.50\n  average: 7.00\n  std_deviation: 3.61",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summarize_table lacks\n%s\nin\n%s", want, sum)
		}
	}
	if strings.Contains(sum, "joined") {
		t.Errorf("summarize_table: a date column has no statistics in agno: %s", sum)
	}
	check("summarize_table", `{"table": "nope"}`, fmt.Sprintf("Error: Table 'nope' not found in schema '%s'.", schema))

	check("export_table_to_path", `{"table": "people", "path": "people.csv"}`, "Successfully exported table 'people' to 'people.csv'.")
	b, err := os.ReadFile(filepath.Join(dir, "people.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "id,name,score,joined,balance\r\n1,Ada,1.5,2024-01-01,10.50\r\n") || strings.Count(string(b), "\r\n") != 13 {
		t.Errorf("export: Python csv.writer's form expected, got %q", b)
	}
	for _, p := range []string{"../escape.csv", "/etc/agno-escape.csv"} {
		if got := invoke(t, fns["export_table_to_path"], fmt.Sprintf(`{"table": "people", "path": %q}`, p)); !strings.HasPrefix(got, "Error exporting table: path") {
			t.Errorf("export to %s: %s", p, got)
		}
	}

	capped := build(t, dir, opts+"max_rows = 3\n")
	if got := invoke(t, capped["run_query"], `{"query": "SELECT id FROM people ORDER BY id"}`); got != "id\n1\n2\n3\n[only the first 3 rows: max_rows of [toolkits.postgres] bounds a result]" {
		t.Errorf("max_rows 3: %q", got)
	}
	small := build(t, dir, opts+"max_export_bytes = 100\n")
	if got := invoke(t, small["export_table_to_path"], `{"table": "people", "path": "big.csv"}`); !strings.Contains(got, "max_export_bytes") {
		t.Errorf("max_export_bytes 100: %q", got)
	}

	rw := build(t, dir, opts+"read_only = false\n")
	check2 := invoke(t, rw["run_query"], `{"query": "INSERT INTO people (id, name) VALUES (100, 'Eve')"}`)
	if check2 != "INSERT 0 1" {
		t.Errorf("a write with read_only = false: %q, want psycopg's statusmessage", check2)
	}
	if got := invoke(t, fns["run_query"], `{"query": "SELECT COUNT(*) FROM people"}`); got != "count\n13" {
		t.Errorf("after the write: %q", got)
	}
}

// A query running past timeout_seconds is cancelled and reported.
func TestTimeout(t *testing.T) {
	dsn, schema := database(t)
	fns := build(t, t.TempDir(), fmt.Sprintf("dsn = %q\ntable_schema = %q\ntimeout_seconds = 0.2", dsn, schema))
	if got := invoke(t, fns["run_query"], `{"query": "SELECT pg_sleep(5)"}`); got != "Error executing query: the query did not finish within timeout_seconds (200ms)" {
		t.Errorf("got %q", got)
	}
}
