package sqldb

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// Writes in transactions are prepared after the first one ends and reused
// by the next; with writers filling the pool and statements new to the
// cache all along, no prepare or close of a statement holds up a writer
// (a close under the cache's lock once stalled them all until SQLite's
// busy timeout).
func TestWriteStatementsPreparedOnce(t *testing.T) {
	ctx := context.Background()
	db, err := OpenSQLite(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `CREATE TABLE {t:things} (id TEXT PRIMARY KEY, n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	const insert = `INSERT INTO {t:things} (id, n) VALUES (?, ?)`
	var wg sync.WaitGroup
	for w := range 8 { // twice the pool
		wg.Go(func() {
			for i := range 40 {
				if err := db.InTx(ctx, func(tx *Tx) error {
					if _, err := tx.Exec(ctx, insert, fmt.Sprint(w, "-", i), i); err != nil {
						return err
					}
					// A statement new to the cache now and then, prepared
					// while the other writers hold or wait for the lock.
					_, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE {t:things} SET n = n + %d WHERE id = ?`, i), fmt.Sprint(w, "-", i))
					return err
				}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if db.stmts.cached(db.Rebind(insert)) == nil {
		t.Fatal("the insert was not prepared")
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT COUNT(*) FROM {t:things}`).Scan(&n); err != nil || n != 320 {
		t.Fatalf("%d rows, %v", n, err)
	}
	// A statement that cannot be prepared still runs, and reports its error.
	if _, err := db.Exec(ctx, `INSERT INTO {t:nothing} VALUES (1)`); err == nil {
		t.Fatal("an insert into a missing table succeeded")
	}
	for i := range maxCachedStmts { // past the bound: run unprepared
		if _, err := db.Exec(ctx, fmt.Sprintf(`UPDATE {t:things} SET n = %d WHERE id = '0-0'`, i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(db.stmts.m) > maxCachedStmts {
		t.Fatalf("%d statements cached, bound %d", len(db.stmts.m), maxCachedStmts)
	}
}
