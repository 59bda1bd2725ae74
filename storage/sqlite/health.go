package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/internal/dbguard"
)

// DefaultCallTimeout is Config.CallTimeout's default.
const DefaultCallTimeout = dbguard.DefaultCallTimeout

// bound gives one call of the store its deadline.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return dbguard.Bound(ctx, s.timeout)
}

// Ping implements storage.Pinger: a read of the file, and the last
// write's failure to reach it while no commit succeeded since (the run
// engine's heartbeat writes every few seconds, so a filesystem that
// became writable again is noticed).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.check(); err != nil {
		return err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM agno_schema_versions`).Scan(&n); err != nil {
		return s.fail(fmt.Errorf("sqlite: ping: %w", err))
	}
	if u := s.unwritable.Load(); u != nil {
		return *u
	}
	return nil
}

// unwritableError explains an error of SQLite failing to write the
// database file, by what the filesystem says: read-only, full, or not
// writable by this process. nil for any other error.
func (s *Store) unwritableError(err error) error {
	var e *sqlitedrv.Error
	if !errors.As(err, &e) || s.path == ":memory:" {
		return nil
	}
	code := e.Code() & 0xff
	switch code {
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR:
	default:
		return nil
	}
	name := filepath.Base(s.path) // a base name: errors may reach API clients
	var why string
	switch fs := statFS(filepath.Dir(s.path)); {
	case fs.readOnly:
		why = fmt.Sprintf("%s is on a read-only filesystem: remount it read-write, or set [storage] path (sqlite.Config.Path) to a writable place", name)
	case code == sqlite3.SQLITE_FULL || fs.full:
		why = fmt.Sprintf("the filesystem holding %s is full (database or disk is full): free space on it, or move the database to a larger one", name)
	case code == sqlite3.SQLITE_READONLY || code == sqlite3.SQLITE_CANTOPEN:
		why = fmt.Sprintf("%s or its directory is not writable by this process (uid %d): give it write permission on the file, its -wal and -shm files and the directory, or set [storage] path elsewhere", name, os.Getuid())
	default:
		return nil // an I/O error the filesystem does not explain
	}
	return fmt.Errorf("%w: %s (%w)", storage.ErrUnwritable, why, err)
}

type fsState struct{ readOnly, full bool }
