package driver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/storage/driver"
)

// problems collects what Validate reports, as "at: message".
type problems []string

func (p *problems) validation(defined ...string) driver.Validation {
	return driver.Validation{
		Defined: func(k string) bool { return slices.Contains(defined, k) },
		Resolve: func(path string) string { return "/conf/" + path },
		Problem: func(at, format string, args ...any) { *p = append(*p, at+": "+fmt.Sprintf(format, args...)) },
		EnvName: func(at, name string) {
			if strings.ContainsAny(name, "-:/") {
				*p = append(*p, at+": not a variable name")
			}
		},
	}
}

func TestBuiltinDrivers(t *testing.T) {
	if got := driver.Names(); !slices.Equal(got, []string{"memory", "postgres", "sqlite"}) {
		t.Errorf("Names() = %v", got)
	}
	if driver.DefaultName() != "sqlite" {
		t.Errorf("DefaultName() = %q", driver.DefaultName())
	}
	if c := driver.Choices(); !strings.HasPrefix(c, `"sqlite" (a file, the default), `) || !strings.Contains(c, `"memory" (nothing kept after exit)`) ||
		!strings.HasSuffix(c, ` or "postgres"`) {
		t.Errorf("Choices() = %s", c)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		driver  string
		s       driver.Settings
		defined []string
		n       int      // problems
		want    []string // substrings of them
		check   func(t *testing.T, s driver.Settings)
	}{
		{name: "unknown", driver: "mysql", n: 1, want: []string{`storage.driver: storage.driver = "mysql": use "sqlite"`}},
		{name: "sqlite defaults", driver: "sqlite", check: func(t *testing.T, s driver.Settings) {
			if s.Path != "/conf/agno.db" || s.Timeout != 0 {
				t.Errorf("completed: %+v", s)
			}
		}},
		{name: "sqlite in memory", driver: "sqlite", s: driver.Settings{Path: ":memory:"}, check: func(t *testing.T, s driver.Settings) {
			if s.Path != ":memory:" {
				t.Errorf("path %q", s.Path)
			}
		}},
		{name: "sqlite empty path", driver: "sqlite", defined: []string{"path"}, n: 1, want: []string{"storage.path: storage.path is empty"}},
		{name: "sqlite refuses postgres keys", driver: "sqlite", defined: []string{"dsn_env", "schema", "max_conns"}, n: 2,
			want: []string{`storage: storage: dsn_env and schema are for driver = "postgres"`, `storage.max_conns: storage.max_conns is for driver = "postgres" (a SQLite file`}},
		{name: "sqlite timeout", driver: "sqlite", s: driver.Settings{Timeout: -time.Second}, n: 1, want: []string{"storage.timeout_seconds = -1", "default 15"}},
		{name: "postgres", driver: "postgres", check: func(t *testing.T, s driver.Settings) {
			if s.DSNEnv != driver.DefaultDSNEnv || s.Schema != "" {
				t.Errorf("completed: %+v", s)
			}
		}},
		{name: "postgres path", driver: "postgres", defined: []string{"path"}, n: 1, want: []string{`storage.path: storage.path is for driver = "sqlite"; Postgres`}},
		{name: "postgres bounds", driver: "postgres", s: driver.Settings{DSNEnv: "a-b"}, defined: []string{"max_conns", "connect_timeout_seconds"}, n: 3,
			want: []string{"storage.dsn_env: not a variable name", "storage.connect_timeout_seconds = 0", "storage.max_conns = 0", "default 16"}},
		{name: "memory", driver: "memory", defined: []string{"timeout_seconds", "path"}, n: 2,
			want: []string{`storage.path: storage.path is for driver = "sqlite"`, `storage.timeout_seconds: storage.timeout_seconds bounds a database; driver = "memory" has none`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p problems
			s := tc.s
			driver.Validate(tc.driver, &s, p.validation(tc.defined...))
			if len(p) != tc.n {
				t.Fatalf("problems %q, want %d like %q", p, tc.n, tc.want)
			}
			all := strings.Join(p, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("problems\n%s\nlack %q", all, w)
				}
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	pg, _ := driver.Lookup("postgres")
	s := driver.Settings{MaxConns: 4}
	pg.Defaults(&s)
	if s.Schema != "ai" || s.MaxConns != 4 || s.ConnectTimeout != 5*time.Second || s.Timeout != 15*time.Second || s.DSNEnv != driver.DefaultDSNEnv {
		t.Errorf("postgres defaults: %+v", s)
	}
	lite, _ := driver.Lookup("sqlite")
	s = driver.Settings{}
	lite.Defaults(&s)
	if s.Path != "agno.db" || s.Timeout != 15*time.Second || s.MaxConns != 0 {
		t.Errorf("sqlite defaults: %+v", s)
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	mustPanic := func(name string, d driver.Driver) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: Register did not panic", name)
			}
		}()
		driver.Register(d)
	}
	lite, _ := driver.Lookup("sqlite")
	mustPanic("taken name", lite)
	mustPanic("no openers", driver.Driver{Name: "x"})
	mustPanic("upper case", driver.Driver{Name: "X", OpenStore: lite.OpenStore, OpenDB: lite.OpenDB})
	mustPanic("second default", driver.Driver{Name: "y", Default: true, OpenStore: lite.OpenStore, OpenDB: lite.OpenDB})
}

// What a configuration asks of a driver instead of switching on its name:
// whether it keeps everything in process, and which variable it connects
// from.
func TestCapabilities(t *testing.T) {
	if got := driver.InProcessName(); got != "memory" {
		t.Fatalf("InProcessName: %q", got)
	}
	pg, _ := driver.Lookup("postgres")
	if pg.ReadsEnv == nil || pg.ReadsEnv(driver.Settings{}) != driver.DefaultDSNEnv || pg.ReadsEnv(driver.Settings{DSNEnv: "MY_DSN"}) != "MY_DSN" {
		t.Fatal("postgres reads its DSN from dsn_env, AGNO_POSTGRES_DSN by default")
	}
	for _, name := range []string{"sqlite", "memory"} {
		if d, _ := driver.Lookup(name); d.ReadsEnv != nil {
			t.Fatalf("%s reads no variable", name)
		}
	}
}
