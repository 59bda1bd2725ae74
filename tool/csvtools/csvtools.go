// Package csvtools is agno's CsvTools: list_csv_files, read_csv_file,
// get_columns and query_csv_file over the CSV files an operator lists.
// agno runs query_csv_file on DuckDB; here the file is loaded into an
// in-memory SQLite database (columns typed INTEGER, REAL or TEXT by
// their values, as DuckDB's auto-detection types them), made read-only
// with query_only before the model's query runs; ATTACH is refused.
//
//	[toolkits.csv_toolkit]
//	csvs = ["data/orders.csv", "data/customers.csv"]   # relative to the config file
//	row_limit = 100
//
//	# an agent: tools = ["csv_toolkit"]
package csvtools

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/sqlitero"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "csv_tools".
const ToolkitName = "csv_toolkit"

// Defaults of the bounds.
const (
	DefaultMaxResultBytes = 64 << 10
	DefaultMaxFileBytes   = 32 << 20
	defaultTimeout        = 30 * time.Second
)

// Config configures New.
type Config struct {
	// CSVs are the files' paths; a file is named by its stem.
	CSVs []string
	// RowLimit is read_csv_file's limit when the model gives none (0: all).
	RowLimit int

	EnableReadCSVFile, EnableListCSVFiles, EnableGetColumns, EnableQueryCSVFile, All bool
	Include, Exclude                                                                 []string

	Timeout        time.Duration
	MaxResultBytes int
	MaxFileBytes   int64
}

type toolkit struct {
	cfg Config
}

type readArgs struct {
	CSVName  string `json:"csv_name" description:"(str) The name of the csv file to read without the extension."`
	RowLimit *int   `json:"row_limit,omitempty" description:"(Optional[int]) The number of rows to return. None returns all rows. Defaults to None."`
}

type columnsArgs struct {
	CSVName string `json:"csv_name" description:"(str) The name of the csv file to get the columns from without the extension."`
}

type queryArgs struct {
	CSVName  string `json:"csv_name" description:"(str) The name of the csv file to query"`
	SQLQuery string `json:"sql_query" description:"(str) The SQL Query to run on the csv file."`
}

// queryDescription is agno's docstring of query_csv_file, as its parser
// joins it (the \" of the Python source is a plain quote).
const queryDescription = "Use this function to run a SQL query on csv file `csv_name` without the extension.\n" +
	"The Table name is the name of the csv file without the extension.\n" +
	"The SQL Query should be a valid DuckDB SQL query.\n" +
	"Always wrap column names with double quotes if they contain spaces or special characters\n" +
	"Remember to escape the quotes in th e JSON string (use \")\n" +
	"Use single quotes for string values"

// New builds agno's CsvTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	tk := &toolkit{cfg: cfg}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableReadCSVFile)(tool.New("read_csv_file", "Use this function to read the contents of a csv file `name` without the extension.", tk.read))
	fns.If(cfg.EnableListCSVFiles)(tool.New("list_csv_files", "Returns a list of available csv files", tk.list))
	fns.If(cfg.EnableGetColumns)(tool.New("get_columns", "Use this function to get the columns of the csv file `csv_name` without the extension.", tk.columns))
	fns.If(cfg.EnableQueryCSVFile)(tool.New("query_csv_file", queryDescription, tk.query))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "csv_tools", Functions: list, Include: cfg.Include, Exclude: cfg.Exclude})
}

func stem(p string) string {
	b := filepath.Base(p)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

func (tk *toolkit) names() string {
	stems := make([]string, len(tk.cfg.CSVs))
	for i, p := range tk.cfg.CSVs {
		stems[i] = stem(p)
	}
	s, _ := pyjson.Dumps(stems)
	return s
}

func (tk *toolkit) list(context.Context, struct{}) (string, error) { return tk.bound(tk.names()), nil }

// path is the file named csv_name, or agno's not-found text.
func (tk *toolkit) path(name string) (string, string) {
	for _, p := range tk.cfg.CSVs {
		if stem(p) == name {
			return p, ""
		}
	}
	return "", fmt.Sprintf("File: %s not found, please use one of %s", name, tk.names())
}

func (tk *toolkit) bound(s string) string {
	max := tk.cfg.MaxResultBytes
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown (max_result_bytes is %d)]", cut, len(s), max)
}

// load reads the file (at most max_file_bytes) as Python's csv module
// with utf-8-sig does: the BOM dropped, blank lines skipped.
func (tk *toolkit) load(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, tk.cfg.MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > tk.cfg.MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than max_file_bytes (%d) of [toolkits.csv_toolkit]", filepath.Base(path), tk.cfg.MaxFileBytes)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	return r.ReadAll()
}

// dictRow is a csv.DictReader row: the header's keys in order, None for
// a missing field, surplus fields under the key None (JSON null → "null").
type dictRow struct {
	keys []string
	vals []any
}

func (d dictRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(d.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (tk *toolkit) read(_ context.Context, a readArgs) (string, error) {
	p, missing := tk.path(a.CSVName)
	if missing != "" {
		return missing, nil
	}
	recs, err := tk.load(p)
	if err != nil {
		return "Error reading csv: " + err.Error(), nil
	}
	limit := tk.cfg.RowLimit
	if a.RowLimit != nil && *a.RowLimit != 0 {
		limit = *a.RowLimit // agno: row_limit or self.row_limit
	}
	rows := []any{}
	if len(recs) > 0 {
		header, data := recs[0], recs[1:]
		if limit != 0 {
			data = pySlice(data, limit)
		}
		size := 0
		for _, rec := range data {
			d := dictRow{}
			for i, k := range header {
				d.keys = append(d.keys, k)
				if i < len(rec) {
					d.vals = append(d.vals, rec[i])
				} else {
					d.vals = append(d.vals, nil)
				}
			}
			if len(rec) > len(header) {
				extra := make([]any, 0, len(rec)-len(header))
				for _, v := range rec[len(header):] {
					extra = append(extra, v)
				}
				d.keys = append(d.keys, "null")
				d.vals = append(d.vals, extra)
			}
			rows = append(rows, d)
			for _, v := range rec {
				size += len(v) + 8
			}
			if size > tk.cfg.MaxResultBytes*2 {
				break // the rest would be cut anyway
			}
		}
	}
	s, err := pyjson.Dumps(rows)
	if err != nil {
		return "Error reading csv: " + err.Error(), nil
	}
	return tk.bound(s), nil
}

// pySlice is Python's l[:n].
func pySlice[T any](l []T, n int) []T {
	if n < 0 {
		n = max(len(l)+n, 0)
	}
	return l[:min(n, len(l))]
}

func (tk *toolkit) columns(_ context.Context, a columnsArgs) (string, error) {
	p, missing := tk.path(a.CSVName)
	if missing != "" {
		return missing, nil
	}
	recs, err := tk.load(p)
	if err != nil {
		return "Error getting columns: " + err.Error(), nil
	}
	if len(recs) == 0 {
		return "null", nil // DictReader.fieldnames of an empty file
	}
	s, err := pyjson.Dumps(recs[0])
	if err != nil {
		return "Error getting columns: " + err.Error(), nil
	}
	return tk.bound(s), nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// colType is the SQLite type of a column by its non-empty values.
func colType(recs [][]string, i int) string {
	isInt, isReal, any := true, true, false
	for _, r := range recs {
		if i >= len(r) || r[i] == "" {
			continue
		}
		any = true
		if _, err := strconv.ParseInt(r[i], 10, 64); err != nil {
			isInt = false
		}
		if _, err := strconv.ParseFloat(r[i], 64); err != nil {
			isReal = false
		}
	}
	switch {
	case !any:
		return "TEXT"
	case isInt:
		return "INTEGER"
	case isReal:
		return "REAL"
	}
	return "TEXT"
}

func (tk *toolkit) query(ctx context.Context, a queryArgs) (string, error) {
	p, missing := tk.path(a.CSVName)
	if missing != "" {
		return missing, nil
	}
	tctx, cancel := context.WithTimeout(ctx, tk.cfg.Timeout)
	defer cancel()
	out, err := tk.runQuery(tctx, p, a.CSVName, a.SQLQuery)
	if err != nil {
		if ctx.Err() == nil && tctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("the query did not finish within timeout_seconds (%s)", tk.cfg.Timeout)
		}
		return "Error querying csv: " + err.Error(), nil
	}
	return out, nil
}

func (tk *toolkit) runQuery(ctx context.Context, path, table, query string) (string, error) {
	recs, err := tk.load(path)
	if err != nil {
		return "", err
	}
	if len(recs) == 0 {
		return "", fmt.Errorf("%s has no header row", filepath.Base(path))
	}
	ctx, cancel := context.WithTimeout(ctx, tk.cfg.Timeout)
	defer cancel()
	// The guarded driver refuses ATTACH, so the query reaches no file.
	db, err := sql.Open(sqlitero.DriverName, ":memory:")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	header, data := recs[0], recs[1:]
	defs := make([]string, len(header))
	types := make([]string, len(header))
	for i, h := range header {
		types[i] = colType(data, i)
		defs[i] = quoteIdent(h) + " " + types[i]
	}
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+quoteIdent(table)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return "", err
	}
	if len(data) > 0 {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return "", err
		}
		st, err := tx.PrepareContext(ctx, "INSERT INTO "+quoteIdent(table)+" VALUES ("+strings.TrimSuffix(strings.Repeat("?, ", len(header)), ", ")+")")
		if err != nil {
			_ = tx.Rollback()
			return "", err
		}
		args := make([]any, len(header))
		for _, r := range data {
			for i := range header {
				switch {
				case i >= len(r) || r[i] == "":
					args[i] = nil
				case types[i] == "INTEGER":
					args[i], _ = strconv.ParseInt(r[i], 10, 64)
				case types[i] == "REAL":
					args[i], _ = strconv.ParseFloat(r[i], 64)
				default:
					args[i] = r[i]
				}
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				_ = tx.Rollback()
				return "", err
			}
		}
		st.Close()
		if err := tx.Commit(); err != nil {
			return "", err
		}
	}
	// From here the database refuses writes.
	if _, err := conn.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
		return "", err
	}
	// agno's formatting: backticks removed, only the first statement.
	q, _, _ := strings.Cut(strings.ReplaceAll(query, "`", ""), ";")
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	size := 0
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = pyStr(v)
		}
		line := strings.Join(parts, ",")
		lines = append(lines, line)
		if size += len(line) + 1; size > tk.cfg.MaxResultBytes {
			break // the rest would be cut anyway
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return tk.bound(strings.Join(cols, ",") + "\n" + strings.Join(lines, "\n")), nil
}

// pyStr is Python's str() of a value DuckDB hands back.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return pyrepr.Float(x)
	case string:
		return x
	case []byte:
		return string(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return fmt.Sprint(v)
}
