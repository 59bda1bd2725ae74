package postgrestools

import (
	"errors"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.postgres]: agno's PostgresTools
// arguments (db_name, user, password, host, port, table_schema) and ours:
// dsn (a libpq connection string or URL the others override),
// password_env, read_only (default true, agno's read-only session),
// export_dir (where export_table_to_path may write; default the config
// file's directory) and the bounds. Unset parts come from libpq's
// variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE), as
// psycopg reads them.
type Options struct {
	DSN            string  `toml:"dsn"`
	DBName         string  `toml:"db_name"`
	User           string  `toml:"user"`
	Password       string  `toml:"password"`
	PasswordEnv    string  `toml:"password_env"`
	Host           string  `toml:"host"`
	Port           int     `toml:"port"`
	TableSchema    string  `toml:"table_schema"`
	ReadOnly       bool    `toml:"read_only"`
	ExportDir      string  `toml:"export_dir"`
	TimeoutSeconds float64 `toml:"timeout_seconds"`
	MaxRows        int     `toml:"max_rows"`
	MaxResultBytes int     `toml:"max_result_bytes"`
	MaxExportBytes int64   `toml:"max_export_bytes"`
}

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "show, describe, summarize and query PostgreSQL tables, explain queries and export tables as CSV, read-only unless enabled (agno's PostgresTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{TableSchema: "public", ReadOnly: true, TimeoutSeconds: 30}
		},
		Check: checkOptions,
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			pw := o.Password
			if o.PasswordEnv != "" {
				pw = os.Getenv(o.PasswordEnv)
			}
			dir := o.ExportDir
			if dir == "" {
				dir = env.Dir
			}
			return New(Config{
				DSN: o.DSN, DBName: o.DBName, User: o.User, Password: pw, Host: o.Host, Port: uint16(o.Port),
				TableSchema: o.TableSchema, ReadOnly: o.ReadOnly,
				ExportDir: dir, Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)),
				MaxRows: o.MaxRows, MaxResultBytes: o.MaxResultBytes, MaxExportBytes: o.MaxExportBytes,
			})
		},
	})
}

func checkOptions(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
	var errs []error
	if o.PasswordEnv != "" {
		errs = append(errs, tool.CheckEnvName("password_env", o.PasswordEnv))
	}
	if _, err := pgxpool.ParseConfig(o.DSN); err != nil {
		errs = append(errs, tool.OptionErrorf("dsn", "dsn: %v: use a libpq connection string (host=... dbname=...) or a postgres:// URL", err))
	}
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, tool.OptionErrorf("port", "port = %d: use a TCP port (1-65535), or leave it out for PGPORT or 5432", o.Port))
	}
	if o.TableSchema == "" {
		errs = append(errs, tool.OptionErrorf("table_schema", "table_schema is empty: name the schema the tools work in (default \"public\")"))
	}
	if o.TimeoutSeconds <= 0 {
		errs = append(errs, tool.OptionErrorf("timeout_seconds", "timeout_seconds = %v: use a positive number of seconds (default 30)", o.TimeoutSeconds))
	}
	if o.MaxRows < 0 {
		errs = append(errs, tool.OptionErrorf("max_rows", "max_rows = %d: use a positive number of rows, or 0 for the default %d", o.MaxRows, DefaultMaxRows))
	}
	if o.MaxResultBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_result_bytes", "max_result_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxResultBytes, DefaultMaxResultBytes))
	}
	if o.MaxExportBytes < 0 {
		errs = append(errs, tool.OptionErrorf("max_export_bytes", "max_export_bytes = %d: use a positive number of bytes, or 0 for the default %d", o.MaxExportBytes, DefaultMaxExportBytes))
	}
	o.ExportDir = tool.ResolvePath(env.Dir, o.ExportDir)
	return errors.Join(errs...)
}
