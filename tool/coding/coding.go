// Package coding is agno's CodingTools: read, edit and write files, run
// shell commands, and (optionally) grep, find and ls, for a coding agent
// working in a base directory.
//
// With restrict_to_base_dir (the default) every path a function names is
// confined to the base directory by file.Base (os.Root), and run_shell
// refuses agno's shell operators, commands outside allowed_commands and
// path arguments leaving the base. A command still runs with the rights
// of this process: agno warns "CodingTools can run arbitrary shell
// commands, please provide human supervision".
package coding

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/file"
)

// DefaultAllowedCommands are agno's CodingTools.DEFAULT_ALLOWED_COMMANDS.
var DefaultAllowedCommands = []string{
	"python", "python3", "pytest", "pip", "pip3", "cat", "head", "tail", "wc", "ls", "find", "grep", "mkdir",
	"rm", "mv", "cp", "touch", "echo", "printf", "git", "chmod", "diff", "sort", "uniq", "tr", "cut",
}

// dangerousPatterns are agno's _DANGEROUS_PATTERNS, refused in restricted mode.
var dangerousPatterns = []string{"&&", "||", ";", "|", "$(", "`", ">", ">>", "<"}

// captureLimit bounds what a command's output is read into memory; the
// model sees at most max_lines / max_bytes of it.
const captureLimit = 8 << 20

// Config configures the toolkit; New fills agno's defaults for zero
// values where noted.
type Config struct {
	BaseDir           string
	RestrictToBaseDir bool
	// MaxLines and MaxBytes bound every output (0: 2000 and 50,000).
	MaxLines, MaxBytes int
	// ShellTimeout bounds run_shell (0: 120 seconds).
	ShellTimeout time.Duration
	// The enable_* flags and all of agno.
	EnableReadFile, EnableEditFile, EnableWriteFile, EnableRunShell bool
	EnableGrep, EnableFind, EnableLs, All                           bool
	// AllowedCommands are the command names run_shell accepts in
	// restricted mode; nil means DefaultAllowedCommands.
	AllowedCommands []string
	// Instructions replace agno's, composed for the enabled functions,
	// when set.
	Instructions    *string
	AddInstructions bool
	Logger          *slog.Logger
}

type coder struct {
	base     *file.Base
	restrict bool
	maxLines int
	maxBytes int
	timeout  time.Duration
	allowed  []string
	log      *slog.Logger
}

type readArgs struct {
	FilePath string `json:"file_path" description:"Path to the file to read (relative to base_dir or absolute)."`
	Offset   *int   `json:"offset,omitempty" description:"Line number to start reading from (0-indexed). Default 0."`
	Limit    *int   `json:"limit,omitempty" description:"Maximum number of lines to read. Defaults to max_lines setting."`
}

type editArgs struct {
	FilePath string `json:"file_path" description:"Path to the file to edit (relative to base_dir or absolute)."`
	OldText  string `json:"old_text" description:"The exact text to find and replace. Must match uniquely."`
	NewText  string `json:"new_text" description:"The text to replace old_text with."`
}

type writeArgs struct {
	FilePath string `json:"file_path" description:"Path to the file to write (relative to base_dir or absolute)."`
	Contents string `json:"contents" description:"The full contents to write to the file."`
}

type shellArgs struct {
	Command string `json:"command" description:"The shell command to execute as a single string."`
	Timeout *int   `json:"timeout,omitempty" description:"Timeout in seconds. Defaults to the toolkit's shell_timeout."`
}

type grepArgs struct {
	Pattern    string  `json:"pattern" description:"Search pattern (regex by default)."`
	Path       *string `json:"path,omitempty" description:"Directory or file to search in (default: base directory)."`
	IgnoreCase *bool   `json:"ignore_case,omitempty" description:"Case-insensitive search (default: False)."`
	Include    *string `json:"include,omitempty" description:"Filter files by glob pattern, e.g. '*.py'."`
	Context    *int    `json:"context,omitempty" description:"Number of lines to show before and after each match (default: 0)."`
	Limit      *int    `json:"limit,omitempty" description:"Maximum number of matches to return (default: 100)."`
}

type findArgs struct {
	Pattern string  `json:"pattern" description:"Glob pattern to match files, e.g. '*.py', '**/*.json'."`
	Path    *string `json:"path,omitempty" description:"Directory to search in (default: base directory)."`
	Limit   *int    `json:"limit,omitempty" description:"Maximum number of results (default: 500)."`
}

type lsArgs struct {
	Path  *string `json:"path,omitempty" description:"Directory to list (default: base directory)."`
	Limit *int    `json:"limit,omitempty" description:"Maximum number of entries to return (default: 500)."`
}

// agno's docstrings as its parser makes descriptions of them.
const (
	readDoc  = "Read the contents of a file with line numbers.\nReturns file contents with line numbers prefixed to each line. Supports\npagination via offset and limit for large files. Output is truncated if\nit exceeds the configured limits."
	editDoc  = "Edit a file by replacing an exact text match with new text.\nThe old_text must match exactly one location in the file. If it matches\nzero or multiple locations, the edit is rejected with an error message.\nReturns a unified diff showing the change."
	writeDoc = "Create or overwrite a file with the given contents.\nParent directories are created automatically if they do not exist."
	shellDoc = "Execute a shell command and return its output.\nRuns the command as a string via the system shell. Output (stdout + stderr)\nis truncated if it exceeds the configured limits. When output is truncated,\nthe full output is saved to a temporary file and its path is included in\nthe response."
	grepDoc  = "Search file contents for a pattern.\nReturns matching lines with file paths and line numbers. Respects\n.gitignore when using grep -r. Output is truncated if it exceeds limits."
	findDoc  = "Search for files by glob pattern.\nReturns matching file paths relative to the search directory."
	lsDoc    = "List directory contents.\nReturns entries sorted alphabetically with '/' suffix for directories.\nIncludes dotfiles."
)

// New validates the configuration and returns agno's "coding_tools".
func New(cfg Config) (*tool.Toolkit, error) {
	base, err := file.OpenBase(cfg.BaseDir)
	if err != nil {
		return nil, fmt.Errorf("coding: BaseDir: %w", err)
	}
	if cfg.MaxLines < 0 || cfg.MaxBytes < 0 || cfg.ShellTimeout < 0 {
		return nil, errors.New("coding: MaxLines, MaxBytes and ShellTimeout must not be negative (0 means the default)")
	}
	c := &coder{base: base, restrict: cfg.RestrictToBaseDir, maxLines: cfg.MaxLines, maxBytes: cfg.MaxBytes, timeout: cfg.ShellTimeout, allowed: cfg.AllowedCommands, log: cfg.Logger}
	if c.maxLines == 0 {
		c.maxLines = 2000
	}
	if c.maxBytes == 0 {
		c.maxBytes = 50_000
	}
	if c.timeout == 0 {
		c.timeout = 120 * time.Second
	}
	if c.allowed == nil {
		c.allowed = DefaultAllowedCommands
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableReadFile)(tool.New("read_file", readDoc, c.readFile))
	e.If(cfg.EnableEditFile)(tool.New("edit_file", editDoc, c.editFile))
	e.If(cfg.EnableWriteFile)(tool.New("write_file", writeDoc, c.writeFile))
	e.If(cfg.EnableRunShell)(tool.New("run_shell", shellDoc, c.runShell))
	e.If(cfg.EnableGrep)(tool.New("grep", grepDoc, c.grep))
	e.If(cfg.EnableFind)(tool.New("find", findDoc, c.find))
	e.If(cfg.EnableLs)(tool.New("ls", lsDoc, c.ls))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range fns {
		names = append(names, f.Name)
	}
	instr := Instructions(names)
	if cfg.Instructions != nil {
		instr = *cfg.Instructions
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "coding_tools", Functions: fns, Instructions: instr, AddInstructions: cfg.AddInstructions})
}

// Instructions are agno's _build_instructions for the enabled functions.
func Instructions(names []string) string {
	var b strings.Builder
	b.WriteString("You have access to coding tools: " + strings.Join(names, ", ") + ".\n" +
		"With these tools, you can perform any coding task including reading code, making edits,\n" +
		"creating files, running tests, using git, installing packages, and searching codebases.")
	var sections []string
	for _, n := range names {
		if s, ok := toolInstructions[n]; ok {
			sections = append(sections, s)
		}
	}
	b.WriteString("\n\n## Tool Usage Guidelines\n\n" + strings.Join(sections, "\n\n"))
	var best []string
	if slices.Contains(names, "read_file") && slices.Contains(names, "edit_file") {
		best = append(best, "- Read before editing: always read_file before edit_file to see current contents.")
	}
	if slices.Contains(names, "edit_file") {
		best = append(best, "- Make small, incremental edits rather than rewriting entire files.")
	}
	if slices.Contains(names, "run_shell") {
		best = append(best, "- Run tests after making changes to verify correctness.")
	}
	if len(best) > 0 {
		b.WriteString("\n\n## Best Practices\n" + strings.Join(best, "\n"))
	}
	return b.String()
}

// resolve turns a path argument into an absolute path: inside the base
// (restricted) or anywhere, relative to the base.
func (c *coder) resolve(name string) (string, bool) {
	if !c.restrict {
		if filepath.IsAbs(name) {
			return filepath.Clean(name), true
		}
		return filepath.Join(c.base.Dir(), name), true
	}
	rel, err := c.base.Resolve("file_path", name)
	if err != nil {
		return "", false
	}
	return filepath.Join(c.base.Dir(), rel), true
}

func outside(name string) string {
	return fmt.Sprintf("Error: Path '%s' is outside the allowed base directory", name)
}

// rel is abs relative to the base, for os.Root.
func (c *coder) rel(abs string) string {
	r, err := filepath.Rel(c.base.Dir(), abs)
	if err != nil {
		return abs
	}
	return r
}

// readBytes reads a file; restricted, through os.Root.
func (c *coder) readBytes(abs string) ([]byte, error) {
	if !c.restrict {
		return os.ReadFile(abs)
	}
	var data []byte
	err := c.base.WithRoot(func(root *os.Root) (err error) { data, err = root.ReadFile(c.rel(abs)); return err })
	return data, err
}

func (c *coder) stat(abs string) (fs.FileInfo, error) {
	if !c.restrict {
		return os.Stat(abs)
	}
	var fi fs.FileInfo
	err := c.base.WithRoot(func(root *os.Root) (err error) { fi, err = root.Stat(c.rel(abs)); return err })
	return fi, err
}

func (c *coder) writeBytes(abs string, data []byte) error {
	if !c.restrict {
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		return os.WriteFile(abs, data, 0o644)
	}
	_, _, err := c.base.WriteFile("file_path", c.rel(abs), data, true)
	return err
}

// truncate is agno's _truncate_output: at most max_lines lines, then at
// most max_bytes bytes of whole lines.
func (c *coder) truncate(text string) (string, bool, int) {
	lines := strings.Split(text, "\n")
	total := len(lines)
	cut := false
	if total > c.maxLines {
		lines = lines[:c.maxLines]
		cut = true
	}
	out := strings.Join(lines, "\n")
	if len(out) > c.maxBytes {
		n := 0
		var kept []string
		for _, l := range lines {
			if n+len(l)+1 > c.maxBytes {
				break
			}
			kept = append(kept, l)
			n += len(l) + 1
		}
		out = strings.Join(kept, "\n")
		cut = true
	}
	return out, cut, total
}

func (c *coder) readFile(_ context.Context, a readArgs) (string, error) {
	abs, ok := c.resolve(a.FilePath)
	if !ok {
		return outside(a.FilePath), nil
	}
	fi, err := c.stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "Error: File not found: " + a.FilePath, nil
	} else if err != nil {
		return "Error reading file: " + err.Error(), nil
	}
	if !fi.Mode().IsRegular() {
		return "Error: Not a file: " + a.FilePath, nil
	}
	data, err := c.readBytes(abs)
	if err != nil {
		return "Error reading file: " + err.Error(), nil
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "Error: Binary file detected: " + a.FilePath, nil
	}
	contents := strings.ToValidUTF8(string(data), "\uFFFD")
	if contents == "" {
		return "File is empty: " + a.FilePath, nil
	}
	lines := strings.Split(contents, "\n")
	offset := 0
	if a.Offset != nil {
		offset = *a.Offset
	}
	limit := c.maxLines
	if a.Limit != nil {
		limit = *a.Limit
	}
	lo, hi := pySlice(len(lines), offset, offset+limit)
	selected := lines[lo:hi]
	width := max(len(fmt.Sprint(offset+len(selected))), 4)
	var b strings.Builder
	for i, l := range selected {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d | %s", width, offset+i+1, l)
	}
	out, cut, _ := c.truncate(b.String())
	end := offset + len(selected)
	if cut || end < len(lines) || offset > 0 {
		out += fmt.Sprintf("\n[Showing lines %d-%d of %d total]", offset+1, end, len(lines))
	}
	return out, nil
}

// pySlice is Python's bounds of seq[start:stop] over n items.
func pySlice(n, start, stop int) (int, int) {
	clamp := func(i int) int {
		if i < 0 {
			i = max(i+n, 0)
		}
		return min(i, n)
	}
	lo, hi := clamp(start), clamp(stop)
	return lo, max(lo, hi)
}

func (c *coder) editFile(_ context.Context, a editArgs) (string, error) {
	abs, ok := c.resolve(a.FilePath)
	if !ok {
		return outside(a.FilePath), nil
	}
	fi, err := c.stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "Error: File not found: " + a.FilePath, nil
	} else if err != nil {
		return "Error editing file: " + err.Error(), nil
	}
	if !fi.Mode().IsRegular() {
		return "Error: Not a file: " + a.FilePath, nil
	}
	if a.OldText == "" {
		return "Error: old_text cannot be empty", nil
	}
	if a.OldText == a.NewText {
		return "No changes needed: old_text and new_text are identical", nil
	}
	data, err := c.readBytes(abs)
	if err != nil {
		return "Error editing file: " + err.Error(), nil
	}
	contents := string(data)
	switch n := strings.Count(contents, a.OldText); {
	case n == 0:
		return fmt.Sprintf("Error: old_text not found in %s. Make sure the text matches exactly (including whitespace and indentation).", a.FilePath), nil
	case n > 1:
		return fmt.Sprintf("Error: old_text matches %d locations in %s. Provide more surrounding context to make the match unique.", n, a.FilePath), nil
	}
	updated := strings.Replace(contents, a.OldText, a.NewText, 1)
	if err := c.writeBytes(abs, []byte(updated)); err != nil {
		return "Error editing file: " + err.Error(), nil
	}
	c.log.Info("Edited " + a.FilePath)
	diff := unifiedDiff(contents, updated, "a/"+a.FilePath, "b/"+a.FilePath)
	if diff == "" {
		return "Edit applied but no visible diff generated", nil
	}
	diff, cut, total := c.truncate(diff)
	if cut {
		diff += fmt.Sprintf("\n[Diff truncated: %d lines total]", total)
	}
	return diff, nil
}

func (c *coder) writeFile(_ context.Context, a writeArgs) (string, error) {
	abs, ok := c.resolve(a.FilePath)
	if !ok {
		return outside(a.FilePath), nil
	}
	if err := c.writeBytes(abs, []byte(a.Contents)); err != nil {
		return "Error writing file: " + err.Error(), nil
	}
	c.log.Info("Wrote " + a.FilePath)
	return fmt.Sprintf("Wrote %d lines to %s", strings.Count(a.Contents, "\n")+1, a.FilePath), nil
}

// checkCommand is agno's _check_command: in restricted mode no shell
// operators, only allowed commands, and no path argument leaving the base.
func (c *coder) checkCommand(command string) string {
	if !c.restrict {
		return ""
	}
	for _, p := range dangerousPatterns {
		if strings.Contains(command, p) {
			return fmt.Sprintf("Error: Shell operator '%s' is not allowed in restricted mode.", p)
		}
	}
	tokens, err := shlexSplit(command)
	if err != nil {
		return "Error: Could not parse shell command."
	}
	if len(tokens) > 0 {
		if name := filepath.Base(tokens[0]); !slices.Contains(c.allowed, name) {
			return fmt.Sprintf("Error: Command '%s' is not in the allowed commands list.", name)
		}
	}
	for _, tok := range tokens[min(1, len(tokens)):] {
		if strings.HasPrefix(tok, "-") {
			continue
		}
		if strings.Contains(tok, "/") || tok == ".." {
			p := tok
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.base.Dir(), p)
			}
			if !c.within(p) {
				return "Error: Command references path outside base directory: " + tok
			}
		}
	}
	return ""
}

// within reports whether p, symlinks resolved as far as it exists, is
// inside the base.
func (c *coder) within(p string) bool {
	p = filepath.Clean(p)
	resolved := p
	// Resolve the longest existing prefix, as Path.resolve does.
	for dir, rest := p, ""; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			resolved = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
	r, err := filepath.Rel(c.base.Dir(), resolved)
	return err == nil && (r == "." || filepath.IsLocal(r))
}

func (c *coder) runShell(ctx context.Context, a shellArgs) (string, error) {
	c.log.Warn("coding: running a shell command; CodingTools can run arbitrary shell commands, please provide human supervision", "command", a.Command)
	if msg := c.checkCommand(a.Command); msg != "" {
		return msg, nil
	}
	timeout := c.timeout
	if a.Timeout != nil && *a.Timeout > 0 {
		timeout = min(time.Duration(*a.Timeout)*time.Second, c.timeout)
	}
	var stdout, stderr capped
	code, timedOut, err := run(ctx, c.base.Dir(), timeout, []string{"/bin/sh", "-c", a.Command}, &stdout, &stderr)
	if timedOut {
		return fmt.Sprintf("Error: Command timed out after %d seconds", int(timeout/time.Second)), nil
	}
	if err != nil {
		return "Error running shell command: " + err.Error(), nil
	}
	output := stdout.String() + stderr.String()
	out, cut, total := c.truncate(output)
	if cut || stdout.dropped || stderr.dropped {
		out += fmt.Sprintf("\n[Output truncated: %d lines total]", total)
	}
	return fmt.Sprintf("Exit code: %d\n", code) + out, nil
}

func (c *coder) grep(ctx context.Context, a grepArgs) (string, error) {
	if a.Pattern == "" {
		return "Error: Pattern cannot be empty", nil
	}
	target := c.base.Dir()
	shown := "."
	if a.Path != nil && *a.Path != "" {
		abs, ok := c.resolve(*a.Path)
		if !ok {
			return outside(*a.Path), nil
		}
		target, shown = abs, *a.Path
	}
	if _, err := os.Stat(target); err != nil {
		return "Error: Path not found: " + shown, nil
	}
	args := []string{"grep", "-rn"}
	if a.IgnoreCase != nil && *a.IgnoreCase {
		args = append(args, "-i")
	}
	if a.Context != nil && *a.Context > 0 {
		args = append(args, "-C", fmt.Sprint(*a.Context))
	}
	if a.Include != nil && *a.Include != "" {
		args = append(args, "--include", *a.Include)
	}
	// "--" keeps a pattern starting with "-" from reading as an option.
	args = append(args, "--", a.Pattern, target)
	var stdout, stderr capped
	code, timedOut, err := run(ctx, c.base.Dir(), 30*time.Second, args, &stdout, &stderr)
	if timedOut {
		return "Error: grep timed out after 30 seconds", nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		return "Error: grep command not found. Install grep to use this tool.", nil
	}
	if err != nil {
		return "Error running grep: " + err.Error(), nil
	}
	output := stdout.String()
	if output == "" {
		if code != 1 && strings.TrimSpace(stderr.String()) != "" {
			return "Error: " + strings.TrimSpace(stderr.String()), nil
		}
		return "No matches found for pattern: " + a.Pattern, nil
	}
	output = strings.ReplaceAll(output, c.base.Dir()+"/", "")
	limit := 100
	if a.Limit != nil {
		limit = *a.Limit
	}
	if lines := strings.Split(output, "\n"); len(lines) > limit && limit >= 0 {
		output = strings.Join(lines[:limit], "\n") + fmt.Sprintf("\n[Results limited to %d matches]", limit)
	}
	output, cut, total := c.truncate(output)
	if cut {
		output += fmt.Sprintf("\n[Output truncated: %d lines total]", total)
	}
	return output, nil
}

// dirArg resolves an optional directory argument to a path relative to
// the base, or returns agno's error text.
func (c *coder) dirArg(p *string) (rel, msg string) {
	shown := "."
	rel = "."
	if p != nil && *p != "" {
		abs, ok := c.resolve(*p)
		if !ok {
			return "", outside(*p)
		}
		if !c.within(abs) {
			return "", "Error: Path '" + *p + "' is outside the base directory, which find and ls do not leave"
		}
		shown, rel = *p, c.rel(abs)
	}
	fi, err := c.stat(filepath.Join(c.base.Dir(), rel))
	if err != nil {
		return "", "Error: Path not found: " + shown
	}
	if !fi.IsDir() {
		return "", "Error: Not a directory: " + shown
	}
	return rel, ""
}

func (c *coder) find(_ context.Context, a findArgs) (string, error) {
	if a.Pattern == "" {
		return "Error: Pattern cannot be empty", nil
	}
	rel, msg := c.dirArg(a.Path)
	if msg != "" {
		return msg, nil
	}
	limit := 500
	if a.Limit != nil {
		limit = *a.Limit
	}
	found, err := c.base.Glob(rel, a.Pattern, max(limit, 1))
	if err != nil {
		return "Error finding files: " + err.Error(), nil
	}
	if len(found) == 0 {
		return "No files found matching pattern: " + a.Pattern, nil
	}
	var paths []string
	for _, m := range found {
		s := m.Path
		if m.IsDir {
			s += "/"
		}
		paths = append(paths, s)
	}
	slices.Sort(paths)
	out := strings.Join(paths, "\n")
	if len(paths) >= limit {
		out += fmt.Sprintf("\n[Results limited to %d entries]", limit)
	}
	out, cut, total := c.truncate(out)
	if cut {
		out += fmt.Sprintf("\n[Output truncated: %d lines total]", total)
	}
	return out, nil
}

func (c *coder) ls(_ context.Context, a lsArgs) (string, error) {
	rel, msg := c.dirArg(a.Path)
	if msg != "" {
		return msg, nil
	}
	shown := "."
	if a.Path != nil && *a.Path != "" {
		shown = *a.Path
	}
	limit := 500
	if a.Limit != nil {
		limit = *a.Limit
	}
	var entries []fs.DirEntry
	err := c.base.WithRoot(func(root *os.Root) error {
		d, err := root.Open(rel)
		if err != nil {
			return err
		}
		defer d.Close()
		entries, err = d.ReadDir(-1)
		return err
	})
	if err != nil {
		return "Error listing directory: " + err.Error(), nil
	}
	slices.SortFunc(entries, func(x, y fs.DirEntry) int {
		return strings.Compare(strings.ToLower(x.Name()), strings.ToLower(y.Name()))
	})
	var names []string
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 { // is_dir follows symlinks, even out of the base (only the kind is shown)
			if fi, err := os.Stat(filepath.Join(c.base.Dir(), rel, name)); err == nil {
				isDir = fi.IsDir()
			}
		}
		if isDir {
			name += "/"
		}
		names = append(names, name)
		if len(names) >= limit {
			break
		}
	}
	if len(names) == 0 {
		return "Directory is empty: " + shown, nil
	}
	out := strings.Join(names, "\n")
	if len(names) >= limit {
		out += fmt.Sprintf("\n[Listing limited to %d entries]", limit)
	}
	out, cut, total := c.truncate(out)
	if cut {
		out += fmt.Sprintf("\n[Output truncated: %d lines total]", total)
	}
	return out, nil
}
