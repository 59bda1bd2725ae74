// Package privatefile creates files only their user may read: databases
// that hold conversations, before SQLite opens them (SQLite gives the
// -wal and -shm files the database file's mode).
package privatefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Create makes path, and its directory, readable by this user only. A
// file that exists is left as it is; open reports whether others can read
// it, with its mode, so the caller can warn.
func Create(path string) (open bool, mode fs.FileMode, err error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, 0, fmt.Errorf("create its directory: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		return false, 0, f.Close()
	case errors.Is(err, os.ErrExist):
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			return true, fi.Mode().Perm(), nil
		}
		return false, 0, nil
	}
	return false, 0, err
}
