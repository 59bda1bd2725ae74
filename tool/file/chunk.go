package file

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pySlice is Python's bounds for seq[start:stop] of a sequence of n
// items: negative indices count from the end, and both are clamped.
func pySlice(n, start, stop int) (int, int) {
	clamp := func(i int) int {
		if i < 0 {
			i += n
			if i < 0 {
				i = 0
			}
		}
		return min(i, n)
	}
	lo, hi := clamp(start), clamp(stop)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// lines reads a text file and splits it at the line separator.
func (f *files) lines(name string) ([]string, error) {
	data, err := f.ReadFile("file_name", name)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("file: %q is not UTF-8 text", name)
	}
	return strings.Split(string(data), f.sep), nil
}

func (f *files) readChunk(_ context.Context, a readChunkArgs) (string, error) {
	lines, err := f.lines(a.FileName)
	if err != nil {
		return "", err
	}
	// agno's lines[start_line : end_line + 1]: 0-based and inclusive.
	lo, hi := pySlice(len(lines), a.StartLine, a.EndLine+1)
	chunk := lines[lo:hi]
	s := strings.Join(chunk, f.sep)
	if n := utf8.RuneCountInString(s); n > f.maxLen || len(chunk) > f.maxLines {
		return "", fmt.Errorf("file: lines %d to %d of %q are too long to return: %d characters in %d lines (limits %d and %d); ask for fewer lines",
			a.StartLine, a.EndLine, a.FileName, n, len(chunk), f.maxLen, f.maxLines)
	}
	return s, nil
}

func (f *files) replaceChunk(ctx context.Context, a replaceChunkArgs) (string, error) {
	lines, err := f.lines(a.FileName)
	if err != nil {
		return "", err
	}
	_, startEnd := pySlice(len(lines), 0, a.StartLine)
	endStart, _ := pySlice(len(lines), a.EndLine+1, len(lines))
	out := slices.Concat(lines[:startEnd], []string{a.Chunk}, lines[endStart:])
	overwrite := true
	return f.save(ctx, saveArgs{FileName: a.FileName, Contents: strings.Join(out, f.sep), Overwrite: &overwrite})
}

func (f *files) delete(_ context.Context, a deleteArgs) (string, error) {
	rel, err := f.Resolve("file_name", a.FileName)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return "", fmt.Errorf("file: file_name %q is the base directory itself, which is never deleted", a.FileName)
	}
	// Remove is agno's unlink for a file and rmdir for an (empty) directory.
	if err := f.WithRoot(func(root *os.Root) error { return root.Remove(rel) }); err != nil {
		return "", fmt.Errorf("file: removing %q: %w", a.FileName, f.RootErr("file_name", a.FileName, err))
	}
	f.log.Debug("file: deleted", "file", rel)
	return "", nil
}

// textExtensions are agno's TEXT_EXTENSIONS: the files search_content reads.
var textExtensions = map[string]bool{
	".md": true, ".txt": true, ".csv": true, ".json": true, ".yaml": true, ".yml": true, ".xml": true,
	".py": true, ".js": true, ".ts": true, ".html": true, ".css": true, ".sql": true, ".sh": true,
	".toml": true, ".cfg": true, ".ini": true, ".log": true, ".rst": true,
}

// maxSearchFileSize is agno's 500KB: larger files are not searched.
const maxSearchFileSize = 500 * 1024

type contentMatch struct {
	File    string `json:"file"`
	Size    string `json:"size"`
	Snippet string `json:"snippet"`
}

type contentResult struct {
	Query        string         `json:"query"`
	MatchesFound int            `json:"matches_found"`
	Files        []contentMatch `json:"files"`
}

func (f *files) searchContent(_ context.Context, a searchContentArgs) (string, error) {
	if strings.TrimSpace(a.Query) == "" {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return "", errors.New("Error: Query cannot be empty")
	}
	limit := 10
	if a.Limit != nil {
		limit = *a.Limit
	}
	dir := "."
	if a.Directory != nil && *a.Directory != "" {
		rel, err := f.Resolve("directory", *a.Directory)
		if err != nil {
			return "", err
		}
		dir = filepath.ToSlash(rel)
	}
	matches := []contentMatch{}
	lowerQuery := lowerRunes(a.Query)
	err := f.WithRoot(func(root *os.Root) error {
		fsys := root.FS()
		fi, err := fs.Stat(fsys, dir)
		if err != nil || !fi.IsDir() {
			//lint:ignore ST1005 agno's error text, which the model sees as it is
			return fmt.Errorf("Error: '%s' is not a directory", *a.Directory)
		}
		// os.walk's order: a directory's files, then its subdirectories.
		var walk func(d string) bool
		walk = func(d string) bool {
			entries, err := fs.ReadDir(fsys, d)
			if err != nil {
				return true // unreadable directories are skipped, as os.walk does
			}
			var subdirs []string
			for _, e := range entries {
				p := path.Join(d, e.Name())
				if Excluded(p, f.exclude) {
					continue // pruned, as agno prunes os.walk's dirnames
				}
				if e.IsDir() {
					subdirs = append(subdirs, p)
					continue
				}
				if len(matches) >= limit {
					return false
				}
				if !textExtensions[strings.ToLower(path.Ext(e.Name()))] {
					continue
				}
				info, err := fs.Stat(fsys, p) // follows symlinks that stay inside
				if err != nil || !info.Mode().IsRegular() || info.Size() > maxSearchFileSize {
					continue
				}
				data, err := fs.ReadFile(fsys, p)
				if err != nil {
					continue
				}
				content := strings.ToValidUTF8(string(data), "") // agno reads with errors="ignore"
				lower := lowerRunes(content)
				if bi := strings.Index(lower, lowerQuery); bi >= 0 {
					idx := utf8.RuneCountInString(lower[:bi])
					matches = append(matches, contentMatch{File: p, Size: formatSize(info.Size()), Snippet: snippet([]rune(content), idx, utf8.RuneCountInString(lowerQuery))})
				}
			}
			for _, s := range subdirs {
				if !walk(s) {
					return false
				}
			}
			return true
		}
		walk(dir)
		return nil
	})
	if err != nil {
		return "", err
	}
	return pyDumps(contentResult{Query: a.Query, MatchesFound: len(matches), Files: matches}, "  ")
}

// lowerRunes lower-cases rune by rune, so indices in the result are
// indices in the original.
func lowerRunes(s string) string {
	return strings.Map(unicode.ToLower, s)
}

// snippet is agno's _extract_snippet: 200 characters either side of the
// match, with "..." where the content goes on.
func snippet(content []rune, idx, n int) string {
	const ctx = 200
	start := max(0, idx-ctx)
	end := min(len(content), idx+n+ctx)
	s := string(content[start:end])
	if start > 0 {
		s = "..." + s
	}
	if end < len(content) {
		s += "..."
	}
	return s
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
