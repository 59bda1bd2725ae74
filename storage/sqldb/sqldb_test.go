package sqldb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agno-go/agno/storage/sqldb"
	"github.com/agno-go/agno/storage/sqldb/sqldbtest"
)

func TestMigrateRebindConflict(t *testing.T) {
	sqldbtest.Each(t, func(t *testing.T, db *sqldb.DB) {
		ctx := context.Background()
		ms := []sqldb.Migration{{Table: "agno_things", Version: 1, Stmts: []string{
			`CREATE TABLE {t:agno_things} (id TEXT PRIMARY KEY, doc ` + db.JSON() + `, note TEXT)`,
		}}}
		for range 2 { // a second start migrates nothing
			if err := db.Migrate(ctx, ms); err != nil {
				t.Fatal(err)
			}
		}
		v, err := db.Versions(ctx)
		if err != nil || v["agno_things"] != 1 {
			t.Fatalf("versions %v, %v", v, err)
		}
		if _, err := db.Exec(ctx, `INSERT INTO {t:agno_things} (id, doc, note) VALUES (?, ?, 'what?')`, "a", `{"k":1}`); err != nil {
			t.Fatal(err)
		}
		_, err = db.Exec(ctx, `INSERT INTO {t:agno_things} (id, doc, note) VALUES (?, ?, ?)`, "a", `{}`, "")
		if !errors.Is(err, sqldb.ErrConflict) {
			t.Fatalf("duplicate key: %v, want ErrConflict", err)
		}
		var doc, note string
		if err := db.QueryRow(ctx, `SELECT doc, note FROM {t:agno_things} WHERE id = ?`, "a").Scan(&doc, &note); err != nil {
			t.Fatal(err)
		}
		if note != "what?" || (doc != `{"k":1}` && doc != `{"k": 1}`) {
			t.Fatalf("row %q %q", doc, note)
		}
		// A later version applies only its own statements.
		ms = append(ms, sqldb.Migration{Table: "agno_things", Version: 2, Stmts: []string{`ALTER TABLE {t:agno_things} ADD COLUMN extra TEXT`}})
		if err := db.Migrate(ctx, ms); err != nil {
			t.Fatal(err)
		}
		if v, _ := db.Versions(ctx); v["agno_things"] != 2 {
			t.Fatalf("versions %v", v)
		}
	})
}

func TestMemorySQLiteIsPrivate(t *testing.T) {
	ctx := context.Background()
	a, err := sqldb.OpenSQLite(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqldb.OpenSQLite(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.Exec(ctx, `CREATE TABLE {t:x} (id TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Exec(ctx, `SELECT id FROM {t:x}`); err == nil {
		t.Fatal("two in-memory databases share a table")
	}
}
