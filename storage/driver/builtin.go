package driver

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqlite"
)

// The built-in drivers register here rather than in their packages, so
// a program using one backend links no other database (the registry
// opens storage/sqldb, which links SQLite).

// Defaults of the built-in drivers.
const (
	// DefaultDSNEnv is the variable the postgres driver reads its
	// connection string from.
	DefaultDSNEnv = "AGNO_POSTGRES_DSN"
	// DefaultMemoryMaxRuns bounds the memory driver: about 10 KB a run.
	DefaultMemoryMaxRuns = 10_000
)

func init() {
	Register(sqliteDriver)
	Register(postgresDriver)
	Register(memoryDriver)
}

// limits are the keys CheckLimits checks.
var limits = []string{KeyTimeout, KeyConnectTimeout, KeyMaxConns}

func dbOptions(s Settings) sqldb.Options {
	return sqldb.Options{CallTimeout: s.Timeout, ConnectTimeout: s.ConnectTimeout, MaxConns: s.MaxConns}
}

var sqliteDriver = Driver{
	Name: "sqlite", Choice: "a file, the default", Default: true,
	Describe: func(s Settings) string { return s.Path },
	Keys:     []string{KeyPath, KeyTimeout},
	Defaults: func(s *Settings) {
		s.Path = cmp.Or(s.Path, sqlite.DefaultPath)
		s.Timeout = cmp.Or(s.Timeout, sqlite.DefaultCallTimeout)
	},
	Validate: func(s *Settings, v Validation) {
		if s.Path == "" {
			if v.Defined(KeyPath) {
				v.Problem("storage.path", "storage.path is empty: give the SQLite file, or remove the key for %s beside the config file", sqlite.DefaultPath)
			}
			s.Path = sqlite.DefaultPath
		}
		if s.Path != ":memory:" {
			s.Path = v.Resolve(s.Path)
		}
		CheckLimits([]string{KeyTimeout}, s, v, "")
	},
	Refuse: func(key, takers string) (string, string) {
		switch key {
		case KeyDSNEnv, KeySchema:
			return "storage", fmt.Sprintf("storage: dsn_env and schema are for driver = %s; remove them or set the driver", takers)
		case KeyConnectTimeout, KeyMaxConns:
			return "storage." + key, fmt.Sprintf("storage.%s is for driver = %s (a SQLite file has no connections to bound); remove it or set the driver", key, takers)
		}
		return "", ""
	},
	OpenStore: func(ctx context.Context, s Settings) (storage.Store, error) {
		st, err := sqlite.Open(ctx, sqlite.Config{Path: s.Path, Logger: s.Logger, CallTimeout: s.Timeout})
		if err != nil {
			return nil, fmt.Errorf("[storage] sqlite %s: %w", s.Path, err)
		}
		return st, nil
	},
	OpenDB: func(ctx context.Context, s Settings) (*sqldb.DB, error) {
		db, err := sqldb.OpenSQLite(ctx, s.Path, dbOptions(s))
		if err != nil {
			return nil, fmt.Errorf("[storage] sqlite %s: %w", s.Path, err)
		}
		return db, nil
	},
}

var postgresDriver = Driver{
	Name:     "postgres",
	ReadsEnv: func(s Settings) string { return cmp.Or(s.DSNEnv, DefaultDSNEnv) },
	Describe: func(s Settings) string { return "postgres, schema " + s.Schema },
	Keys:     []string{KeyDSNEnv, KeySchema, KeyTimeout, KeyConnectTimeout, KeyMaxConns},
	Defaults: func(s *Settings) {
		s.DSNEnv = cmp.Or(s.DSNEnv, DefaultDSNEnv)
		s.Schema = cmp.Or(s.Schema, postgres.DefaultSchema)
		s.Timeout = cmp.Or(s.Timeout, postgres.DefaultCallTimeout)
		s.ConnectTimeout = cmp.Or(s.ConnectTimeout, dbguard.DefaultConnectTimeout)
		s.MaxConns = cmp.Or(s.MaxConns, postgres.DefaultMaxConns)
	},
	Validate: func(s *Settings, v Validation) {
		if s.DSNEnv == "" {
			s.DSNEnv = DefaultDSNEnv
		} else {
			v.EnvName("storage."+KeyDSNEnv, s.DSNEnv)
		}
		CheckLimits(limits, s, v, fmt.Sprintf("%d, or the DSN's pool_max_conns", postgres.DefaultMaxConns))
	},
	Refuse: func(key, takers string) (string, string) {
		if key == KeyPath {
			return "storage.path", fmt.Sprintf("storage.path is for driver = %s; Postgres is reached through the variable named by dsn_env", takers)
		}
		return "", ""
	},
	OpenStore: func(ctx context.Context, s Settings) (storage.Store, error) {
		dsn := os.Getenv(s.DSNEnv)
		if dsn == "" {
			return nil, fmt.Errorf("[storage] driver = \"postgres\" reads the connection string from the environment variable %s, which is not set: "+
				"export %s=postgres://user:password@host:5432/database (or name another variable with dsn_env in %s)", s.DSNEnv, s.DSNEnv, s.ConfigPath)
		}
		st, err := postgres.Open(ctx, postgres.Config{DSN: dsn, Schema: s.Schema, Logger: s.Logger,
			CallTimeout: s.Timeout, ConnectTimeout: s.ConnectTimeout, MaxConns: int32(s.MaxConns)})
		if err != nil {
			return nil, fmt.Errorf("[storage] postgres (%s): %w", s.DSNEnv, err)
		}
		return st, nil
	},
	OpenDB: func(ctx context.Context, s Settings) (*sqldb.DB, error) {
		db, err := sqldb.OpenPostgres(ctx, os.Getenv(s.DSNEnv), s.Schema, dbOptions(s))
		if err != nil {
			return nil, fmt.Errorf("[storage] postgres (%s): %w", s.DSNEnv, err)
		}
		return db, nil
	},
}

var memoryDriver = Driver{
	Name: "memory", Choice: "nothing kept after exit", InProcess: true,
	Describe: func(Settings) string { return "memory: nothing is kept after this command" },
	Refuse: func(key, _ string) (string, string) {
		for _, k := range limits {
			if key == k {
				return "storage." + key, fmt.Sprintf("storage.%s bounds a database; driver = \"memory\" has none: remove it or set the driver", key)
			}
		}
		return "", ""
	},
	OpenStore: func(ctx context.Context, s Settings) (storage.Store, error) {
		// Bounded: a process that is never restarted must not grow forever.
		return memory.New(memory.MaxRuns(cmp.Or(s.MaxRuns, DefaultMemoryMaxRuns))), nil
	},
	OpenDB: func(ctx context.Context, s Settings) (*sqldb.DB, error) {
		return sqldb.OpenSQLite(ctx, "") // private, in memory
	},
}
