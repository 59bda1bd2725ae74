package daytona

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/agno-go/agno/internal/shellquote"
)

// This file is the pure layer: paths in, shell command text out. Nothing
// here talks to a sandbox, so every builder can be run against a local sh.

// pyPath is a POSIX path as Python's pathlib.PurePosixPath holds it: a root
// ("", "/" or "//") and its components with empty and "." ones dropped;
// ".." is kept. agno joins and prints paths with pathlib, so the paths in
// the commands are the ones it would produce.
type pyPath struct {
	root  string
	parts []string
}

func parsePath(s string) pyPath {
	var p pyPath
	if strings.HasPrefix(s, "/") {
		p.root = "/"
		if strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "///") {
			p.root = "//"
		}
	}
	for c := range strings.SplitSeq(s, "/") {
		if c != "" && c != "." {
			p.parts = append(p.parts, c)
		}
	}
	return p
}

func (p pyPath) String() string {
	if s := p.root + strings.Join(p.parts, "/"); s != "" {
		return s
	}
	return "."
}

func (p pyPath) isAbs() bool { return p.root != "" }

func (p pyPath) parent() pyPath {
	if len(p.parts) == 0 {
		return p
	}
	return pyPath{root: p.root, parts: p.parts[:len(p.parts)-1]}
}

// join is pathlib's p / q.
func (p pyPath) join(q pyPath) pyPath {
	if q.isAbs() {
		return q
	}
	parts := append(append([]string(nil), p.parts...), q.parts...)
	return pyPath{root: p.root, parts: parts}
}

// resolvePath makes a tool's path argument absolute against the working
// directory, as agno does: Path(wd) / path unless path is absolute.
func resolvePath(wd, path string) pyPath {
	p := parsePath(path)
	if !p.isAbs() {
		p = parsePath(wd).join(p)
	}
	return p
}

// pyStrip is Python's str.strip(): it trims every character Python counts
// as whitespace, which includes the ASCII separators \x1c-\x1f that
// strings.TrimSpace keeps.
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	switch {
	case r == ' ', '\t' <= r && r <= '\r', '\x1c' <= r && r <= '\x1f',
		r == '\u0085', r == '\u00a0', r == '\u1680', '\u2000' <= r && r <= '\u200a',
		r == '\u2028', r == '\u2029', r == '\u202f', r == '\u205f', r == '\u3000':
		return true
	}
	return false
}

var q = shellquote.Quote

// pwdCommand prints the absolute form of the working directory (run with
// cwd "/").
func pwdCommand(cwd string) string { return "cd " + q(cwd) + " && pwd" }

// dirExistsCommand prints "exists" or "not found" (run with cwd "/").
func dirExistsCommand(dir string) string {
	return "test -d " + q(dir) + " && echo 'exists' || echo 'not found'"
}

func mkdirCommand(dir string) string { return "mkdir -p " + q(dir) }

func readFileCommand(path string) string { return "cat " + q(path) }

func listCommand(dir string) string { return "ls -la " + q(dir) }

// kindCommand prints "directory" or "file".
func kindCommand(path string) string {
	return "test -d " + q(path) + " && echo 'directory' || echo 'file'"
}

func removeCommand(path string, isDir bool) string {
	if isDir {
		return "rm -rf " + q(path)
	}
	return "rm -f " + q(path)
}

// writeFileCommand writes content to path byte for byte. It keeps agno's
// `cat > PATH << 'DELIM'` form, but (unlike agno v2.6.13, which always used
// EOF and rewrote ' as '"'"' inside the quoted here-document) the
// delimiter is one that does not occur in content and the body is content
// unchanged: inside a quoted here-document nothing is special, so a line
// "EOF", quotes, $VAR and backticks all arrive as written. A here-document
// always ends in a newline, so a final line without one is appended with
// printf instead of gaining a newline the caller never wrote.
//
// delim comes from heredocDelimiter; when it is empty (no delimiter is
// safe for this content) the whole content is written with printf.
func writeFileCommand(path, content, delim string) string {
	if delim == "" {
		return "printf %s " + q(content) + " > " + q(path)
	}
	head, tail := content, ""
	if i := strings.LastIndexByte(content, '\n'); i+1 < len(content) {
		head, tail = content[:i+1], content[i+1:]
	}
	first := "cat > " + q(path) + " << '" + delim + "'"
	if tail != "" {
		first += " && printf %s " + q(tail) + " >> " + q(path)
	}
	return first + "\n" + head + delim
}

// delimiterLeads are tried, in order, in front of the delimiter's stem
// until one is safe for the content.
const delimiterLeads = "_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// heredocDelimiter returns a here-document delimiter for content: one that
// occurs nowhere in it, and that dash (the /bin/sh of Debian-based
// sandboxes) reads correctly (see dashSafe). It returns "" in the
// pathological case that no candidate is safe.
func heredocDelimiter(content string) string {
	for range 8 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		stem := "AGNO_EOF_" + hex.EncodeToString(b[:])
		if strings.Contains(content, stem) {
			continue
		}
		if dashSafe(content, stem) {
			return stem
		}
		for _, lead := range delimiterLeads {
			if d := string(lead) + stem; dashSafe(content, d) {
				return d
			}
		}
		return ""
	}
	return ""
}

// dashSafe reports whether dash copies the here-document body intact with
// this delimiter. dash drops the byte after a line's leading match of the
// delimiter when that byte is not ASCII ("Añadir" loses half its ñ under a
// delimiter starting with "A"); bash has no such bug. So no line may begin
// with a prefix of delim followed by a byte >= 0x80.
func dashSafe(content, delim string) bool {
	for start := 0; start < len(content); {
		line := content[start:]
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			start += i + 1
		} else {
			start = len(content)
		}
		k := 0
		for k < len(line) && k < len(delim) && line[k] == delim[k] {
			k++
		}
		if k > 0 && k < len(line) && line[k] >= 0x80 {
			return false
		}
	}
	return true
}
