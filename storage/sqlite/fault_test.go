package sqlite

// The database file on a filesystem that fills up or turns read-only:
// real filesystems (a tmpfs, an ext4 image on a loop device) mounted for
// the test, so SQLite meets ENOSPC and EROFS from the kernel. Mounting
// needs root: elsewhere the tests skip, except under CI.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agno-go/agno/internal/faultfs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/storetest"
)

func openAt(t *testing.T, path string) *Store {
	t.Helper()
	st, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// bigEvent is larger than anything stored before it: its write needs
// new space in the WAL.
func bigEvent() json.RawMessage {
	return json.RawMessage(`{"event":"RunContent","content":"` + strings.Repeat("x", 2<<20) + `"}`)
}

// wantUnwritable fails the test unless err is storage.ErrUnwritable
// saying every part (a file name, why).
func wantUnwritable(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s worked", what)
		return
	}
	if !errors.Is(err, storage.ErrUnwritable) {
		t.Errorf("%s: %v\nwant an error wrapping storage.ErrUnwritable", what, err)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %q does not say %q", what, err, p)
		}
	}
}

// writes tries one write of each kind; all must fail with err's parts.
func writesFail(t *testing.T, st *Store, parts ...string) {
	t.Helper()
	ctx := t.Context()
	_, err := st.AppendEvents(ctx, "run-0", bigEvent())
	wantUnwritable(t, "AppendEvents", err, parts...)
	_, _, err = st.EnsureSession(ctx, &storage.Session{SessionID: "new", SessionType: storage.SessionAgent, CreatedAt: 1, UpdatedAt: 1,
		Data: map[string]any{"pad": strings.Repeat("y", 2<<20)}})
	wantUnwritable(t, "EnsureSession", err, parts...)
	err = st.UpsertMemory(ctx, &storage.Memory{MemoryID: "new", Memory: strings.Repeat("z", 2<<20), UpdatedAt: 1})
	wantUnwritable(t, "UpsertMemory", err, parts...)
}

func TestFullFilesystem(t *testing.T) {
	dir := faultfs.Tmpfs(t, 32<<20)
	path := filepath.Join(dir, "agno.db")
	st := openAt(t, path)
	storetest.Seed(t, st, 0, 5)

	free := faultfs.Fill(t, dir)
	writesFail(t, st, "agno.db", "is full")
	if strings.Contains(fmt.Sprint(st.Ping(t.Context())), dir) {
		t.Error("the error names the directory: it may reach API clients")
	}
	// Reads still work, and the readiness check says why writes do not.
	storetest.CheckSeeded(t, st, 5)
	err := storage.Ping(t.Context(), st)
	wantUnwritable(t, "storage.Ping on a full filesystem", err, "agno.db", "is full")

	free()
	if _, err := st.AppendEvents(t.Context(), "run-0", bigEvent()); err != nil {
		t.Fatalf("AppendEvents once space is free: %v", err)
	}
	storetest.Seed(t, st, 5, 6)
	if err := storage.Ping(t.Context(), st); err != nil {
		t.Errorf("storage.Ping once space is free: %v", err)
	}
	storetest.CheckSeeded(t, st, 6)

	// Nothing is lost across a restart either.
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openAt(t, path)
	storetest.CheckSeeded(t, st, 6)
	if ev, err := st.ListEvents(t.Context(), "run-0", -1); err != nil || len(ev) != 3 {
		t.Errorf("events of run-0 after the restart: %d, %v; want 3", len(ev), err)
	}
}

// ext4 makes an ext4 filesystem in an image file, mounts it through a
// loop device with errors=remount-ro, and returns the mount point, the
// device's name and the image. It skips (fails under CI) where that
// cannot be done.
func ext4(t *testing.T) (dir, dev, img string) {
	t.Helper()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if os.Geteuid() != 0 {
		skip("mounting an ext4 image needs root")
	}
	img = filepath.Join(t.TempDir(), "fs.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		skip("mkfs.ext4: %v %s", err, out)
	}
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-o", "loop,errors=remount-ro", img, dir).CombinedOutput(); err != nil {
		skip("mount an ext4 image on a loop device: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", dir).Output()
	if err != nil {
		t.Fatalf("findmnt %s: %v", dir, err)
	}
	return dir, filepath.Base(strings.TrimSpace(string(out))), img
}

// repairExt4 unmounts the failed filesystem, checks it and mounts it
// again read-write: what an operator does after the disk error.
func repairExt4(t *testing.T, dir, img string) {
	t.Helper()
	for _, c := range [][]string{
		{"umount", dir},
		{"e2fsck", "-fy", img},
		{"mount", "-o", "loop,errors=remount-ro", img, dir},
	} {
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		var exit *exec.ExitError
		if c[0] == "e2fsck" && errors.As(err, &exit) && exit.ExitCode() <= 1 {
			err = nil // 1: errors corrected (the error the test triggered)
		}
		if err != nil {
			t.Fatalf("%s: %v %s", strings.Join(c, " "), err, out)
		}
	}
}

// TestFilesystemTurnsReadOnly has the kernel remount the filesystem
// under a running store read-only, as it does after a disk error
// (errors=remount-ro).
func TestFilesystemTurnsReadOnly(t *testing.T) {
	dir, dev, img := ext4(t)
	trigger := "/sys/fs/ext4/" + dev + "/trigger_fs_error"
	if _, err := os.Stat(trigger); err != nil {
		t.Skipf("this kernel cannot be told to fail ext4 (%v)", err)
	}
	path := filepath.Join(dir, "agno.db")
	st := openAt(t, path)
	storetest.Seed(t, st, 0, 5)
	syscall.Sync() // what was written is on the disk before it fails
	if err := os.WriteFile(trigger, []byte("agno fault test"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o600); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("the filesystem did not turn read-only: %v", err)
	}

	writesFail(t, st, "agno.db", "read-only")
	storetest.CheckSeeded(t, st, 5)
	wantUnwritable(t, "storage.Ping on a read-only filesystem", storage.Ping(t.Context(), st), "agno.db", "read-only")

	// Repaired, the filesystem has everything stored before it failed.
	st.Close()
	repairExt4(t, dir, img)
	st = openAt(t, path)
	storetest.CheckSeeded(t, st, 5)
	storetest.Seed(t, st, 5, 6)
	storetest.CheckSeeded(t, st, 6)
	if err := storage.Ping(t.Context(), st); err != nil {
		t.Errorf("storage.Ping once repaired: %v", err)
	}
}

// TestReadOnlyFilesystem opens the database on a filesystem mounted
// read-only (a tmpfs remounted ro; Linux refuses that while the file is
// open for writing, so the store is closed around it), then makes it
// writable again.
func TestReadOnlyFilesystem(t *testing.T) {
	dir := faultfs.Tmpfs(t, 32<<20)
	path := filepath.Join(dir, "agno.db")
	st := openAt(t, path)
	storetest.Seed(t, st, 0, 5)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	remount := func(mode string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+mode, dir).CombinedOutput(); err != nil {
			t.Fatalf("remount %s %s: %v %s", dir, mode, err, out)
		}
	}
	remount("ro")
	defer remount("rw")
	st, err := Open(t.Context(), Config{Path: path, Logger: quiet})
	if err != nil {
		wantUnwritable(t, "Open on a read-only filesystem", err, "agno.db", "read-only")
		t.Logf("Open: %v", err)
	} else {
		t.Cleanup(func() { st.Close() })
		writesFail(t, st, "agno.db", "read-only")
		storetest.CheckSeeded(t, st, 5)
		wantUnwritable(t, "storage.Ping on a read-only filesystem", storage.Ping(t.Context(), st), "agno.db", "read-only")
		st.Close()
	}
	remount("rw")
	st = openAt(t, path)
	storetest.CheckSeeded(t, st, 5)
	storetest.Seed(t, st, 5, 6)
	storetest.CheckSeeded(t, st, 6)
}
