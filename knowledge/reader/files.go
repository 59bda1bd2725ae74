package reader

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Included is agno's _should_include_file: a file passes when it matches
// at least one include pattern (if any are given) and no exclude pattern.
// Patterns are Python fnmatch globs ("*" also matches "/") tried against
// the whole path and against the base name.
func Included(path string, include, exclude []string) bool {
	base := filepath.Base(path)
	matches := func(pattern string) bool { return FNMatch(pattern, path) || FNMatch(pattern, base) }
	if len(include) > 0 && !slices.ContainsFunc(include, matches) {
		return false
	}
	return !slices.ContainsFunc(exclude, matches)
}

// Walk returns the files under root in lexical order, with Included's
// rules. Include patterns apply to files only, so "*.md" finds markdown
// files in subdirectories too; exclude patterns also prune directories
// ("node_modules", ".*"). agno applies both to directories, which stops
// at the first subdirectory whenever include patterns are given.
func Walk(root string, include, exclude []string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && !Included(p, nil, exclude) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && Included(p, include, exclude) {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// FNMatch is Python's fnmatch.fnmatchcase on POSIX: "*" matches any run
// of characters (slashes included), "?" one character, "[seq]" and
// "[!seq]" a character in or not in seq; the whole name must match.
func FNMatch(pattern, name string) bool {
	return fnmatch([]rune(pattern), []rune(name))
}

func fnmatch(p, s []rune) bool {
	// Iterative matching with backtracking to the last star, linear in
	// practice and free of exponential blow-up.
	var pi, si int
	star, mark := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				star, mark = pi, si
				pi++
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				if ok, next, valid := matchClass(p, pi, s[si]); valid {
					if ok {
						pi = next
						si++
						continue
					}
				} else if s[si] == '[' { // an unclosed "[" is a literal
					pi++
					si++
					continue
				}
			default:
				if p[pi] == s[si] {
					pi++
					si++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		pi = star + 1
		mark++
		si = mark
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// matchClass matches c against the bracket expression at p[i]. valid is
// false when the bracket is not closed.
func matchClass(p []rune, i int, c rune) (ok bool, next int, valid bool) {
	j := i + 1
	negate := false
	if j < len(p) && p[j] == '!' {
		negate = true
		j++
	}
	if j < len(p) && p[j] == ']' { // a leading "]" is part of the set
		j++
	}
	for j < len(p) && p[j] != ']' {
		j++
	}
	if j >= len(p) {
		return false, 0, false
	}
	set := p[i+1 : j]
	if negate {
		set = set[1:]
	}
	in := false
	for k := 0; k < len(set); k++ {
		if k+2 < len(set) && set[k+1] == '-' {
			if set[k] <= c && c <= set[k+2] {
				in = true
			}
			k += 2
			continue
		}
		if set[k] == c {
			in = true
		}
	}
	return in != negate, j + 1, true
}

// Ext is the lower-cased extension of a path or URL path (".pdf").
func Ext(p string) string { return strings.ToLower(filepath.Ext(p)) }
