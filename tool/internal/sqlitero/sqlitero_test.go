package sqlitero_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/agno-go/agno/tool/internal/sqlitero"
)

// On a read-only database neither ATTACH (a URI may ask for rwc) nor
// VACUUM INTO creates or writes another file.
func TestNoOtherFiles(t *testing.T) {
	dir := t.TempDir()
	w, err := sql.Open("sqlite", filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, err := sql.Open(sqlitero.DriverName, "file:"+filepath.Join(dir, "a.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"ATTACH DATABASE 'file:" + filepath.Join(dir, "evil.db") + "?mode=rwc' AS e",
		"ATTACH DATABASE '" + filepath.Join(dir, "evil2.db") + "' AS e2",
		"VACUUM INTO '" + filepath.Join(dir, "evil3.db") + "'",
		"INSERT INTO t VALUES (2)",
	} {
		if _, err := db.Exec(q); err == nil {
			t.Errorf("%s: no error", q)
		} else if !strings.Contains(err.Error(), "not authorized") && !strings.Contains(err.Error(), "readonly") {
			t.Logf("%s: %v", q, err)
		}
	}
	for _, f := range []string{"evil.db", "evil2.db", "evil3.db"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("reads: %d %v", n, err)
	}
}
