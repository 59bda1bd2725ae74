// Package faultfs gives tests a real filesystem that runs out of space:
// a small tmpfs mounted for the test, and a way to fill it, so storage
// meets ENOSPC ("database or disk is full") from the kernel rather than
// from a stub.
package faultfs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size bytes on a new directory and unmounts it
// when the test ends. Mounting needs root (CI runs as root): elsewhere the
// test is skipped, except under CI, where it fails.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("mount a tmpfs (needs root): %v %s", err, out)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a file into dir until the filesystem is full, and returns
// a function that frees the space again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	for {
		_, err := f.Write(buf)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			f.Close()
			t.Fatal(err)
		}
	}
	// Small writes fit into the last partial page: fill that too.
	for {
		if _, err := f.Write(buf[:512]); err != nil {
			break
		}
	}
	f.Close()
	return func() { _ = os.Remove(p) }
}
