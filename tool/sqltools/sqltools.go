// Package sqltools is agno's SQLTools: list_tables, describe_table and
// run_sql_query over a SQLite, PostgreSQL or MySQL database named by a
// SQLAlchemy-style db_url. Queries are read-only unless read_only =
// false, and the database enforces it: SQLite is opened with mode=ro,
// PostgreSQL and MySQL queries run in a READ ONLY transaction that is
// rolled back. Rows and result bytes are bounded. With SQLite, ATTACH is
// refused either way, so no other file is reached. A database user
// without write or file privileges is still the first line of defence
// (a READ ONLY transaction does not stop, say, MySQL's SELECT ... INTO
// OUTFILE for a user with the FILE privilege).
//
//	[toolkits.sql]
//	db_url_env = "SALES_DB_URL"     # postgresql://reader@db:5432/sales
//	# db_url = "sqlite:///data/sales.db"
//	max_rows = 200
//
//	# an agent: tools = ["sql"]
package sqltools

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
)

// ToolkitName is the name agents list in tools; the toolkit reports
// agno's name, "sql_tools".
const ToolkitName = "sql"

// Defaults of the bounds.
const (
	DefaultMaxRows        = 1000
	DefaultMaxResultBytes = 64 << 10
	defaultTimeout        = 30 * time.Second
)

// Config configures New.
type Config struct {
	// DBURL is the database (see parseURL); BaseDir resolves a relative
	// SQLite path.
	DBURL   string
	BaseDir string
	// Schema is the schema (MySQL: database) listed and described.
	Schema string
	// Tables, when set, is what list_tables answers (agno's tables).
	Tables map[string]any
	// ReadOnly makes the database refuse writes.
	ReadOnly bool

	EnableListTables, EnableDescribeTable, EnableRunSQLQuery, All bool
	Include, Exclude                                              []string

	Timeout        time.Duration
	MaxRows        int
	MaxResultBytes int
}

// Toolkit is SQLTools: a tool.Connector whose Close releases the pool; a
// call after Close opens it again.
type Toolkit struct {
	*tool.Toolkit
	t        target
	readOnly bool
	tables   map[string]any
	timeout  time.Duration
	maxRows  int
	maxBytes int

	mu sync.Mutex
	db *sql.DB
}

var _ tool.Connector = (*Toolkit)(nil)

type describeArgs struct {
	TableName string `json:"table_name" description:"(str) The name of the table to get the schema for."`
}

// queryArgs: agno's docstring says "limit (int, optional)", and its
// parser drops ", optional" from the type it puts before the description.
type queryArgs struct {
	Query string   `json:"query" description:"(str) The query to run."`
	Limit optLimit "json:\"limit,omitzero\" description:\"(int) The number of rows to return. Defaults to 10. Use `None` to show all results.\""
}

// optLimit is agno's limit: Optional[int] = 10, so an absent limit is 10
// and an explicit null is every row.
type optLimit struct {
	set, null bool
	n         int
}

func (o *optLimit) UnmarshalJSON(b []byte) error {
	o.set = true
	if string(b) == "null" {
		o.null = true
		return nil
	}
	return json.Unmarshal(b, &o.n)
}

// JSONSchema is agno's for Optional[int]: the integer's.
func (optLimit) JSONSchema() json.RawMessage { return json.RawMessage(`{"type": "integer"}`) }

// New builds agno's SQLTools.
func New(cfg Config) (*Toolkit, error) {
	t, err := parseURL(cfg.DBURL, cfg.BaseDir, cfg.ReadOnly)
	if err != nil {
		return nil, err
	}
	if cfg.Schema != "" {
		t.schema = cfg.Schema
	}
	tk := &Toolkit{t: t, readOnly: cfg.ReadOnly, tables: cfg.Tables, timeout: cfg.Timeout, maxRows: cfg.MaxRows, maxBytes: cfg.MaxResultBytes}
	if tk.timeout <= 0 {
		tk.timeout = defaultTimeout
	}
	if tk.maxRows <= 0 {
		tk.maxRows = DefaultMaxRows
	}
	if tk.maxBytes <= 0 {
		tk.maxBytes = DefaultMaxResultBytes
	}
	fns := tool.Enabled{All: cfg.All}
	fns.If(cfg.EnableListTables)(tool.New("list_tables", "Use this function to get a list of table names in the database.", tk.listTables))
	fns.If(cfg.EnableDescribeTable)(tool.New("describe_table", "Use this function to describe a table.", tk.describeTable))
	fns.If(cfg.EnableRunSQLQuery)(tool.New("run_sql_query", "Use this function to run a SQL query and return the result.", tk.runSQLQuery))
	list, err := fns.Functions()
	if err != nil {
		return nil, err
	}
	tk.Toolkit, err = tool.NewToolkit(tool.ToolkitConfig{Name: "sql_tools", Functions: list, Include: cfg.Include, Exclude: cfg.Exclude})
	if err != nil {
		return nil, err
	}
	return tk, nil
}

// Connect opens the pool (no connection is made until a call).
func (tk *Toolkit) Connect(context.Context) error {
	_, err := tk.pool()
	return err
}

// Close releases the pool.
func (tk *Toolkit) Close() error {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.db == nil {
		return nil
	}
	err := tk.db.Close()
	tk.db = nil
	return err
}

func (tk *Toolkit) pool() (*sql.DB, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.db != nil {
		return tk.db, nil
	}
	db, err := sql.Open(tk.t.driver, tk.t.dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(5 * time.Minute)
	tk.db = db
	return db, nil
}

// bound cuts a result at max_result_bytes, saying so.
func (tk *Toolkit) bound(s string) string {
	if len(s) <= tk.maxBytes {
		return s
	}
	cut := tk.maxBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[output truncated: %d of %d bytes shown (max_result_bytes is %d)]", cut, len(s), tk.maxBytes)
}

func (tk *Toolkit) timeoutErr(ctx context.Context, err error) error {
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("the query did not finish within timeout_seconds (%s)", tk.timeout)
	}
	return err
}

func (tk *Toolkit) listTables(ctx context.Context, _ struct{}) (string, error) {
	if tk.tables != nil {
		s, err := pyjson.Dumps(tk.tables)
		if err != nil {
			return "", err
		}
		return tk.bound(s), nil
	}
	names, err := tk.tableNames(ctx)
	if err != nil {
		return "Error getting tables: " + err.Error(), nil
	}
	s, err := pyjson.Dumps(names)
	if err != nil {
		return "", err
	}
	return tk.bound(s), nil
}

func (tk *Toolkit) tableNames(ctx context.Context) ([]string, error) {
	db, err := tk.pool()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, tk.timeout)
	defer cancel()
	var rows *sql.Rows
	switch tk.t.dialect {
	case SQLite:
		rows, err = db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite~_%' ESCAPE '~' ORDER BY name`)
	case Postgres:
		rows, err = db.QueryContext(ctx, `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = COALESCE(NULLIF($1, ''), current_schema()) AND c.relkind IN ('r', 'p') ORDER BY c.relname`, tk.t.schema)
	case MySQL:
		rows, err = db.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, tk.t.schema)
	}
	if err != nil {
		return nil, tk.timeoutErr(ctx, err)
	}
	defer rows.Close()
	names := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, tk.timeoutErr(ctx, rows.Err())
}

// column is one entry of SQLAlchemy's inspector.get_columns as agno
// reports it.
type column struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Nullable bool    `json:"nullable"`
	Default  *string `json:"default"`
}

func (tk *Toolkit) describeTable(ctx context.Context, a describeArgs) (string, error) {
	cols, err := tk.columns(ctx, a.TableName)
	if err != nil {
		return "Error getting table schema: " + err.Error(), nil
	}
	s, err := pyjson.Dumps(cols)
	if err != nil {
		return "", err
	}
	return tk.bound(s), nil
}

func (tk *Toolkit) columns(ctx context.Context, table string) ([]column, error) {
	db, err := tk.pool()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, tk.timeout)
	defer cancel()
	var rows *sql.Rows
	switch tk.t.dialect {
	case SQLite:
		// A table-valued pragma takes the name as a bound value.
		rows, err = db.QueryContext(ctx, `SELECT name, type, "notnull" = 0, dflt_value FROM pragma_table_info(?) ORDER BY cid`, table)
	case Postgres:
		rows, err = db.QueryContext(ctx, `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), NOT a.attnotnull, pg_catalog.pg_get_expr(d.adbin, d.adrelid)
			FROM pg_catalog.pg_attribute a
			JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE n.nspname = COALESCE(NULLIF($1, ''), current_schema()) AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
			ORDER BY a.attnum`, tk.t.schema, table)
	case MySQL:
		rows, err = db.QueryContext(ctx, `SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE = 'YES', COLUMN_DEFAULT FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, tk.t.schema, table)
	}
	if err != nil {
		return nil, tk.timeoutErr(ctx, err)
	}
	defer rows.Close()
	var cols []column
	for rows.Next() {
		var c column
		var def sql.NullString
		if err := rows.Scan(&c.Name, &c.Type, &c.Nullable, &def); err != nil {
			return nil, err
		}
		c.Type = sqlalchemyType(tk.t.dialect, c.Type)
		// MariaDB writes a NULL default as the word; literals come quoted.
		if def.Valid && !(tk.t.dialect == MySQL && def.String == "NULL") {
			c.Default = &def.String
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, tk.timeoutErr(ctx, err)
	}
	if len(cols) == 0 {
		// SQLAlchemy's NoSuchTableError, whose text is the name.
		return nil, errors.New(table)
	}
	return cols, nil
}

// sqlalchemyType is str() of the type SQLAlchemy reflects for a
// database's type name: upper case, its own names for the common types.
func sqlalchemyType(dialect, t string) string {
	u := strings.ToUpper(strings.TrimSpace(t))
	base, args, hasArgs := strings.Cut(u, "(")
	base = strings.TrimSpace(base)
	if hasArgs {
		args = "(" + strings.ReplaceAll(strings.ReplaceAll(args, " ", ""), ",", ", ")
	}
	rename := map[string]string{
		"CHARACTER VARYING": "VARCHAR", "CHARACTER": "CHAR", "TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP",
		"TIMESTAMP WITH TIME ZONE": "TIMESTAMP", "TIME WITHOUT TIME ZONE": "TIME", "TIME WITH TIME ZONE": "TIME",
		"INT": "INTEGER", "INT4": "INTEGER", "INT8": "BIGINT", "INT2": "SMALLINT", "FLOAT8": "DOUBLE PRECISION", "BOOL": "BOOLEAN",
	}
	if dialect == MySQL {
		// MySQL's display widths (int(11)) are not part of SQLAlchemy's type.
		if strings.HasSuffix(base, "INT") {
			args = ""
		}
		rename["TINYINT"] = "TINYINT"
	}
	if r, ok := rename[base]; ok {
		base = r
	}
	if strings.HasSuffix(u, " UNSIGNED") && !strings.HasSuffix(base, "UNSIGNED") {
		args = strings.TrimSuffix(args, " UNSIGNED")
	}
	return base + args
}

func (tk *Toolkit) runSQLQuery(ctx context.Context, a queryArgs) (string, error) {
	limit := 10
	switch {
	case a.Limit.null:
		limit = 0
	case a.Limit.set:
		limit = a.Limit.n
	}
	out, capped, err := tk.runSQL(ctx, a.Query, limit)
	if err != nil {
		return "Error running query: " + err.Error(), nil
	}
	s, err := pyjson.Dumps(out)
	if err != nil {
		return "Error running query: " + err.Error(), nil
	}
	if capped {
		s += fmt.Sprintf("\n[only the first %d rows: max_rows of [toolkits.sql] bounds a result]", tk.maxRows)
	}
	return tk.bound(s), nil
}

// runSQL runs one statement and returns up to limit rows (0 or less: all
// rows, as agno's falsy limit), never more than max_rows; capped reports
// that max_rows cut the rows.
func (tk *Toolkit) runSQL(ctx context.Context, query string, limit int) (rows []any, capped bool, err error) {
	db, err := tk.pool()
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, tk.timeout)
	defer cancel()
	var q interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	} = db
	var tx *sql.Tx
	if tk.t.dialect != SQLite || !tk.readOnly {
		// Postgres and MySQL refuse writes inside a READ ONLY transaction.
		tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: tk.readOnly})
		if err != nil {
			return nil, false, tk.timeoutErr(ctx, err)
		}
		defer func() { _ = tx.Rollback() }()
		q = tx
	}
	rs, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, false, tk.timeoutErr(ctx, err)
	}
	defer rs.Close()
	types, err := rs.ColumnTypes()
	if err != nil {
		return nil, false, err
	}
	names, _ := rs.Columns()
	want := tk.maxRows
	if limit > 0 && limit < want {
		want = limit
	}
	rows = []any{}
	for rs.Next() {
		if len(rows) == want {
			capped = limit <= 0 || limit > tk.maxRows
			break
		}
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, false, err
		}
		row := &orderedRow{}
		for i, n := range names {
			row.add(n, pyValue(vals[i], types[i].DatabaseTypeName()))
		}
		rows = append(rows, row)
	}
	if err := rs.Err(); err != nil {
		return nil, false, tk.timeoutErr(ctx, err)
	}
	rs.Close()
	if tx != nil && !tk.readOnly {
		if err := tx.Commit(); err != nil {
			return nil, false, tk.timeoutErr(ctx, err)
		}
	}
	if len(names) == 0 {
		return []any{}, false, nil // a statement without rows: agno's []
	}
	return rows, capped, nil
}

// orderedRow is a row as a dict in column order (row._asdict()).
type orderedRow struct {
	keys []string
	vals []any
}

func (r *orderedRow) add(k string, v any) {
	for i, have := range r.keys {
		if have == k { // a repeated column name keeps the last value, as a dict does
			r.vals[i] = v
			return
		}
	}
	r.keys = append(r.keys, k)
	r.vals = append(r.vals, v)
}

// MarshalJSON writes the row with floats kept as floats (pyjson reads a
// float's text back as a float only with a fraction or exponent).
func (r *orderedRow) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range r.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		switch v := r.vals[i].(type) {
		case float64:
			s, err := pyjson.FloatRepr(v)
			if err != nil {
				return nil, err
			}
			if s == "NaN" || s == "Infinity" || s == "-Infinity" {
				vb, _ := json.Marshal(s) // JSON has no such numbers; keep the text
				b.Write(vb)
			} else {
				b.WriteString(s)
			}
		default:
			vb, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b.Write(vb)
		}
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// pyValue is a database value as agno's json.dumps(..., default=str)
// writes it: numbers as numbers, decimals, dates and times as Python's
// str() of them, bytes as text.
func pyValue(v any, dbType string) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case float32:
		return float64(x)
	case time.Time:
		return pyTime(x, strings.ToUpper(dbType))
	case []byte:
		s := string(x)
		switch t := strings.ToUpper(dbType); {
		case strings.Contains(t, "INT") && !strings.Contains(t, "POINT"):
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		case t == "FLOAT" || t == "DOUBLE" || t == "REAL":
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
		}
		if utf8.ValidString(s) {
			return s
		}
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// pyTime is Python's str() of a date, datetime or time value.
func pyTime(t time.Time, dbType string) string {
	if dbType == "DATE" {
		return t.Format("2006-01-02")
	}
	s := t.Format("2006-01-02 15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	if strings.Contains(dbType, "TZ") || strings.Contains(dbType, "ZONE") {
		s += t.Format("-07:00")
	}
	return s
}
