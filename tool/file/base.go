package file

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Base is a directory every path argument is confined to. The file
// toolkit and the toolkits that read and write files for a model (python,
// file_generation) share it, so one escape check serves them all.
type Base struct {
	dir   string // symlinks resolved
	alias string // as configured, made absolute
}

// OpenBase resolves dir (empty: the current directory), which must be an
// existing directory.
func OpenBase(dir string) (*Base, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("base directory is empty and the current directory is unknown: %w", err)
		}
		dir = wd
	}
	alias, err := filepath.Abs(dir)
	abs := alias
	if err == nil {
		abs, err = filepath.EvalSymlinks(alias)
	}
	if err != nil {
		return nil, fmt.Errorf("base directory %q: %w", dir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("base directory %q is not a directory: create it or point the base directory elsewhere", abs)
	}
	return &Base{dir: abs, alias: alias}, nil
}

// Dir is the base directory, symlinks resolved.
func (b *Base) Dir() string { return b.dir }

// Resolve turns a path argument into a path relative to the base ("."
// for the base itself), or refuses it with an error wrapping
// ErrOutsideBase that names the argument, the path and the base.
func (b *Base) Resolve(field, name string) (string, error) {
	p := name
	if filepath.IsAbs(p) {
		// Relative to the base, as resolved or as configured.
		r, err := filepath.Rel(b.dir, filepath.Clean(p))
		if err != nil || !filepath.IsLocal(r) {
			if r2, err2 := filepath.Rel(b.alias, filepath.Clean(p)); err2 == nil && filepath.IsLocal(r2) {
				r, err = r2, nil
			}
		}
		if err != nil {
			return "", b.outside(field, name)
		}
		p = r
	}
	p = filepath.Clean(p)
	if p != "." && !filepath.IsLocal(p) {
		return "", b.outside(field, name)
	}
	if err := b.checkSymlinks(field, name, p); err != nil {
		return "", err
	}
	return p, nil
}

func (b *Base) outside(field, name string) error {
	return fmt.Errorf("%w: %s %q is outside the base directory %q", ErrOutsideBase, field, name, b.dir)
}

// checkSymlinks refuses a path whose existing part goes through a symlink
// that resolves outside the base. os.Root enforces the same at access
// time; this gives the refusal a useful message.
func (b *Base) checkSymlinks(field, name, rel string) error {
	if rel == "." {
		return nil
	}
	cur := b.dir
	for _, comp := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, comp)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // the rest does not exist yet
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		target, err := filepath.EvalSymlinks(cur)
		if err != nil { // dangling: where it would lead
			link, rerr := os.Readlink(cur)
			if rerr != nil {
				return nil
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(cur), link)
			}
			target = filepath.Clean(link)
		}
		if !b.within(target) {
			linkRel, _ := filepath.Rel(b.dir, cur)
			return fmt.Errorf("%w: %s %q goes through the symlink %q, which points to %q, outside the base directory %q",
				ErrOutsideBase, field, name, linkRel, target, b.dir)
		}
	}
	return nil
}

func (b *Base) within(p string) bool {
	r, err := filepath.Rel(b.dir, p)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// RootErr turns os.Root's refusal of an escape into ErrOutsideBase.
func (b *Base) RootErr(field, name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return b.outside(field, name)
	}
	return err
}

// WithRoot opens the base as an os.Root for one operation, so no access
// inside fn leaves it, even through a symlink swapped in after Resolve.
func (b *Base) WithRoot(fn func(*os.Root) error) error {
	root, err := os.OpenRoot(b.dir)
	if err != nil {
		return fmt.Errorf("opening base directory: %w", err)
	}
	defer root.Close()
	return fn(root)
}

// ReadFile reads the file a path argument names.
func (b *Base) ReadFile(field, name string) ([]byte, error) {
	rel, err := b.Resolve(field, name)
	if err != nil {
		return nil, err
	}
	var data []byte
	if err := b.WithRoot(func(root *os.Root) (err error) { data, err = root.ReadFile(rel); return err }); err != nil {
		return nil, b.RootErr(field, name, err)
	}
	return data, nil
}

// WriteFile writes the file a path argument names, creating its parent
// directories. Without overwrite an existing file is left alone and
// exists is true. It returns the path relative to the base.
func (b *Base) WriteFile(field, name string, data []byte, overwrite bool) (rel string, exists bool, err error) {
	if name == "" {
		return "", false, fmt.Errorf("%s is empty: name the file, relative to the base directory", field)
	}
	rel, err = b.Resolve(field, name)
	if err != nil {
		return "", false, err
	}
	if rel == "." {
		return "", false, fmt.Errorf("%s %q is the base directory itself, not a file", field, name)
	}
	err = b.WithRoot(func(root *os.Root) error {
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if !overwrite {
			flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
		}
		w, err := root.OpenFile(rel, flags, 0o644)
		if errors.Is(err, fs.ErrExist) && !overwrite {
			exists = true
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	})
	if err != nil {
		return "", false, b.RootErr(field, name, err)
	}
	return rel, exists, nil
}
