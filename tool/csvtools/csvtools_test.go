package csvtools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/csvtools" // registers "csv_toolkit"
	"github.com/agno-go/agno/tool/tooltest"
)

// people.csv as Excel writes it: a BOM, CRLF, a quoted field with a comma,
// an empty value, a short row and a long one.
const peopleCSV = "\ufeffname,age,city\r\nAda,36,London\r\nGrace,85,\"New York, NY\"\r\nAlan,41,\r\nEdsger,72\r\nTony,90,Oxford,extra\r\n"

func files(t *testing.T, dir string) string {
	t.Helper()
	var big strings.Builder
	big.WriteString("id,text\n")
	for i := range 200 {
		fmt.Fprintf(&big, "%d,some text to fill the file\n", i)
	}
	for name, body := range map[string]string{"people.csv": peopleCSV, "big.csv": big.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return `csvs = ["people.csv", "big.csv"]`
}

// TestConformance checks CsvTools against agno v2.6.13's
// tools/csv_toolkit.py.
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "csv_toolkit",
		Name:    "csv_tools",
		Functions: []tooltest.Function{
			{Name: "read_csv_file", Args: []string{"csv_name", "row_limit"}},
			{Name: "list_csv_files"},
			{Name: "get_columns", Args: []string{"csv_name"}},
			{Name: "query_csv_file", Args: []string{"csv_name", "sql_query"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			return files(t, env.Dir) + "\nmax_result_bytes = 1000"
		},
		Failures: map[string][]tooltest.Call{
			"read_csv_file": {{Args: `{"csv_name": "nope"}`, Want: `File: nope not found, please use one of ["people", "big"]`}},
			// agno's list_csv_files cannot fail: it lists the configured names.
			"list_csv_files": {{Args: `{}`, Want: `["people", "big"]`}},
			"get_columns":    {{Args: `{"csv_name": "nope"}`, Want: `File: nope not found, please use one of ["people", "big"]`}},
			"query_csv_file": {
				{Args: `{"csv_name": "people", "sql_query": "SELEC nonsense"}`, Want: "Error querying csv: "},
				{Args: `{"csv_name": "people", "sql_query": "DELETE FROM people"}`, Want: "Error querying csv: attempt to write a readonly database"},
			},
		},
		Oversized: &tooltest.Oversized{
			Function: "read_csv_file", Option: "max_result_bytes", Limit: 1000,
			Call: tooltest.Call{Args: `{"csv_name": "big"}`, Want: "[output truncated"},
		},
		BadOptions: []tooltest.BadOption{
			{Table: `csvs = ["missing.csv"]`, Key: "csvs[0]"},
			{Table: `row_limit = -1`, Key: "row_limit"},
			{Table: "timeout_seconds = 0", Key: "timeout_seconds"},
			{Table: "max_file_bytes = -1", Key: "max_file_bytes"},
		},
	})
}

func build(t *testing.T, dir, table string) map[string]*tool.Function {
	t.Helper()
	rt, _ := tool.LookupToolkit("csv_toolkit")
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
	fns, _ := p.Functions(context.Background())
	out := map[string]*tool.Function{}
	for _, f := range fns {
		out[f.Name] = f
	}
	return out
}

func TestResults(t *testing.T) {
	dir := t.TempDir()
	opts := files(t, dir)
	fns := build(t, dir, opts)
	check := func(fns map[string]*tool.Function, fn, args, want string) {
		t.Helper()
		f := fns[fn]
		a := f.DecodeArguments(args)
		if a.Error != "" {
			t.Fatal(a.Error)
		}
		res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, a)
		if err != nil {
			t.Fatal(err)
		}
		if res.Content != want {
			t.Errorf("%s(%s) =\n%s\nwant\n%s", fn, args, res.Content, want)
		}
	}
	check(fns, "list_csv_files", `{}`, `["people", "big"]`)
	check(fns, "get_columns", `{"csv_name": "people"}`, `["name", "age", "city"]`)
	// csv.DictReader's rows: a short row's missing values are None, a long
	// row's surplus goes under the key None.
	check(fns, "read_csv_file", `{"csv_name": "people"}`,
		`[{"name": "Ada", "age": "36", "city": "London"}, {"name": "Grace", "age": "85", "city": "New York, NY"}, {"name": "Alan", "age": "41", "city": ""}, `+
			`{"name": "Edsger", "age": "72", "city": null}, {"name": "Tony", "age": "90", "city": "Oxford", "null": ["extra"]}]`)
	check(fns, "read_csv_file", `{"csv_name": "people", "row_limit": 1}`, `[{"name": "Ada", "age": "36", "city": "London"}]`)
	check(fns, "read_csv_file", `{"csv_name": "people", "row_limit": -4}`, `[{"name": "Ada", "age": "36", "city": "London"}]`)
	// Columns are typed by their values, so age compares as a number.
	check(fns, "query_csv_file", `{"csv_name": "people", "sql_query": "SELECT name, age FROM people WHERE age > 50 ORDER BY age; DROP TABLE people"}`,
		"name,age\nEdsger,72\nGrace,85\nTony,90")
	check(fns, "query_csv_file", "{\"csv_name\": \"people\", \"sql_query\": \"SELECT COUNT(*) AS n FROM `people`\"}", "n\n5")
	check(fns, "query_csv_file", `{"csv_name": "people", "sql_query": "SELECT AVG(age) AS a, MAX(city) AS c, NULL AS z FROM people"}`, "a,c,z\n64.8,Oxford,None")

	limited := build(t, dir, opts+"\nrow_limit = 2")
	if got := len(strings.Split(func() string {
		f := limited["read_csv_file"]
		a := f.DecodeArguments(`{"csv_name": "people"}`)
		r, _ := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, a)
		return r.Content
	}(), "}, {")); got != 2 {
		t.Errorf("row_limit = 2 gave %d rows", got)
	}

	other := filepath.Join(t.TempDir(), "other.db")
	if got := func() string {
		f := fns["query_csv_file"]
		a := f.DecodeArguments(fmt.Sprintf(`{"csv_name": "people", "sql_query": %q}`, "ATTACH DATABASE 'file:"+other+"?mode=rwc' AS o"))
		r, _ := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, a)
		return r.Content
	}(); !strings.HasPrefix(got, "Error querying csv: ") {
		t.Errorf("ATTACH: %s, want the refusal", got)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("ATTACH created %s", other)
	}

	slow := build(t, dir, opts+"\ntimeout_seconds = 0.2")
	check(slow, "query_csv_file", `{"csv_name": "people", "sql_query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT MAX(x) FROM c"}`,
		"Error querying csv: the query did not finish within timeout_seconds (200ms)")

	tiny := build(t, dir, opts+"\nmax_file_bytes = 100")
	check(tiny, "query_csv_file", `{"csv_name": "big", "sql_query": "SELECT 1"}`, "Error querying csv: big.csv is larger than max_file_bytes (100) of [toolkits.csv_toolkit]")
}
