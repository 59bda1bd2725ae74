// Package file is agno's FileTools: save, read, list and search files,
// confined to one base directory.
//
// Confinement is enforced by os.Root, so no path — "..", an absolute
// path, or a symlink inside the base that points outside it, even one
// swapped in between a check and the access — reaches a file outside the
// base. Before that, each path is checked so that a refusal names the
// path, the symlink it went through and the base directory.
package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/tool"
)

// ErrOutsideBase is wrapped by every refusal of a path outside the base
// directory.
var ErrOutsideBase = errors.New("path is outside the base directory")

// Config configures the toolkit.
type Config struct {
	// BaseDir confines every path; empty means the current directory. It
	// must exist; symlinks in it are resolved once, here.
	BaseDir string
	// MaxFileLength and MaxFileLines bound what read_file returns whole;
	// 0 means agno's 10,000,000 characters and 100,000 lines.
	MaxFileLength int
	MaxFileLines  int
	// ReadOnly leaves out save_file.
	ReadOnly bool

	// Name of the toolkit; empty means "file_tools".
	Name            string
	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

type files struct {
	base     string // symlinks resolved
	alias    string // as configured, made absolute
	maxLen   int
	maxLines int
	log      *slog.Logger
}

type saveArgs struct {
	Contents  string `json:"contents" description:"The contents to save."`
	FileName  string `json:"file_name" description:"The name of the file to save to, relative to the base directory."`
	Overwrite *bool  `json:"overwrite,omitempty" description:"Overwrite the file if it already exists (default true)."`
}

type readArgs struct {
	FileName string `json:"file_name" description:"The name of the file to read, relative to the base directory."`
}

type listArgs struct {
	Directory *string `json:"directory,omitempty" description:"(Optional) name of directory to list, relative to the base directory (default: the base directory)."`
}

type searchArgs struct {
	Pattern string `json:"pattern" description:"The pattern to search for, e.g. \"*.txt\", \"file*.csv\", \"**/*.py\"."`
}

// New validates the configuration and returns the "file_tools" toolkit:
// save_file (unless ReadOnly), read_file, list_files and search_files.
func New(cfg Config) (*tool.Toolkit, error) {
	base := cfg.BaseDir
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("file: BaseDir is empty and the current directory is unknown: %w", err)
		}
		base = wd
	}
	alias, err := filepath.Abs(base)
	abs := alias
	if err == nil {
		abs, err = filepath.EvalSymlinks(alias)
	}
	if err != nil {
		return nil, fmt.Errorf("file: BaseDir %q: %w", cfg.BaseDir, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("file: BaseDir %q is not a directory: create it or point BaseDir elsewhere", abs)
	}
	if cfg.MaxFileLength < 0 || cfg.MaxFileLines < 0 {
		return nil, errors.New("file: MaxFileLength and MaxFileLines must not be negative (0 means the default)")
	}
	f := &files{base: abs, alias: alias, maxLen: cfg.MaxFileLength, maxLines: cfg.MaxFileLines, log: cfg.Logger}
	if f.maxLen == 0 {
		f.maxLen = 10_000_000
	}
	if f.maxLines == 0 {
		f.maxLines = 100_000
	}
	if f.log == nil {
		f.log = slog.Default()
	}

	save, errSave := tool.New("save_file", "Saves the contents to a file called `file_name` and returns the file name if successful.", f.save)
	read, errRead := tool.New("read_file", "Reads the contents of the file `file_name` and returns the contents if successful.", f.read)
	list, errList := tool.New("list_files", "Returns a list of files in directory.", f.list)
	search, errSearch := tool.New("search_files", "Searches for files in the base directory that match the pattern.", f.search)
	if err := errors.Join(errSave, errRead, errList, errSearch); err != nil {
		return nil, err
	}
	fns := []*tool.Function{save, read, list, search}
	if cfg.ReadOnly {
		fns = fns[1:]
	}
	name := cfg.Name
	if name == "" {
		name = "file_tools"
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: name, Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions})
}

// resolve turns a path argument into a path relative to the base, or
// refuses it with an error naming the argument, the path and the base.
func (f *files) resolve(field, name string) (string, error) {
	p := name
	if filepath.IsAbs(p) {
		// Relative to the base, as resolved or as configured.
		r, err := filepath.Rel(f.base, filepath.Clean(p))
		if err != nil || !filepath.IsLocal(r) {
			if r2, err2 := filepath.Rel(f.alias, filepath.Clean(p)); err2 == nil && filepath.IsLocal(r2) {
				r, err = r2, nil
			}
		}
		if err != nil {
			return "", f.outside(field, name)
		}
		p = r
	}
	p = filepath.Clean(p)
	if p != "." && !filepath.IsLocal(p) {
		return "", f.outside(field, name)
	}
	if err := f.checkSymlinks(field, name, p); err != nil {
		return "", err
	}
	return p, nil
}

func (f *files) outside(field, name string) error {
	return fmt.Errorf("%w: %s %q is outside the base directory %q", ErrOutsideBase, field, name, f.base)
}

// checkSymlinks refuses a path whose existing part goes through a symlink
// that resolves outside the base. os.Root enforces the same at access
// time; this gives the refusal a useful message.
func (f *files) checkSymlinks(field, name, rel string) error {
	if rel == "." {
		return nil
	}
	cur := f.base
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
		if !f.within(target) {
			linkRel, _ := filepath.Rel(f.base, cur)
			return fmt.Errorf("%w: %s %q goes through the symlink %q, which points to %q, outside the base directory %q",
				ErrOutsideBase, field, name, linkRel, target, f.base)
		}
	}
	return nil
}

func (f *files) within(p string) bool {
	r, err := filepath.Rel(f.base, p)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

// rootErr turns os.Root's refusal into ErrOutsideBase.
func (f *files) rootErr(field, name string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent" {
		return f.outside(field, name)
	}
	return err
}

// withRoot opens the base as an os.Root for one operation.
func (f *files) withRoot(fn func(*os.Root) error) error {
	root, err := os.OpenRoot(f.base)
	if err != nil {
		return fmt.Errorf("file: opening base directory: %w", err)
	}
	defer root.Close()
	return fn(root)
}

func (f *files) save(_ context.Context, a saveArgs) (string, error) {
	if a.FileName == "" {
		return "", errors.New("file: file_name is empty: name the file to save, relative to the base directory")
	}
	rel, err := f.resolve("file_name", a.FileName)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("file: file_name %q is the base directory itself, not a file", a.FileName)
	}
	exists := false
	err = f.withRoot(func(root *os.Root) error {
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if a.Overwrite != nil && !*a.Overwrite {
			flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
		}
		w, err := root.OpenFile(rel, flags, 0o644)
		if errors.Is(err, fs.ErrExist) {
			exists = true
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := w.WriteString(a.Contents); err != nil {
			w.Close()
			return err
		}
		return w.Close()
	})
	if err != nil {
		return "", f.rootErr("file_name", a.FileName, err)
	}
	if exists {
		return "File " + a.FileName + " already exists", nil
	}
	f.log.Debug("file: saved", "file", rel)
	return a.FileName, nil
}

func (f *files) read(_ context.Context, a readArgs) (string, error) {
	rel, err := f.resolve("file_name", a.FileName)
	if err != nil {
		return "", err
	}
	var data []byte
	if err := f.withRoot(func(root *os.Root) (err error) { data, err = root.ReadFile(rel); return err }); err != nil {
		return "", f.rootErr("file_name", a.FileName, err)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("file: %q is not UTF-8 text", a.FileName)
	}
	s := string(data)
	if n, lines := utf8.RuneCountInString(s), strings.Count(s, "\n")+1; n > f.maxLen || lines > f.maxLines {
		return "", fmt.Errorf("file: %q is too long to read whole: %d characters in %d lines (limits %d and %d)", a.FileName, n, lines, f.maxLen, f.maxLines)
	}
	return s, nil
}

func (f *files) list(_ context.Context, a listArgs) (string, error) {
	dir := "."
	if a.Directory != nil && *a.Directory != "" {
		dir = *a.Directory
	}
	rel, err := f.resolve("directory", dir)
	if err != nil {
		return "", err
	}
	var entries []fs.DirEntry
	err = f.withRoot(func(root *os.Root) error {
		d, err := root.Open(rel)
		if err != nil {
			return err
		}
		defer d.Close()
		entries, err = d.ReadDir(-1)
		return err
	})
	if err != nil {
		return "", f.rootErr("directory", dir, err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, path.Join(filepath.ToSlash(rel), e.Name()))
	}
	slices.Sort(out)
	return pyDumps(out, "    ")
}

type searchResult struct {
	Pattern      string   `json:"pattern"`
	MatchesFound int      `json:"matches_found"`
	Files        []string `json:"files"`
}

func (f *files) search(_ context.Context, a searchArgs) (string, error) {
	if strings.TrimSpace(a.Pattern) == "" {
		return "", errors.New("file: pattern is empty: give a glob such as \"*.txt\" or \"**/*.py\"")
	}
	pat, err := parsePattern(a.Pattern)
	if err != nil {
		return "", err
	}
	matches := []string{}
	err = f.withRoot(func(root *os.Root) error {
		return fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == "." {
					return err
				}
				return nil // unreadable entries are skipped, as pathlib does
			}
			if p == "." {
				return nil
			}
			segs := strings.Split(p, "/")
			if matchSegments(pat, segs, d.IsDir()) {
				matches = append(matches, p)
			}
			if d.IsDir() && !canDescend(pat, segs) {
				return fs.SkipDir
			}
			return nil
		})
	})
	if err != nil {
		return "", fmt.Errorf("file: searching %q: %w", a.Pattern, err)
	}
	return pyDumps(searchResult{Pattern: a.Pattern, MatchesFound: len(matches), Files: matches}, "  ")
}

// parsePattern splits a relative glob into segments; "**" matches any
// number of directories, other segments use path.Match syntax.
func parsePattern(p string) ([]string, error) {
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		return nil, fmt.Errorf("file: pattern %q is absolute: patterns are relative to the base directory", p)
	}
	var segs []string
	for s := range strings.SplitSeq(p, "/") {
		switch s {
		case "", ".":
			continue
		case "..":
			return nil, fmt.Errorf("%w: pattern %q leaves the base directory with \"..\"", ErrOutsideBase, p)
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("file: pattern %q: segment %q: %w", p, s, err)
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("file: pattern %q matches nothing but the base directory", p)
	}
	return segs, nil
}

// matchSegments reports whether a path matches the pattern; a trailing
// "**" matches directories only, as in pathlib.
func matchSegments(pat, segs []string, isDir bool) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return isDir
		}
		for k := 0; k < len(segs); k++ {
			if matchSegments(pat[1:], segs[k:], isDir) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], segs[0]); !ok {
		return false
	}
	return matchSegments(pat[1:], segs[1:], isDir)
}

// canDescend reports whether anything below the directory segs could
// still match.
func canDescend(pat, segs []string) bool {
	for i, s := range segs {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[i], s); !ok {
			return false
		}
	}
	return len(segs) < len(pat)
}
