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
	// MaxFileLength and MaxFileLines bound what read_file returns whole
	// and what read_file_chunk returns; 0 means agno's 10,000,000
	// characters and 100,000 lines.
	MaxFileLength int
	MaxFileLines  int
	// LineSeparator splits lines for read_file and the chunk functions;
	// empty means agno's "\n".
	LineSeparator string
	// Functions are agno's enable_* flags; nil means agno's defaults
	// (DefaultFunctions: all but delete_file).
	Functions *Functions
	// ExcludePatterns are left out of list_files, search_files and
	// search_content (fnmatch patterns against every path component);
	// nil means DefaultExcludePatterns, empty means none.
	ExcludePatterns []string
	// ReadOnly leaves out every function that writes: save_file,
	// replace_file_chunk and delete_file.
	ReadOnly bool

	// Name of the toolkit; empty means "file_tools".
	Name            string
	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

// Functions are agno's FileTools enable_* flags; All turns every one on.
type Functions struct {
	SaveFile, ReadFile, DeleteFile, ListFiles, SearchFiles bool
	ReadFileChunk, ReplaceFileChunk, SearchContent         bool
	All                                                    bool
}

// DefaultFunctions are agno's defaults: every function but delete_file.
func DefaultFunctions() Functions {
	return Functions{SaveFile: true, ReadFile: true, ListFiles: true, SearchFiles: true, ReadFileChunk: true, ReplaceFileChunk: true, SearchContent: true}
}

type files struct {
	*Base
	maxLen   int
	maxLines int
	sep      string
	exclude  []string
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

type readChunkArgs struct {
	FileName  string `json:"file_name" description:"The name of the file to read."`
	StartLine int    `json:"start_line" description:"Number of first line in the returned chunk"`
	EndLine   int    `json:"end_line" description:"Number of the last line in the returned chunk"`
}

type replaceChunkArgs struct {
	FileName  string `json:"file_name" description:"The name of the file to process."`
	StartLine int    `json:"start_line" description:"Number of first line in the replaced chunk"`
	EndLine   int    `json:"end_line" description:"Number of the last line in the replaced chunk"`
	Chunk     string `json:"chunk" description:"String to be inserted instead of lines from start_line to end_line. Can have multiple lines."`
}

type deleteArgs struct {
	FileName string `json:"file_name" description:"Name of the file to delete"`
}

type searchContentArgs struct {
	Query     string  `json:"query" description:"The text to search for in file contents."`
	Directory *string `json:"directory,omitempty" description:"Optional subdirectory to scope the search to."`
	Limit     *int    `json:"limit,omitempty" description:"Maximum number of matching files to return (default 10)."`
}

// New validates the configuration and returns the "file_tools" toolkit
// with the functions its flags enable, in agno's order: save_file,
// read_file, list_files, search_files, delete_file, read_file_chunk,
// replace_file_chunk and search_content.
func New(cfg Config) (*tool.Toolkit, error) {
	base, err := OpenBase(cfg.BaseDir)
	if err != nil {
		return nil, fmt.Errorf("file: BaseDir: %w", err)
	}
	if cfg.MaxFileLength < 0 || cfg.MaxFileLines < 0 {
		return nil, errors.New("file: MaxFileLength and MaxFileLines must not be negative (0 means the default)")
	}
	f := &files{Base: base, maxLen: cfg.MaxFileLength, maxLines: cfg.MaxFileLines, sep: cfg.LineSeparator, exclude: cfg.ExcludePatterns, log: cfg.Logger}
	if f.exclude == nil {
		f.exclude = DefaultExcludePatterns
	}
	if f.maxLen == 0 {
		f.maxLen = 10_000_000
	}
	if f.maxLines == 0 {
		f.maxLines = 100_000
	}
	if f.sep == "" {
		f.sep = "\n"
	}
	if f.log == nil {
		f.log = slog.Default()
	}
	on := DefaultFunctions()
	if cfg.Functions != nil {
		on = *cfg.Functions
	}
	writes := !cfg.ReadOnly
	e := tool.Enabled{All: on.All}
	e.If(on.SaveFile && writes)(tool.New("save_file", "Saves the contents to a file called `file_name` and returns the file name if successful.", f.save))
	e.If(on.ReadFile)(tool.New("read_file", "Reads the contents of the file `file_name` and returns the contents if successful.", f.read))
	e.If(on.ListFiles)(tool.New("list_files", "Returns a list of files in directory.", f.list))
	e.If(on.SearchFiles)(tool.New("search_files", "Searches for files in the base directory that match the pattern.", f.search))
	e.If(on.DeleteFile && writes)(tool.New("delete_file", "Deletes a file", f.delete))
	e.If(on.ReadFileChunk)(tool.New("read_file_chunk", "Reads the contents of the file `file_name` and returns lines from start_line to end_line.", f.readChunk))
	e.If(on.ReplaceFileChunk && writes)(tool.New("replace_file_chunk", "Reads the contents of the file, replaces lines\nbetween start_line and end_line with chunk and writes the file", f.replaceChunk))
	e.If(on.SearchContent)(tool.New("search_content", "Search file contents within the base directory for a query string (case-insensitive).\nOnly text files (by extension) under 500KB are searched.", f.searchContent))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	if cfg.ReadOnly {
		// All must not bring the writing functions back.
		fns = slices.DeleteFunc(fns, func(fn *tool.Function) bool {
			return fn.Name == "save_file" || fn.Name == "replace_file_chunk" || fn.Name == "delete_file"
		})
	}
	name := cfg.Name
	if name == "" {
		name = "file_tools"
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: name, Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions})
}

func (f *files) save(_ context.Context, a saveArgs) (string, error) {
	rel, exists, err := f.WriteFile("file_name", a.FileName, []byte(a.Contents), a.Overwrite == nil || *a.Overwrite)
	if err != nil {
		return "", fmt.Errorf("file: %w", err)
	}
	if exists {
		return "File " + a.FileName + " already exists", nil
	}
	f.log.Debug("file: saved", "file", rel)
	return a.FileName, nil
}

func (f *files) read(_ context.Context, a readArgs) (string, error) {
	data, err := f.ReadFile("file_name", a.FileName)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("file: %q is not UTF-8 text", a.FileName)
	}
	s := string(data)
	if n, lines := utf8.RuneCountInString(s), strings.Count(s, f.sep)+1; n > f.maxLen || lines > f.maxLines {
		return "", fmt.Errorf("file: %q is too long to read whole: %d characters in %d lines (limits %d and %d)", a.FileName, n, lines, f.maxLen, f.maxLines)
	}
	return s, nil
}

func (f *files) list(_ context.Context, a listArgs) (string, error) {
	dir := "."
	if a.Directory != nil && *a.Directory != "" {
		dir = *a.Directory
	}
	rel, err := f.Resolve("directory", dir)
	if err != nil {
		return "", err
	}
	var entries []fs.DirEntry
	err = f.WithRoot(func(root *os.Root) error {
		d, err := root.Open(rel)
		if err != nil {
			return err
		}
		defer d.Close()
		entries, err = d.ReadDir(-1)
		return err
	})
	if err != nil {
		return "", f.RootErr("directory", dir, err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if p := path.Join(filepath.ToSlash(rel), e.Name()); !Excluded(p, f.exclude) {
			out = append(out, p)
		}
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
	found, err := f.Glob(".", a.Pattern, 0)
	if err != nil {
		return "", err
	}
	matches := []string{}
	for _, m := range found {
		if !Excluded(m.Path, f.exclude) {
			matches = append(matches, m.Path)
		}
	}
	return pyDumps(searchResult{Pattern: a.Pattern, MatchesFound: len(matches), Files: matches}, "  ")
}

// GlobMatch is a path Glob found, relative to the base, with "/".
type GlobMatch struct {
	Path  string
	IsDir bool
}

// Glob finds the paths under dir (relative to the base, already
// resolved) matching a relative glob, pathlib's way: "**" is any number
// of directories (alone at the end, directories only), other segments
// use path.Match syntax. limit > 0 stops after that many.
func (b *Base) Glob(dir, pattern string, limit int) ([]GlobMatch, error) {
	pat, err := parsePattern(pattern)
	if err != nil {
		return nil, err
	}
	dir = filepath.ToSlash(dir)
	matches := []GlobMatch{}
	errLimit := errors.New("limit")
	err = b.WithRoot(func(root *os.Root) error {
		return fs.WalkDir(root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == dir {
					return err
				}
				return nil // unreadable entries are skipped, as pathlib does
			}
			if p == dir {
				return nil
			}
			rel := p
			if dir != "." {
				rel = strings.TrimPrefix(p, dir+"/")
			}
			segs := strings.Split(rel, "/")
			if matchSegments(pat, segs, d.IsDir()) {
				matches = append(matches, GlobMatch{Path: p, IsDir: d.IsDir()})
				if limit > 0 && len(matches) >= limit {
					return errLimit
				}
			}
			if d.IsDir() && !canDescend(pat, segs) {
				return fs.SkipDir
			}
			return nil
		})
	})
	if err != nil && !errors.Is(err, errLimit) {
		return nil, fmt.Errorf("file: searching %q: %w", pattern, err)
	}
	return matches, nil
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
