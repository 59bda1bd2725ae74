package hitl

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// Errors of setting up the socket.
var (
	// ErrSocketInUse: a live server already answers on the socket path.
	ErrSocketInUse = errors.New("hitl: socket in use")
	// ErrSocketPath: the socket path is unusable (too long, not a socket,
	// directory missing).
	ErrSocketPath = errors.New("hitl: bad socket path")
)

// maxSocketPath is sun_path's size minus the terminating NUL.
func maxSocketPath() int {
	switch runtime.GOOS {
	case "linux", "android":
		return 107
	}
	return 103 // the BSDs and macOS
}

// socketFile is the socket's path and the inode this server linked
// there, so Close removes only its own file.
type socketFile struct {
	path string
	info fs.FileInfo
}

func (f *socketFile) remove() error {
	now, err := os.Lstat(f.path)
	if err != nil || !os.SameFile(f.info, now) {
		return nil // gone, or replaced by someone else's socket: not ours to remove
	}
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("hitl: remove socket %s: %w", f.path, err)
	}
	return nil
}

// listenUnix binds path with mode 0600.
//
// The socket is bound inside a fresh 0700 directory next to path, made
// 0600 there, and then hard-linked to path: nobody can connect before the
// mode is set (the directory hides it), no process-wide umask is touched
// (other goroutines may be creating files), and link(2) fails instead of
// replacing a socket another server placed at path meanwhile.
func listenUnix(path string) (*net.UnixListener, *socketFile, error) {
	if path == "" {
		return nil, nil, fmt.Errorf("%w: the socket path is empty; set Config.SocketPath (e.g. /tmp/agno-hitl.sock)", ErrSocketPath)
	}
	if len(path) > maxSocketPath() {
		return nil, nil, fmt.Errorf("%w: %q is %d bytes; Unix socket paths are limited to %d, choose a shorter one", ErrSocketPath, path, len(path), maxSocketPath())
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("%w: directory %s of socket %s does not exist; create it first", ErrSocketPath, dir, path)
	}
	if err := clearStale(path); err != nil {
		return nil, nil, err
	}
	tmpDir, err := os.MkdirTemp(dir, ".hitl")
	if err != nil {
		return nil, nil, fmt.Errorf("hitl: cannot create the socket in %s: %w", dir, err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "s")
	if len(tmp) > maxSocketPath() {
		return nil, nil, fmt.Errorf("%w: %q leaves no room for the temporary name %s; choose a shorter socket path", ErrSocketPath, path, tmp)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, nil, fmt.Errorf("hitl: listen on %s: %w", path, err)
	}
	ln.SetUnlinkOnClose(false) // the temporary name goes with its directory; path is removed by Close
	fail := func(err error) (*net.UnixListener, *socketFile, error) {
		ln.Close()
		return nil, nil, err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(fmt.Errorf("hitl: chmod socket: %w", err))
	}
	for attempt := 0; ; attempt++ {
		err = os.Link(tmp, path)
		if err == nil {
			break
		}
		// A file appeared between the check and the link: check it again,
		// once.
		if !errors.Is(err, fs.ErrExist) || attempt > 0 {
			return fail(fmt.Errorf("hitl: place socket at %s: %w", path, err))
		}
		if err := clearStale(path); err != nil {
			return fail(err)
		}
	}
	info, err := os.Lstat(path)
	if err != nil {
		return fail(fmt.Errorf("hitl: socket %s: %w", path, err))
	}
	return ln, &socketFile{path: path, info: info}, nil
}

// clearStale removes a socket file left by a dead server. It leaves
// anything else alone: a file that is not a socket, a socket a live
// server answers on, a socket that cannot be probed.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hitl: socket path %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w: %s exists and is not a socket; remove it or choose another socket path", ErrSocketPath, path)
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("%w: another process is serving %s; stop it or choose another socket path", ErrSocketInUse, path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("%w: %s exists and could not be probed (%v); remove it if no server uses it", ErrSocketInUse, path, err)
	}
	// Nothing answers: stale. Remove it only if it is still the file we
	// probed.
	if now, err := os.Lstat(path); err == nil && os.SameFile(fi, now) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("hitl: remove stale socket %s: %w", path, err)
		}
	}
	return nil
}
