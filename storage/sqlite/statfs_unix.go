//go:build unix

package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// statFS reads the filesystem's read-only flag and free space; zero
// when it cannot. A filesystem the kernel turned read-only after an
// error (ext4 errors=remount-ro) may keep its read-write mount flags,
// so when statfs sees nothing wrong a file made and removed in dir
// asks the filesystem itself.
func statFS(dir string) fsState {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fsState{}
	}
	const rdonly = 0x1 // ST_RDONLY (Linux), MNT_RDONLY (the BSDs, macOS)
	fs := fsState{readOnly: int64(st.Flags)&rdonly != 0, full: st.Bavail == 0}
	if fs.readOnly || fs.full {
		return fs
	}
	f, err := os.CreateTemp(dir, ".agno-probe-*")
	if err != nil {
		return fsState{readOnly: errors.Is(err, syscall.EROFS), full: errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)}
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return fs
}
