// Package workspace is agno's Workspace toolkit: read, list, search,
// write, edit, move and delete files under a root directory and run
// commands there. Reads run silently; writes and commands need a human's
// confirmation unless the operator says otherwise (allowed / confirm).
//
// Every path is confined to the root by file.Base (os.Root). As agno
// says, this scopes paths; it is not a sandbox: a command runs with the
// rights of this process.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/file"
)

// Aliases of agno's allowed / confirm lists, in its order, with the
// functions they name.
var (
	ReadTools  = []string{"read", "list", "search"}
	WriteTools = []string{"write", "edit", "move", "delete", "shell"}
	aliases    = map[string]string{
		"read": "read_file", "list": "list_files", "search": "search_content", "write": "write_file",
		"edit": "edit_file", "move": "move_file", "delete": "delete_file", "shell": "run_command",
	}
)

// editInstructions are agno's, added when edit_file is registered.
const editInstructions = "Always read_file before editing — the line-numbered output gives you the exact substring to pass to edit_file's old_str parameter. Do not guess file contents or pass line numbers to edit_file."

// captureLimit bounds a command's output held in memory.
const captureLimit = 8 << 20

// Config configures the toolkit.
type Config struct {
	// Root is the workspace; empty means the current directory.
	Root string
	// Allowed run without confirmation, Confirm need it; aliases as in
	// agno. Both nil: reads allowed, writes confirmed; one nil: it is
	// empty.
	Allowed, Confirm       []string
	RequireReadBeforeWrite bool
	// MaxFileLines and MaxFileLength bound a whole-file read (0: agno's
	// 100,000 lines and 10,000,000 characters); a chunk is bounded by
	// MaxFileLength too.
	MaxFileLines, MaxFileLength int
	// ExcludePatterns are pruned from list_files and search_content; nil
	// means file.DefaultExcludePatterns.
	ExcludePatterns []string
	Logger          *slog.Logger
}

type workspace struct {
	base     *file.Base
	maxLines int
	maxLen   int
	exclude  []string
	readReq  bool
	log      *slog.Logger

	mu   sync.Mutex
	read map[string]bool // paths (relative to the root) read this session
}

// Partitions resolves agno's allowed / confirm lists (_resolve_partitions).
func Partitions(allowed, confirm []string) ([]string, []string, error) {
	if allowed == nil && confirm == nil {
		return slices.Clone(ReadTools), slices.Clone(WriteTools), nil
	}
	all := append(slices.Clone(ReadTools), WriteTools...)
	for _, l := range []struct {
		name  string
		items []string
	}{{"allowed", allowed}, {"confirm", confirm}} {
		var unknown []string
		for _, a := range l.items {
			if _, ok := aliases[a]; !ok {
				unknown = append(unknown, a)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			return nil, nil, fmt.Errorf("unknown alias(es) in `%s`: %q. Valid aliases: %q", l.name, unknown, all)
		}
	}
	var overlap []string
	for _, a := range allowed {
		if slices.Contains(confirm, a) {
			overlap = append(overlap, a)
		}
	}
	if len(overlap) > 0 {
		return nil, nil, fmt.Errorf("alias(es) appear in both `allowed` and `confirm`: %q. They must be mutually exclusive — items in `allowed` auto-pass; items in `confirm` require approval", overlap)
	}
	return slices.Clone(allowed), slices.Clone(confirm), nil
}

// New validates the configuration and returns agno's "workspace".
func New(cfg Config) (*tool.Toolkit, error) {
	base, err := file.OpenBase(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("workspace: Root: %w", err)
	}
	allowed, confirm, err := Partitions(cfg.Allowed, cfg.Confirm)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if cfg.MaxFileLines < 0 || cfg.MaxFileLength < 0 {
		return nil, errors.New("workspace: MaxFileLines and MaxFileLength must not be negative (0 means the default)")
	}
	w := &workspace{base: base, maxLines: cfg.MaxFileLines, maxLen: cfg.MaxFileLength, exclude: cfg.ExcludePatterns,
		readReq: cfg.RequireReadBeforeWrite, log: cfg.Logger, read: map[string]bool{}}
	if w.maxLines == 0 {
		w.maxLines = 100_000
	}
	if w.maxLen == 0 {
		w.maxLen = 10_000_000
	}
	if w.exclude == nil {
		w.exclude = file.DefaultExcludePatterns
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	build := map[string]func() (*tool.Function, error){
		"read_file":      func() (*tool.Function, error) { return tool.New("read_file", readDoc, w.readFile) },
		"list_files":     func() (*tool.Function, error) { return tool.New("list_files", listDoc, w.listFiles) },
		"search_content": func() (*tool.Function, error) { return tool.New("search_content", searchDoc, w.searchContent) },
		"write_file":     func() (*tool.Function, error) { return tool.New("write_file", writeDoc, w.writeFile) },
		"edit_file":      func() (*tool.Function, error) { return tool.New("edit_file", editDoc, w.editFile) },
		"move_file":      func() (*tool.Function, error) { return tool.New("move_file", moveDoc, w.moveFile) },
		"delete_file":    func() (*tool.Function, error) { return tool.New("delete_file", deleteDoc, w.deleteFile) },
		"run_command":    func() (*tool.Function, error) { return tool.New("run_command", runDoc, w.runCommand) },
	}
	var fns []*tool.Function
	var confirmNames []string
	for i, a := range append(slices.Clone(allowed), confirm...) {
		fn, err := build[aliases[a]]()
		if err != nil {
			return nil, err
		}
		fns = append(fns, fn)
		if i >= len(allowed) {
			confirmNames = append(confirmNames, fn.Name)
		}
	}
	tc := tool.ToolkitConfig{Name: "workspace", Functions: fns, RequiresConfirmation: confirmNames, Logger: cfg.Logger}
	if slices.Contains(allowed, "edit") || slices.Contains(confirm, "edit") {
		tc.Instructions, tc.AddInstructions = editInstructions, true
	}
	return tool.NewToolkit(tc)
}

// agno's docstrings as its parser makes descriptions of them.
const (
	readDoc   = "Read a file from the workspace, returning ``cat -n`` style line-numbered output.\nEach line is prefixed with its 1-indexed line number followed by a tab. The\nnumbers reflect the actual line in the file — if you read lines 50-60, the\nfirst returned line is numbered 50. Pass these line numbers back to ``edit_file``\nwhen you want to make a targeted change."
	listDoc   = "List entries in a workspace directory.\nEach entry is returned as ``{\"path\", \"type\", \"size\"}`` so you can decide which\nfiles to read without a second call. ``type`` is ``\"file\"`` or ``\"dir\"``;\n``size`` is a human-readable string for files and ``null`` for directories.\n\nFor tree-style exploration of a project use ``recursive=True`` (defaults to\ndepth 3). Default-excluded directories (``.venv``, ``.venvs``,\n``.context``, ``.git``, ``node_modules``, etc.) are always pruned."
	searchDoc = "Recursive case-insensitive content grep across text files in the workspace.\nOnly text files (by extension) under 500KB are searched. Returns the first ``limit``\nmatching files with a snippet around the first match in each."
	writeDoc  = "Write a file to the workspace, creating parent directories if needed.\nWrites are atomic: content is written to a sibling ``.tmp`` file and renamed\ninto place, so a crash mid-write can't leave a partially-written target."
	editDoc   = "Edit a file by replacing ``old_str`` with ``new_str``.\nBy default ``old_str`` must match exactly once — fails if it appears zero or\nmore than one times. Pass ``replace_all=True`` to replace every occurrence\n(useful for renames across a file)."
	moveDoc   = "Move or rename a file within the workspace.\nBoth ``src`` and ``dst`` must resolve inside the workspace root. By default\nrefuses to clobber an existing destination — pass ``overwrite=True`` to\nforce."
	deleteDoc = "Delete a file from the workspace. Refuses to delete directories."
	runDoc    = "Run a shell command in the workspace root and return its output.\nArgs is a list of strings (e.g. ``[\"ls\", \"-la\"]``) — the command is NOT\ninvoked through a shell, so quoting/expansion are not interpreted. To use\nshell features, pass ``[\"bash\", \"-c\", \"your-command-here\"]``.\n\nANSI escape sequences (color codes, cursor moves) are stripped from output\nbefore truncation, so terminal-formatted output doesn't waste tokens."
)

type readArgs struct {
	Path      string `json:"path" description:"File path relative to the workspace root."`
	StartLine *int   `json:"start_line,omitempty" description:"Optional 1-indexed first line to return. If omitted with\nend_line, returns the entire file (subject to size limits)."`
	EndLine   *int   `json:"end_line,omitempty" description:"Optional 1-indexed last line to return (inclusive)."`
}

type listArgs struct {
	Directory *string `json:"directory,omitempty" description:"Subdirectory relative to the workspace root (default \".\")."`
	Pattern   *string "json:\"pattern,omitempty\" description:\"Optional glob pattern to filter by (e.g. ``\\\"*.py\\\"``). When\\n``recursive=False`` patterns can include ``**`` for cross-directory globs.\\nWhen ``recursive=True`` the pattern is matched against each entry name.\""
	Recursive *bool   "json:\"recursive,omitempty\" description:\"If True, walk the directory tree up to ``max_depth`` levels deep.\""
	MaxDepth  *int    "json:\"max_depth,omitempty\" description:\"Depth limit when ``recursive=True`` (default 3).\""
}

type searchArgs struct {
	Query     string  `json:"query" description:"Substring to search for (case-insensitive)."`
	Directory *string `json:"directory,omitempty" description:"Subdirectory to scope the search to (default \".\")."`
	Limit     *int    `json:"limit,omitempty" description:"Maximum number of matching files to return (default 10)."`
}

type writeArgs struct {
	Path      string `json:"path" description:"File path relative to the workspace root."`
	Content   string `json:"content" description:"Text content to write."`
	Overwrite *bool  `json:"overwrite,omitempty" description:"If False, fail when the file already exists (default True)."`
}

type editArgs struct {
	Path       string `json:"path" description:"File path relative to the workspace root."`
	OldStr     string `json:"old_str" description:"Exact substring to replace."`
	NewStr     string `json:"new_str" description:"Replacement substring."`
	ReplaceAll *bool  `json:"replace_all,omitempty" description:"If True, replace every occurrence (default False)."`
}

type moveArgs struct {
	Src       string `json:"src" description:"Source file path relative to the workspace root."`
	Dst       string `json:"dst" description:"Destination path relative to the workspace root."`
	Overwrite *bool  "json:\"overwrite,omitempty\" description:\"If True, replace ``dst`` if it already exists (default False).\""
}

type deleteArgs struct {
	Path string `json:"path" description:"File path relative to the workspace root."`
}

type runArgs struct {
	Args    []string `json:"args" description:"Command and arguments as a list of strings."`
	Tail    *int     `json:"tail,omitempty" description:"Maximum number of trailing lines of stdout (or stderr on error) to return."`
	Timeout *int     `json:"timeout,omitempty" description:"Maximum seconds to wait before killing the process (default 120)."`
}

// resolve confines a path to the root; ok is false for an escape.
func (w *workspace) resolve(p string) (string, bool) {
	rel, err := w.base.Resolve("path", p)
	return rel, err == nil
}

func (w *workspace) stat(rel string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := w.base.WithRoot(func(root *os.Root) (err error) { fi, err = root.Stat(rel); return err })
	return fi, err
}

func (w *workspace) markRead(rel string) {
	w.mu.Lock()
	w.read[rel] = true
	w.mu.Unlock()
}

// checkReadBeforeWrite is agno's _check_read_before_write.
func (w *workspace) checkReadBeforeWrite(rel, op string) string {
	if !w.readReq {
		return ""
	}
	if _, err := w.stat(rel); err != nil {
		return "" // a new file needs no read
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.read[rel] {
		return ""
	}
	return fmt.Sprintf("Error: require_read_before_write is enabled and %s hasn't been read this session. Call read_file first to confirm contents before the %s.", filepath.Base(rel), op)
}

func (w *workspace) excluded(rel string) bool { return file.Excluded(rel, w.exclude) }

// numbered is agno's _format_with_line_numbers.
func numbered(text string, start int) string {
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", i+start, l)
	}
	return b.String()
}

func (w *workspace) readFile(_ context.Context, a readArgs) (string, error) {
	rel, ok := w.resolve(a.Path)
	if !ok {
		return "Error: path escapes workspace root", nil
	}
	if fi, err := w.stat(rel); err != nil || !fi.Mode().IsRegular() {
		return "Error: file not found: " + a.Path, nil
	}
	var data []byte
	if err := w.base.WithRoot(func(root *os.Root) (err error) { data, err = root.ReadFile(rel); return err }); err != nil {
		return "Error reading file: " + err.Error(), nil
	}
	if !utf8.Valid(data) {
		return fmt.Sprintf("Error reading file: %s is not UTF-8 text", a.Path), nil
	}
	contents := string(data)
	w.markRead(rel)
	tooLong := func(what string) string {
		return "Error: file too long (" + what + "). Use start_line/end_line to read a chunk, or use search_content to find specific text first."
	}
	if a.StartLine == nil && a.EndLine == nil {
		if n := utf8.RuneCountInString(contents); n > w.maxLen {
			return tooLong(fmt.Sprintf("%d chars > %d", n, w.maxLen)), nil
		}
		if n := strings.Count(contents, "\n") + 1; n > w.maxLines {
			return tooLong(fmt.Sprintf("%d lines > %d", n, w.maxLines)), nil
		}
		return numbered(contents, 1), nil
	}
	lines := strings.Split(contents, "\n")
	start, end := 1, len(lines)
	if a.StartLine != nil {
		start = *a.StartLine
	}
	if a.EndLine != nil {
		end = *a.EndLine
	}
	lo, hi := max(0, start-1), min(len(lines), end)
	var chunk string
	if lo < hi {
		chunk = strings.Join(lines[lo:hi], "\n")
	}
	if n := utf8.RuneCountInString(chunk); n > w.maxLen {
		return tooLong(fmt.Sprintf("lines %d-%d have %d chars > %d", start, end, n, w.maxLen)), nil
	}
	return numbered(chunk, start), nil
}

type entry struct {
	Path string  `json:"path"`
	Type string  `json:"type"`
	Size *string `json:"size"`
}

type listing struct {
	Directory string  `json:"directory"`
	Pattern   *string `json:"pattern"`
	Recursive bool    `json:"recursive"`
	Files     []entry `json:"files"`
}

func (w *workspace) listFiles(_ context.Context, a listArgs) (string, error) {
	dir := "."
	if a.Directory != nil {
		dir = *a.Directory
	}
	rel, ok := w.resolve(dir)
	if !ok {
		return "Error: directory escapes workspace root", nil
	}
	if fi, err := w.stat(rel); err != nil || !fi.IsDir() {
		return "Error: not a directory: " + dir, nil
	}
	recursive := a.Recursive != nil && *a.Recursive
	maxDepth := 3
	if a.MaxDepth != nil {
		maxDepth = *a.MaxDepth
	}
	pattern := ""
	if a.Pattern != nil {
		pattern = *a.Pattern
	}
	var paths []string // relative to the root
	var res string
	err := w.base.WithRoot(func(root *os.Root) error {
		fsys := root.FS()
		switch {
		case recursive:
			var walk func(d string, depth int)
			walk = func(d string, depth int) {
				ents, err := fs.ReadDir(fsys, d)
				if err != nil {
					return
				}
				for _, e := range ents {
					p := path.Join(d, e.Name())
					if w.excluded(p) {
						continue
					}
					if pattern == "" || matchName(pattern, e.Name()) {
						paths = append(paths, p)
					}
					if e.IsDir() && depth < maxDepth { // agno lists the entries at max_depth, not below

						walk(p, depth+1)
					}
				}
			}
			walk(filepath.ToSlash(rel), 0)
		case pattern != "":
			found, err := w.base.Glob(rel, pattern, 0)
			if err != nil {
				return err
			}
			for _, m := range found {
				if !w.excluded(m.Path) {
					paths = append(paths, m.Path)
				}
			}
		default:
			ents, err := fs.ReadDir(fsys, filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			for _, e := range ents {
				if p := path.Join(filepath.ToSlash(rel), e.Name()); !w.excluded(p) {
					paths = append(paths, p)
				}
			}
		}
		slices.Sort(paths)
		out := listing{Directory: dir, Pattern: a.Pattern, Recursive: recursive, Files: []entry{}}
		for _, p := range paths {
			fi, err := fs.Stat(fsys, p)
			if err != nil {
				continue // a broken symlink or one leaving the root
			}
			e := entry{Path: p, Type: "file"}
			if fi.IsDir() {
				e.Type = "dir"
			} else {
				s := formatSize(fi.Size())
				e.Size = &s
			}
			out.Files = append(out.Files, e)
		}
		var err error
		res, err = pyjson.DumpsOpts(out, pyjson.Options{Indent: 2})
		return err
	})
	if err != nil {
		return "Error listing files: " + err.Error(), nil
	}
	return res, nil
}

// matchName is fnmatch of one name.
func matchName(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// formatSize is agno's _format_size.
func formatSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	size := float64(n) / 1024
	for _, unit := range []string{"KB", "MB"} {
		if size < 1024 {
			return fmt.Sprintf("%.1f%s", size, unit)
		}
		size /= 1024
	}
	return fmt.Sprintf("%.1fGB", size)
}

type match struct {
	File    string `json:"file"`
	Size    string `json:"size"`
	Snippet string `json:"snippet"`
}

func (w *workspace) searchContent(_ context.Context, a searchArgs) (string, error) {
	if strings.TrimSpace(a.Query) == "" {
		return "Error: query cannot be empty", nil
	}
	dir := "."
	if a.Directory != nil {
		dir = *a.Directory
	}
	rel, ok := w.resolve(dir)
	if !ok {
		return "Error: directory escapes workspace root", nil
	}
	if fi, err := w.stat(rel); err != nil || !fi.IsDir() {
		return "Error: not a directory: " + dir, nil
	}
	limit := 10
	if a.Limit != nil {
		limit = *a.Limit
	}
	lowerQuery := strings.ToLower(a.Query)
	matches := []match{}
	_ = w.base.WithRoot(func(root *os.Root) error {
		fsys := root.FS()
		// os.walk's order: a directory's files, then its subdirectories.
		var walk func(d string) bool
		walk = func(d string) bool {
			ents, err := fs.ReadDir(fsys, d)
			if err != nil {
				return true
			}
			var subdirs []string
			for _, e := range ents {
				p := path.Join(d, e.Name())
				if e.IsDir() {
					if !w.excluded(p) {
						subdirs = append(subdirs, p)
					}
					continue
				}
				if len(matches) >= limit {
					return false
				}
				if w.excluded(p) || !textExtensions[strings.ToLower(path.Ext(e.Name()))] {
					continue
				}
				fi, err := fs.Stat(fsys, p)
				if err != nil || !fi.Mode().IsRegular() || fi.Size() > 500*1024 {
					continue
				}
				data, err := fs.ReadFile(fsys, p)
				if err != nil {
					continue
				}
				content := strings.ToValidUTF8(string(data), "")
				lower := strings.ToLower(content)
				if i := strings.Index(lower, lowerQuery); i >= 0 && len(lower) == len(content) {
					matches = append(matches, match{File: p, Size: formatSize(fi.Size()), Snippet: snippet(content, i, len(a.Query))})
				} else if i >= 0 {
					matches = append(matches, match{File: p, Size: formatSize(fi.Size()), Snippet: ""})
				}
			}
			for _, s := range subdirs {
				if !walk(s) {
					return false
				}
			}
			return true
		}
		walk(filepath.ToSlash(rel))
		return nil
	})
	out, err := pyjson.DumpsOpts(struct {
		Query        string  `json:"query"`
		MatchesFound int     `json:"matches_found"`
		Files        []match `json:"files"`
	}{a.Query, len(matches), matches}, pyjson.Options{Indent: 2})
	if err != nil {
		return "Error searching content: " + err.Error(), nil
	}
	return out, nil
}

// snippet is agno's _extract_snippet at byte index i (200 characters
// either side).
func snippet(content string, i, n int) string {
	r := []rune(content)
	idx := utf8.RuneCountInString(content[:i])
	qn := utf8.RuneCountInString(content[i:min(len(content), i+n)])
	start, end := max(0, idx-200), min(len(r), idx+qn+200)
	s := string(r[start:end])
	if start > 0 {
		s = "..." + s
	}
	if end < len(r) {
		s += "..."
	}
	return s
}

// atomicWrite writes through a sibling ".tmp" file renamed into place, as agno.
func (w *workspace) atomicWrite(rel string, data []byte) error {
	tmp := rel + ".tmp"
	if _, _, err := w.base.WriteFile("path", tmp, data, true); err != nil {
		return err
	}
	err := w.base.WithRoot(func(root *os.Root) error { return root.Rename(tmp, rel) })
	if err != nil {
		_ = w.base.WithRoot(func(root *os.Root) error { return root.Remove(tmp) })
	}
	return err
}

func (w *workspace) writeFile(_ context.Context, a writeArgs) (string, error) {
	rel, ok := w.resolve(a.Path)
	if !ok || rel == "." {
		return "Error: path escapes workspace root", nil
	}
	if _, err := w.stat(rel); err == nil && a.Overwrite != nil && !*a.Overwrite {
		return "Error: file exists and overwrite=False: " + a.Path, nil
	}
	if msg := w.checkReadBeforeWrite(rel, "write"); msg != "" {
		return msg, nil
	}
	if err := w.atomicWrite(rel, []byte(a.Content)); err != nil {
		return "Error writing file: " + err.Error(), nil
	}
	w.markRead(rel)
	return fmt.Sprintf("Wrote %d chars to %s", utf8.RuneCountInString(a.Content), a.Path), nil
}

func (w *workspace) editFile(_ context.Context, a editArgs) (string, error) {
	if a.OldStr == "" {
		return "Error: old_str cannot be empty", nil
	}
	rel, ok := w.resolve(a.Path)
	if !ok {
		return "Error: path escapes workspace root", nil
	}
	if fi, err := w.stat(rel); err != nil || !fi.Mode().IsRegular() {
		return "Error: file not found: " + a.Path, nil
	}
	if msg := w.checkReadBeforeWrite(rel, "edit"); msg != "" {
		return msg, nil
	}
	var data []byte
	if err := w.base.WithRoot(func(root *os.Root) (err error) { data, err = root.ReadFile(rel); return err }); err != nil {
		return "Error editing file: " + err.Error(), nil
	}
	contents := string(data)
	all := a.ReplaceAll != nil && *a.ReplaceAll
	count := strings.Count(contents, a.OldStr)
	if count == 0 {
		return "Error: old_str not found in " + a.Path, nil
	}
	if count > 1 && !all {
		return fmt.Sprintf("Error: old_str matches %d times in %s; provide a more unique snippet or pass replace_all=True", count, a.Path), nil
	}
	n := 1
	if all {
		n = count
	}
	if err := w.atomicWrite(rel, []byte(strings.Replace(contents, a.OldStr, a.NewStr, n))); err != nil {
		return "Error editing file: " + err.Error(), nil
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return fmt.Sprintf("Edited %s: replaced %d occurrence%s", a.Path, n, plural), nil
}

func (w *workspace) moveFile(_ context.Context, a moveArgs) (string, error) {
	src, ok := w.resolve(a.Src)
	if !ok {
		return "Error: src escapes workspace root", nil
	}
	dst, ok := w.resolve(a.Dst)
	if !ok || dst == "." {
		return "Error: dst escapes workspace root", nil
	}
	fi, err := w.stat(src)
	if err != nil {
		return "Error: src not found: " + a.Src, nil
	}
	if fi.IsDir() {
		return "Error: src is a directory, not a file: " + a.Src, nil
	}
	overwrite := a.Overwrite != nil && *a.Overwrite
	if _, err := w.stat(dst); err == nil && !overwrite {
		return "Error: dst exists and overwrite=False: " + a.Dst, nil
	}
	if msg := w.checkReadBeforeWrite(src, "move"); msg != "" {
		return msg, nil
	}
	err = w.base.WithRoot(func(root *os.Root) error {
		if d := filepath.Dir(dst); d != "." {
			if err := root.MkdirAll(d, 0o755); err != nil {
				return err
			}
		}
		return root.Rename(src, dst)
	})
	if err != nil {
		return "Error moving file: " + w.base.RootErr("dst", a.Dst, err).Error(), nil
	}
	w.mu.Lock()
	if w.read[src] {
		delete(w.read, src)
		w.read[dst] = true
	}
	w.mu.Unlock()
	return fmt.Sprintf("Moved %s -> %s", a.Src, a.Dst), nil
}

func (w *workspace) deleteFile(_ context.Context, a deleteArgs) (string, error) {
	rel, ok := w.resolve(a.Path)
	if !ok {
		return "Error: path escapes workspace root", nil
	}
	fi, err := w.stat(rel)
	if err != nil {
		return "Error: file not found: " + a.Path, nil
	}
	if fi.IsDir() {
		return "Error: path is a directory, not a file: " + a.Path, nil
	}
	if msg := w.checkReadBeforeWrite(rel, "delete"); msg != "" {
		return msg, nil
	}
	if err := w.base.WithRoot(func(root *os.Root) error { return root.Remove(rel) }); err != nil {
		return "Error deleting file: " + err.Error(), nil
	}
	w.mu.Lock()
	delete(w.read, rel)
	w.mu.Unlock()
	return "Deleted " + a.Path, nil
}

var ansi = regexp.MustCompile("\x1B(?:[@-Z\\\\-_]|\\[[0-?]*[ -/]*[@-~])")

// lastLines is "\n".join(text.splitlines()[-tail:]) with ANSI stripped.
func lastLines(text string, tail int) string {
	text = ansi.ReplaceAllString(text, "")
	ls := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	if tail <= 0 {
		// Python's [-0:] is the whole list.
		return strings.Join(ls, "\n")
	}
	return strings.Join(ls[max(0, len(ls)-tail):], "\n")
}

func (w *workspace) runCommand(ctx context.Context, a runArgs) (string, error) {
	if len(a.Args) == 0 {
		return "Error running command: args is empty: give the command and its arguments, e.g. [\"ls\", \"-la\"]", nil
	}
	tail, timeout := 100, 120
	if a.Tail != nil {
		tail = *a.Tail
	}
	if a.Timeout != nil {
		timeout = *a.Timeout
	}
	w.log.Info(fmt.Sprintf("run_command: %q", a.Args))
	bin, err := exec.LookPath(a.Args[0])
	if err != nil {
		return "Error running command: " + err.Error(), nil
	}
	runCtx, cancel := context.WithTimeout(ctx, time.Duration(timeout)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(runCtx, bin, a.Args[1:]...)
	cmd.Args[0] = a.Args[0] // argv[0] as given, as subprocess.run passes it
	cmd.Dir = w.base.Dir()
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	inGroup(cmd)
	runErr := cmd.Run()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if runCtx.Err() != nil {
		return fmt.Sprintf("Error: command timed out after %d seconds", timeout), nil
	}
	var ee *exec.ExitError
	if errors.As(runErr, &ee) {
		return fmt.Sprintf("Error (exit %d): %s", ee.ExitCode(), lastLines(stderr.String(), tail)), nil
	}
	if runErr != nil {
		return "Error running command: " + runErr.Error(), nil
	}
	return lastLines(stdout.String(), tail), nil
}

// capped keeps the last captureLimit bytes written: run_command shows
// the tail.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	c.b = append(c.b, p...)
	if len(c.b) > captureLimit {
		c.b = c.b[len(c.b)-captureLimit:]
	}
	return len(p), nil
}

func (c *capped) String() string { return strings.ToValidUTF8(string(c.b), "\uFFFD") }
