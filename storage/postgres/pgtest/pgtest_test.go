package pgtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestProbe is run by TestRequire in a child process.
func TestProbe(t *testing.T) {
	if os.Getenv("PGTEST_PROBE") != "1" {
		t.Skip("helper for TestRequire")
	}
	DSN(t)
}

func TestRequire(t *testing.T) {
	// Port 1 on loopback refuses connections.
	const unreachable = "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2"
	for _, c := range []struct {
		name, dsn, require string
		wantFail           bool
		wantOut            string
	}{
		{"unset skips", "", "", false, "not set: skipping"},
		{"unset but required fails", "", "1", true, "is not set"},
		{"unreachable skips", unreachable, "", false, "unreachable, skipping"},
		{"unreachable but required fails", unreachable, "1", true, "is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestProbe$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "PGTEST_PROBE=1", EnvDSN+"="+c.dsn, EnvRequire+"="+c.require)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.wantFail {
				t.Errorf("child failed = %v, want %v\n%s", failed, c.wantFail, out)
			}
			if !strings.Contains(string(out), c.wantOut) {
				t.Errorf("child output lacks %q:\n%s", c.wantOut, out)
			}
		})
	}
}

func TestSchemaDropped(t *testing.T) {
	dsn := DSN(t)
	var name string
	t.Run("uses a schema", func(t *testing.T) {
		name = Schema(t, dsn)
		if !strings.HasPrefix(name, "agno_test_") {
			t.Errorf("schema name %q", name)
		}
		conn := connect(t, dsn)
		if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+name+"; CREATE TABLE "+name+".x (a int)"); err != nil {
			t.Fatal(err)
		}
	})
	conn := connect(t, dsn)
	var n int
	if err := conn.QueryRow(t.Context(), "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = $1", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("schema %s still exists after its test ended", name)
	}
}

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
