package sqltools

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/agno-go/agno/tool/internal/sqlitero"
)

// Dialects a db_url names (SQLAlchemy's, with or without a "+driver").
const (
	SQLite   = "sqlite"
	Postgres = "postgresql"
	MySQL    = "mysql"
)

// target is a database as database/sql opens it.
type target struct {
	dialect string
	driver  string
	dsn     string
	// schema is the schema (MySQL: database) listed and described; ""
	// is the connection's own (public, the URL's database).
	schema string
}

// parseURL reads a SQLAlchemy database URL: sqlite:///relative.db,
// sqlite:////absolute.db, postgresql[+driver]://user:pw@host:port/db,
// mysql[+driver]://user:pw@host:port/db. A relative SQLite path is
// resolved against base. readOnly opens SQLite with mode=ro, so the
// database itself refuses writes.
func parseURL(raw, base string, readOnly bool) (target, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return target{}, fmt.Errorf("db_url %q is not a database URL: use sqlite:///path.db, postgresql://user:password@host:5432/db or mysql://user:password@host:3306/db", redact(raw))
	}
	dialect, _, _ := strings.Cut(strings.ToLower(scheme), "+")
	switch dialect {
	case "sqlite", "sqlite3":
		p := strings.TrimPrefix(rest, "/")
		if p == "" || p == ":memory:" {
			return target{}, fmt.Errorf("db_url %q names no file: use sqlite:///path.db (relative to the config file) or sqlite:////absolute/path.db", raw)
		}
		if !filepath.IsAbs(p) && base != "" {
			p = filepath.Join(base, p)
		}
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(5000)")
		if readOnly {
			q.Set("mode", "ro")
		}
		u := url.URL{Scheme: "file", OmitHost: true, Path: p, RawQuery: q.Encode()}
		// The guarded driver refuses ATTACH: no other file is reached.
		return target{dialect: SQLite, driver: sqlitero.DriverName, dsn: u.String()}, nil
	case "postgres", "postgresql":
		u, err := url.Parse("postgres://" + rest)
		if err != nil {
			return target{}, fmt.Errorf("db_url: %v", err)
		}
		return target{dialect: Postgres, driver: "pgx", dsn: u.String()}, nil
	case "mysql", "mariadb":
		u, err := url.Parse("mysql://" + rest)
		if err != nil {
			return target{}, fmt.Errorf("db_url: %v", err)
		}
		c := mysql.NewConfig()
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
		c.Net = "tcp"
		c.Addr = u.Host
		if u.Port() == "" {
			c.Addr = u.Hostname() + ":3306"
		}
		c.DBName = strings.TrimPrefix(u.Path, "/")
		c.ParseTime = true
		return target{dialect: MySQL, driver: "mysql", dsn: c.FormatDSN(), schema: c.DBName}, nil
	}
	return target{}, fmt.Errorf("db_url %q: dialect %q is not supported: use sqlite, postgresql or mysql", redact(raw), scheme)
}

// redact hides a URL's password in messages.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return raw
}
