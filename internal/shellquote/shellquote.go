// Package shellquote builds POSIX shell text the way Python's standard
// library does, so commands sent to a remote shell are byte-identical to
// agno's: Quote is shlex.quote and Normpath is posixpath.normpath.
package shellquote

import "strings"

// Quote returns s as a single POSIX shell word that evaluates to s,
// identical to Python's shlex.quote: s itself when it is non-empty and
// every byte is in [A-Za-z0-9_@%+=:,./-], a pair of single quotes when it
// is empty, otherwise s in single quotes with each ' written as '"'"'.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if isSafe(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// safe marks the bytes shlex leaves unquoted: ASCII [A-Za-z0-9_@%+=:,./-].
// Bytes of multi-byte UTF-8 sequences are >= 0x80 and never safe, which
// matches shlex's ASCII-only \w.
var safe = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") {
		t[c] = true
	}
	return t
}()

func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if !safe[s[i]] {
			return false
		}
	}
	return true
}

// Normpath collapses a POSIX path exactly as Python's posixpath.normpath:
// empty and "." components and redundant slashes go, ".." removes the
// component before it (never above the root, and kept at the start of a
// relative path), a leading "//" (exactly two slashes) is kept, and the
// result is "." rather than empty. It is purely lexical; symlinks are not
// consulted.
func Normpath(p string) string {
	if p == "" {
		return "."
	}
	lead := 0
	if strings.HasPrefix(p, "/") {
		lead = 1
		if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
			lead = 2
		}
	}
	var comps []string
	for c := range strings.SplitSeq(p, "/") {
		switch {
		case c == "" || c == ".":
		case c != "..", lead == 0 && len(comps) == 0, len(comps) > 0 && comps[len(comps)-1] == "..":
			comps = append(comps, c)
		case len(comps) > 0:
			comps = comps[:len(comps)-1]
		}
	}
	out := strings.Repeat("/", lead) + strings.Join(comps, "/")
	if out == "" {
		return "."
	}
	return out
}
