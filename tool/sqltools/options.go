package sqltools

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/agno-go/agno/tool"
)

// Options are the keys of [toolkits.sql]: agno's SQLTools arguments
// (db_url, or user, password, host, port, schema and dialect; tables;
// the enable flags) and ours: db_url_env and password_env read the
// secret from the environment, read_only (default true) has the database
// refuse writes, and the bounds.
type Options struct {
	DBURL             string         `toml:"db_url"`
	DBURLEnv          string         `toml:"db_url_env"`
	User              string         `toml:"user"`
	Password          string         `toml:"password"`
	PasswordEnv       string         `toml:"password_env"`
	Host              string         `toml:"host"`
	Port              int            `toml:"port"`
	Schema            string         `toml:"schema"`
	Dialect           string         `toml:"dialect"`
	Tables            map[string]any `toml:"tables"`
	EnableListTables  bool           `toml:"enable_list_tables"`
	EnableDescribe    bool           `toml:"enable_describe_table"`
	EnableRunSQLQuery bool           `toml:"enable_run_sql_query"`
	All               bool           `toml:"all"`
	ReadOnly          bool           `toml:"read_only"`
	TimeoutSeconds    float64        `toml:"timeout_seconds"`
	MaxRows           int            `toml:"max_rows"`
	MaxResultBytes    int            `toml:"max_result_bytes"`
}

// errNoDatabase is agno's ValueError, with the fix.
//
//lint:ignore ST1005 agno's error text, which the model sees as it is
var errNoDatabase = errors.New("Could not build the database connection: set db_url of [toolkits.sql] (sqlite:///data.db, postgresql://user@host:5432/db, mysql://user:password@host:3306/db), db_url_env naming a variable that holds it, or dialect, user, password, host and port")

func init() {
	tool.RegisterToolkit(tool.ToolkitSpec[Options]{
		Name: ToolkitName, Summary: "list tables, describe a table and run SQL on SQLite, PostgreSQL or MySQL, read-only unless enabled (agno's SQLTools)",
		Defaults: func(tool.ToolkitEnv) Options {
			return Options{EnableListTables: true, EnableDescribe: true, EnableRunSQLQuery: true, ReadOnly: true, TimeoutSeconds: 30}
		},
		Check: checkOptions,
		New: func(env tool.ToolkitEnv, o *Options) (tool.Provider, error) {
			if o.unset() {
				return nil, errNoDatabase
			}
			return New(Config{
				DBURL: o.resolvedURL(), BaseDir: env.Dir, Schema: o.Schema, Tables: o.Tables, ReadOnly: o.ReadOnly,
				EnableListTables: o.EnableListTables, EnableDescribeTable: o.EnableDescribe, EnableRunSQLQuery: o.EnableRunSQLQuery, All: o.All,

				Timeout: time.Duration(o.TimeoutSeconds * float64(time.Second)), MaxRows: o.MaxRows, MaxResultBytes: o.MaxResultBytes,
			})
		},
	})
}

// resolvedURL is db_url, db_url_env's value, or agno's
// f"{dialect}://{user}:{password}@{host}:{port}/{schema}".
func (o *Options) resolvedURL() string {
	if o.DBURL != "" {
		return o.DBURL
	}
	if o.DBURLEnv != "" {
		return os.Getenv(o.DBURLEnv)
	}
	pw := o.Password
	if o.PasswordEnv != "" {
		pw = os.Getenv(o.PasswordEnv)
	}
	u := url.URL{Scheme: o.Dialect, User: url.UserPassword(o.User, pw), Host: fmt.Sprintf("%s:%d", o.Host, o.Port)}
	if o.Schema != "" {
		u.Path = "/" + o.Schema
	}
	return u.String()
}

// unset reports that no database is named.
func (o *Options) unset() bool {
	return o.DBURL == "" && o.DBURLEnv == "" && (o.Dialect == "" || o.Host == "" || o.Port == 0 || o.User == "")
}

func checkOptions(env tool.ToolkitEnv, o *Options, _ func(string) bool) error {
	var errs []error
	for _, k := range []struct{ key, v string }{{"db_url_env", o.DBURLEnv}, {"password_env", o.PasswordEnv}} {
		if k.v != "" {
			errs = append(errs, tool.CheckEnvName(k.key, k.v))
		}
	}
	switch {
	case o.DBURL == "" && o.DBURLEnv != "" && os.Getenv(o.DBURLEnv) == "":
		errs = append(errs, tool.OptionErrorf("db_url_env", "db_url_env = %q: the variable is empty or unset: export %s=<database URL>", o.DBURLEnv, o.DBURLEnv))
	case o.unset():
		// agno's SQLTools() without a database fails when built (New).
	default:
		if _, err := parseURL(o.resolvedURL(), env.Dir, o.ReadOnly); err != nil {
			key := "db_url"
			if o.DBURL == "" && o.DBURLEnv != "" {
				key = "db_url_env"
			} else if o.DBURL == "" {
				key = "dialect"
			}
			errs = append(errs, tool.OptionErrorf(key, "%s: %v", key, err))
		}
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
	return errors.Join(errs...)
}
