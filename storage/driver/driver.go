// Package driver is the registry of storage drivers: a name ("sqlite",
// "postgres", "memory") → what opens the run store and the control
// plane's database (storage/sqldb) from the [storage] settings. Each
// driver declares the [storage] keys it takes, fills in its defaults and
// checks its own keys, so a configuration dispatches by name and knows no
// driver itself.
//
// The built-in drivers are registered by this package; a program adds a
// database by registering a Driver of its own (its run store, typically
// the shared SQL implementation over the database's dialect, and a
// sqldb.DB made with sqldb.New) before loading a configuration.
package driver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/dbguard"
	"github.com/agno-go/agno/storage/sqldb"
)

// Settings are the [storage] table as the configuration holds it: the
// keys of every driver (each takes some); zero is the driver's default.
type Settings struct {
	// Path is the database file ("path").
	Path string
	// DSNEnv names the variable holding the connection string ("dsn_env").
	DSNEnv string
	// Schema holds the tables ("schema").
	Schema string
	// Timeout bounds one storage call ("timeout_seconds").
	Timeout time.Duration
	// ConnectTimeout bounds one connection attempt ("connect_timeout_seconds").
	ConnectTimeout time.Duration
	// MaxConns bounds each connection pool ("max_conns").
	MaxConns int
	// MaxRuns is [storage.retention] max_runs (a store that must bound
	// itself keeps this many top-level runs).
	MaxRuns int
	// ConfigPath is the file the settings came from, for messages.
	ConfigPath string
	Logger     *slog.Logger
}

// The [storage] keys of Settings.
const (
	KeyPath           = "path"
	KeyDSNEnv         = "dsn_env"
	KeySchema         = "schema"
	KeyTimeout        = "timeout_seconds"
	KeyConnectTimeout = "connect_timeout_seconds"
	KeyMaxConns       = "max_conns"
)

// Validation is what a configuration gives a driver checking its keys.
type Validation struct {
	// Defined reports whether the file sets a [storage] key.
	Defined func(key string) bool
	// Resolve makes a relative file path relative to the configuration
	// file.
	Resolve func(path string) string
	// Problem reports a problem at a key ("storage.path", or "storage"
	// for the table as a whole).
	Problem func(at, format string, args ...any)
	// EnvName checks a key that names an environment variable.
	EnvName func(at, name string)
}

// Driver is one storage driver.
type Driver struct {
	// Name is the value of [storage] driver.
	Name string
	// Choice says in a word what the driver keeps where, for the list of
	// drivers an unknown name is answered with ("a file, the default").
	Choice string
	// Default makes the driver the one a configuration without
	// [storage] driver uses (one driver has it).
	Default bool
	// Keys are the [storage] keys the driver takes (driver and retention
	// aside); a file setting another is refused.
	Keys []string
	// Defaults fills in what zero settings mean, as the driver applies
	// them (what `agno config show` prints).
	Defaults func(s *Settings)
	// Validate checks the driver's own keys as the file sets them and
	// completes s (defaults, paths resolved). Nil: nothing to check.
	Validate func(s *Settings, v Validation)
	// Refuse, when set, words the problem with a key the file sets that
	// the driver does not take (takers lists the drivers that do); at ""
	// for the registry's own wording.
	Refuse func(key, takers string) (at, msg string)
	// Describe says where the data is kept, for messages ("postgres,
	// schema ai", a file's path); nil: the driver's name.
	Describe func(s Settings) string
	// InProcess marks a driver that keeps everything in this process: it
	// has no tables to name, and `agno config check` builds on it instead
	// of connecting (one driver has it).
	InProcess bool
	// ReadsEnv names the variable the driver reads its connection from
	// (""; nil: none), so a check that does not connect can warn when it
	// is unset.
	ReadsEnv func(s Settings) string
	// OpenStore opens the run store: sessions, runs, events, memories.
	OpenStore func(ctx context.Context, s Settings) (storage.Store, error)
	// OpenDB opens the control plane's database where the store is.
	OpenDB func(ctx context.Context, s Settings) (*sqldb.DB, error)
}

var registry = struct {
	sync.RWMutex
	order []string
	m     map[string]Driver
}{m: map[string]Driver{}}

// Register adds a driver. It panics on an empty or taken name, a second
// default or a missing opener: mistakes of the program, not of its input.
func Register(d Driver) {
	if d.Name == "" || d.Name != strings.ToLower(strings.TrimSpace(d.Name)) {
		panic(fmt.Sprintf("storage/driver: driver name %q must be lower case without spaces", d.Name))
	}
	if d.OpenStore == nil || d.OpenDB == nil {
		panic(fmt.Sprintf("storage/driver: driver %q needs OpenStore and OpenDB", d.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, taken := registry.m[d.Name]; taken {
		panic(fmt.Sprintf("storage/driver: driver %q registered twice", d.Name))
	}
	if d.Default && defaultName() != "" {
		panic(fmt.Sprintf("storage/driver: driver %q and %q are both the default", defaultName(), d.Name))
	}
	registry.m[d.Name] = d
	registry.order = append(registry.order, d.Name)
}

func defaultName() string {
	for _, n := range registry.order {
		if registry.m[n].Default {
			return n
		}
	}
	return ""
}

// Lookup returns the driver registered under name.
func Lookup(name string) (Driver, bool) {
	registry.RLock()
	defer registry.RUnlock()
	d, ok := registry.m[name]
	return d, ok
}

// Names lists the registered drivers, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := slices.Clone(registry.order)
	slices.Sort(names)
	return names
}

// DefaultName is the driver a configuration without [storage] driver
// uses.
func DefaultName() string {
	registry.RLock()
	defer registry.RUnlock()
	return defaultName()
}

// InProcessName is the driver keeping everything in this process ("" if
// none is registered).
func InProcessName() string {
	registry.RLock()
	defer registry.RUnlock()
	for _, n := range registry.order {
		if registry.m[n].InProcess {
			return n
		}
	}
	return ""
}

// Choices lists the drivers for a message, the default first:
// `"sqlite" (a file, the default), "memory" (…) or "postgres"`.
func Choices() string {
	registry.RLock()
	defer registry.RUnlock()
	names := slices.Clone(registry.order)
	slices.SortStableFunc(names, func(a, b string) int {
		switch {
		case registry.m[a].Default == registry.m[b].Default:
			return strings.Compare(a, b)
		case registry.m[a].Default:
			return -1
		}
		return 1
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = strconv.Quote(n)
		if c := registry.m[n].Choice; c != "" {
			parts[i] += " (" + c + ")"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// takers quotes the drivers that take key, "" for none.
func takers(key string) string {
	registry.RLock()
	defer registry.RUnlock()
	var out []string
	for _, n := range registry.order {
		if slices.Contains(registry.m[n].Keys, key) {
			out = append(out, strconv.Quote(n))
		}
	}
	slices.Sort(out)
	return strings.Join(out, " or ")
}

// keys are every driver's keys.
func keys() []string {
	registry.RLock()
	defer registry.RUnlock()
	var out []string
	for _, n := range registry.order {
		for _, k := range registry.m[n].Keys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// Validate checks the [storage] settings of the driver name: an unknown
// name, the keys the file sets that the driver does not take, then the
// driver's own checks, which complete s.
func Validate(name string, s *Settings, v Validation) {
	d, ok := Lookup(name)
	if !ok {
		v.Problem("storage.driver", "storage.driver = %q: use %s", name, Choices())
		return
	}
	seen := map[string]bool{}
	for _, k := range keys() {
		if slices.Contains(d.Keys, k) || !v.Defined(k) {
			continue
		}
		at, msg := "", ""
		if d.Refuse != nil {
			at, msg = d.Refuse(k, takers(k))
		}
		if at == "" {
			at, msg = "storage."+k, fmt.Sprintf("storage.%s is for driver = %s; remove it or set the driver", k, takers(k))
		}
		if !seen[at+"\x00"+msg] { // one problem for keys refused alike
			seen[at+"\x00"+msg] = true
			v.Problem(at, "%s", msg)
		}
	}
	if d.Validate != nil {
		d.Validate(s, v)
	}
}

// CheckLimits checks the bounds among keys of timeout_seconds,
// connect_timeout_seconds and max_conns (unset, each is 0 and the
// driver's default applies); maxConnsDefault says what max_conns 0 is,
// for the message.
func CheckLimits(keys []string, s *Settings, v Validation, maxConnsDefault string) {
	takes := func(k string) bool { return slices.Contains(keys, k) }
	if takes(KeyTimeout) && (s.Timeout < 0 || (s.Timeout == 0 && v.Defined(KeyTimeout))) {
		v.Problem("storage."+KeyTimeout, "storage.timeout_seconds = %v: use a positive number of seconds a storage call may wait for the database (default %v), or remove the key",
			s.Timeout.Seconds(), dbguard.DefaultCallTimeout.Seconds())
	}
	if takes(KeyConnectTimeout) && (s.ConnectTimeout < 0 || (s.ConnectTimeout == 0 && v.Defined(KeyConnectTimeout))) {
		v.Problem("storage."+KeyConnectTimeout, "storage.connect_timeout_seconds = %v: use a positive number of seconds one connection attempt may take (default %v), or remove the key",
			s.ConnectTimeout.Seconds(), dbguard.DefaultConnectTimeout.Seconds())
	}
	if takes(KeyMaxConns) && (s.MaxConns < 0 || s.MaxConns > 1<<31-1 || (s.MaxConns == 0 && v.Defined(KeyMaxConns))) {
		v.Problem("storage."+KeyMaxConns, "storage.max_conns = %d: use 1 or more connections per pool (default %s), or remove the key", s.MaxConns, maxConnsDefault)
	}
}

// Where says where a driver keeps its data with settings s.
func (d Driver) Where(s Settings) string {
	if d.Describe == nil {
		return d.Name
	}
	if d.Defaults != nil {
		d.Defaults(&s)
	}
	return d.Describe(s)
}
