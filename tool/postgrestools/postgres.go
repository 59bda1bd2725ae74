// Package postgrestools is agno's PostgresTools: show_tables,
// describe_table, summarize_table, inspect_query, run_query and
// export_table_to_path on one PostgreSQL database through pgx. As in
// agno the session is read-only (every statement runs in a READ ONLY
// transaction, and default_transaction_read_only is on) unless
// read_only = false; results are agno's CSV-like text, bounded in rows
// and bytes; exports stay inside export_dir. Use a role without write
// privileges too: a READ ONLY transaction does not stop a superuser's
// COPY ... TO a server file.
//
//	[toolkits.postgres]
//	host = "db"
//	db_name = "sales"
//	user = "reader"
//	password_env = "SALES_DB_PASSWORD"
//	table_schema = "public"
//
//	# an agent: tools = ["postgres"]
package postgrestools

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "postgres_tools".
const ToolkitName = "postgres"

// Defaults of the bounds.
const (
	DefaultMaxRows        = 1000
	DefaultMaxResultBytes = 64 << 10
	DefaultMaxExportBytes = 64 << 20
	defaultTimeout        = 30 * time.Second
)

// Config configures New.
type Config struct {
	// DSN is a libpq connection string or URL ("" : the PG* environment
	// variables, as psycopg reads them); the fields below override it.
	DSN                          string
	DBName, User, Password, Host string
	Port                         uint16
	TableSchema                  string
	ReadOnly                     bool
	Include, Exclude             []string
	ExportDir                    string
	Timeout                      time.Duration
	MaxRows, MaxResultBytes      int
	MaxExportBytes               int64
}

// Toolkit is PostgresTools: a tool.Connector whose Close releases the
// pool; a call after Close opens it again.
type Toolkit struct {
	*tool.Toolkit
	cfg    *pgxpool.Config
	schema string
	ro     bool
	dir    string
	cfgv   Config

	mu   sync.Mutex
	pool *pgxpool.Pool
}

var _ tool.Connector = (*Toolkit)(nil)

type tableArgs struct {
	Table string `json:"table" description:"The name of the table to describe."`
}

type summarizeArgs struct {
	Table string `json:"table" description:"The name of the table to summarize."`
}

type inspectArgs struct {
	Query string `json:"query" description:"The SQL query to inspect."`
}

type runArgs struct {
	Query string `json:"query" description:"The SQL query to run."`
}

type exportArgs struct {
	Table string `json:"table" description:"The name of the table to export."`
	Path  string `json:"path" description:"The local file path to save the file."`
}

// New builds agno's PostgresTools; no connection is made until a call.
func New(cfg Config) (*Toolkit, error) {
	pc, err := pgxpool.ParseConfig(cfg.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: dsn: %w", err)
	}
	cc := pc.ConnConfig
	if cfg.Host != "" {
		cc.Host = cfg.Host
	}
	if cfg.Port != 0 {
		cc.Port = cfg.Port
	}
	if cfg.User != "" {
		cc.User = cfg.User
	}
	if cfg.Password != "" {
		cc.Password = cfg.Password
	}
	if cfg.DBName != "" {
		cc.Database = cfg.DBName
	}
	if cfg.TableSchema == "" {
		cfg.TableSchema = "public"
	}
	// agno connects with options="-c search_path=<table_schema>".
	cc.RuntimeParams["search_path"] = pgx.Identifier{cfg.TableSchema}.Sanitize()
	if cfg.ReadOnly {
		cc.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pc.MaxConns = 4
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxExportBytes <= 0 {
		cfg.MaxExportBytes = DefaultMaxExportBytes
	}
	tk := &Toolkit{cfg: pc, schema: cfg.TableSchema, ro: cfg.ReadOnly, dir: cfg.ExportDir, cfgv: cfg}
	var fns []*tool.Function
	var errs []error
	add := func(f *tool.Function, err error) { fns = append(fns, f); errs = append(errs, err) }
	add(tool.New("show_tables", "Lists all tables in the configured schema.", tk.showTables))
	add(tool.New("describe_table", "Provides the schema (column name, data type, is nullable) for a given table.", tk.describeTable))
	add(tool.New("summarize_table", "Computes and returns key summary statistics for a table's columns.", tk.summarizeTable))
	add(tool.New("inspect_query", "Shows the execution plan for a SQL query (using EXPLAIN).", tk.inspectQuery))
	add(tool.New("run_query", "Runs a read-only SQL query and returns the result.", tk.runQuery))
	add(tool.New("export_table_to_path", "Exports a table's data to a local CSV file.", tk.exportTable))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	tk.Toolkit, err = tool.NewToolkit(tool.ToolkitConfig{Name: "postgres_tools", Functions: fns, Include: cfg.Include, Exclude: cfg.Exclude})
	if err != nil {
		return nil, err
	}
	return tk, nil
}

// Connect creates the pool (connections are made on use).
func (tk *Toolkit) Connect(context.Context) error {
	_, err := tk.getPool()
	return err
}

// Close releases the pool.
func (tk *Toolkit) Close() error {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.pool != nil {
		tk.pool.Close()
		tk.pool = nil
	}
	return nil
}

func (tk *Toolkit) getPool() (*pgxpool.Pool, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.pool == nil {
		p, err := pgxpool.NewWithConfig(context.Background(), tk.cfg)
		if err != nil {
			return nil, err
		}
		tk.pool = p
	}
	return tk.pool, nil
}

// inTx runs f in a transaction, READ ONLY unless writes are enabled,
// committed only when they are.
func (tk *Toolkit) inTx(ctx context.Context, f func(context.Context, pgx.Tx) error) error {
	pool, err := tk.getPool()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, tk.cfgv.Timeout)
	defer cancel()
	mode := pgx.ReadWrite
	if tk.ro {
		mode = pgx.ReadOnly
	}
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: mode})
	if err != nil {
		return tk.ctxErr(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if err := f(ctx, tx); err != nil {
		return tk.ctxErr(ctx, err)
	}
	if !tk.ro {
		return tk.ctxErr(ctx, tx.Commit(ctx))
	}
	return nil
}

func (tk *Toolkit) ctxErr(ctx context.Context, err error) error {
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("the query did not finish within timeout_seconds (%s)", tk.cfgv.Timeout)
	}
	return err
}

// errText is str() of psycopg's error: the server's message.
func errText(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

func (tk *Toolkit) bound(s string) string {
	max := tk.cfgv.MaxResultBytes
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown (max_result_bytes is %d)]", cut, len(s), max)
}

// execute is agno's _execute_query: a header line of column names, then
// a line per row of str() of each value, comma-joined.
func (tk *Toolkit) execute(ctx context.Context, query string, args ...any) string {
	var out string
	err := tk.inTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		fds := rows.FieldDescriptions()
		var cols []string
		for _, fd := range fds {
			cols = append(cols, fd.Name)
		}
		var lines []string
		capped := false
		for rows.Next() {
			if len(lines) == tk.cfgv.MaxRows {
				capped = true
				break
			}
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = pyStr(v, fds[i].DataTypeOID)
			}
			lines = append(lines, strings.Join(parts, ","))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		switch {
		case len(fds) == 0:
			out = rows.CommandTag().String()
			if out == "" {
				out = "Query executed successfully with no output."
			}
		case len(lines) == 0:
			out = "Query returned no results.\nColumns: " + strings.Join(cols, ", ")
		default:
			out = strings.Join(cols, ",") + "\n" + strings.Join(lines, "\n")
			if capped {
				out += fmt.Sprintf("\n[only the first %d rows: max_rows of [toolkits.postgres] bounds a result]", tk.cfgv.MaxRows)
			}
		}
		return nil
	})
	if err != nil {
		return "Error executing query: " + errText(err)
	}
	return tk.bound(out)
}

func (tk *Toolkit) showTables(ctx context.Context, _ struct{}) (string, error) {
	return tk.execute(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1;", tk.schema), nil
}

func (tk *Toolkit) describeTable(ctx context.Context, a tableArgs) (string, error) {
	return tk.execute(ctx, `
            SELECT column_name, data_type, is_nullable
            FROM information_schema.columns
            WHERE table_schema = $1 AND table_name = $2;
        `, tk.schema, a.Table), nil
}

func (tk *Toolkit) inspectQuery(ctx context.Context, a inspectArgs) (string, error) {
	return tk.execute(ctx, "EXPLAIN "+a.Query), nil
}

func (tk *Toolkit) runQuery(ctx context.Context, a runArgs) (string, error) {
	return tk.execute(ctx, a.Query), nil
}

// summarizeTable is agno's summarize_table: per numeric column count,
// non-null count, min, max, average and standard deviation; per text
// column count, non-null count, distinct values and average length.
func (tk *Toolkit) summarizeTable(ctx context.Context, a summarizeArgs) (string, error) {
	var out string
	err := tk.inTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
                    SELECT column_name, data_type
                    FROM information_schema.columns
                    WHERE table_schema = $1 AND table_name = $2;
                `, tk.schema, a.Table)
		if err != nil {
			return err
		}
		type col struct{ name, typ string }
		var cols []col
		for rows.Next() {
			var c col
			if err := rows.Scan(&c.name, &c.typ); err != nil {
				rows.Close()
				return err
			}
			cols = append(cols, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(cols) == 0 {
			out = fmt.Sprintf("Error: Table '%s' not found in schema '%s'.", a.Table, tk.schema)
			return nil
		}
		parts := []string{fmt.Sprintf("Summary for table: %s\n", a.Table)}
		tbl := pgx.Identifier{tk.schema, a.Table}.Sanitize()
		for _, c := range cols {
			id := pgx.Identifier{c.name}.Sanitize()
			var q string
			switch {
			case containsAny(c.typ, "integer", "numeric", "real", "double precision", "bigint", "smallint"):
				q = fmt.Sprintf(`SELECT COUNT(*) AS total_rows, COUNT(%[1]s) AS non_null_rows, MIN(%[1]s) AS min, MAX(%[1]s) AS max, AVG(%[1]s) AS average, STDDEV(%[1]s) AS std_deviation FROM %[2]s;`, id, tbl)
			case containsAny(c.typ, "char", "text", "uuid"):
				q = fmt.Sprintf(`SELECT COUNT(*) AS total_rows, COUNT(%[1]s) AS non_null_rows, COUNT(DISTINCT %[1]s) AS unique_values, AVG(LENGTH(%[1]s::text)) as avg_length FROM %[2]s;`, id, tbl)
			default:
				continue
			}
			rs, err := tx.Query(ctx, q)
			if err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("\n--- Column: %s (Type: %s) ---", c.name, c.typ))
			fds := rs.FieldDescriptions()
			if rs.Next() {
				vals, err := rs.Values()
				if err != nil {
					rs.Close()
					return err
				}
				for i, v := range vals {
					s := pyStr(v, fds[i].DataTypeOID)
					if f, ok := v.(float64); ok {
						s = strconv.FormatFloat(f, 'f', 2, 64) // agno's f"{value:.2f}" for a float
					}
					parts = append(parts, fmt.Sprintf("  %s: %s", fds[i].Name, s))
				}
			} else {
				parts = append(parts, "  No statistics available")
			}
			rs.Close()
			if err := rs.Err(); err != nil {
				return err
			}
		}
		out = strings.Join(parts, "\n")
		return nil
	})
	if err != nil {
		return "Error summarizing table: " + errText(err), nil
	}
	return tk.bound(out), nil
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// exportTable is agno's export_table_to_path: the table as CSV (Python's
// csv.writer: CRLF, minimal quoting, None as empty) at path, which must
// lie inside export_dir; at most max_export_bytes are written.
func (tk *Toolkit) exportTable(ctx context.Context, a exportArgs) (string, error) {
	fail := func(err error) (string, error) { return "Error exporting table: " + errText(err), nil }
	if tk.dir == "" {
		return fail(errors.New("no export_dir is configured for [toolkits.postgres]: set export_dir to the directory exports may be written to"))
	}
	rel := a.Path
	if filepath.IsAbs(rel) {
		r, err := filepath.Rel(tk.dir, rel)
		if err != nil {
			return fail(err)
		}
		rel = r
	}
	if !filepath.IsLocal(rel) {
		return fail(fmt.Errorf("path %q is outside export_dir %q: give a path inside it", a.Path, tk.dir))
	}
	root, err := os.OpenRoot(tk.dir)
	if err != nil {
		return fail(err)
	}
	defer root.Close()
	var f *os.File
	err = tk.inTx(ctx, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT * FROM "+pgx.Identifier{tk.schema, a.Table}.Sanitize()+";")
		if err != nil {
			return err
		}
		defer rows.Close()
		f, err = root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		lw := &limitWriter{w: f, left: tk.cfgv.MaxExportBytes}
		w := csv.NewWriter(lw)
		w.UseCRLF = true
		fds := rows.FieldDescriptions()
		header := make([]string, len(fds))
		for i, fd := range fds {
			header[i] = fd.Name
		}
		if err := w.Write(header); err != nil {
			return err
		}
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			rec := make([]string, len(vals))
			for i, v := range vals {
				if v != nil {
					rec[i] = pyStr(v, fds[i].DataTypeOID)
				}
			}
			if err := w.Write(rec); err != nil {
				return err
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		return rows.Err()
	})
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fail(err)
	}
	return fmt.Sprintf("Successfully exported table '%s' to '%s'.", a.Table, a.Path), nil
}

// limitWriter fails once more than left bytes are written.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, errors.New("the export is larger than max_export_bytes of [toolkits.postgres]")
	}
	l.left -= int64(len(p))
	return l.w.Write(p)
}

// Type OIDs whose Python str() differs from Go's value.
const (
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
)

// pyStr is Python's str() of the value psycopg gives for a column.
func pyStr(v any, oid uint32) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float32:
		return pyrepr.Float(float64(x))
	case float64:
		return pyrepr.Float(x)
	case pgtype.Numeric:
		if v, err := x.Value(); err == nil {
			if s, ok := v.(string); ok {
				return s
			}
		}
	case time.Time:
		switch oid {
		case oidDate:
			return x.Format("2006-01-02")
		case oidTimestampTZ:
			return pyDateTime(x) + x.Format("-07:00")
		}
		return pyDateTime(x)
	case pgtype.Time:
		d := time.Duration(x.Microseconds) * time.Microsecond
		return pyDateTime(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Add(d))[len("0000-01-01 "):]
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
	case []byte:
		return "b" + pyrepr.Repr(string(x))
	}
	return pyrepr.Repr(v)
}

func pyDateTime(t time.Time) string {
	s := t.Format("2006-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}
