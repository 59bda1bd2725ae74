package config

// This file scans TOML for key positions by hand because BurntSushi/toml
// (v1.6.0, the newest release) cannot give them:
//   - MetaData.Keys and Undecoded return bare []string paths: no line,
//     no column, and no array index, so the three [[steps]] elements all
//     come back as "steps".
//   - The parser does record a Position per key, but in the unexported
//     MetaData.keyInfo, keyed by the path without indices: each [[steps]]
//     element overwrites the one before, and the Position is the value's,
//     not the key's.
//   - That Position surfaces only through decode failures: a ParseError
//     from an UnmarshalText error, or "line N" in the text of a type
//     mismatch; both name the last element (position_lib_test.go).
// What the library can do, it does here: quoted keys are unescaped by it.

import (
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// keyIndex records where every key of a TOML document is, by its full
// path with array indices ("steps[1].steps[0].name"), so an error can
// name the line of the third [[steps]] element rather than "somewhere in
// steps".
//
// The scanner runs on documents the TOML parser already accepted; on
// anything it does not understand it stops, leaving a partial index (a
// missing position only costs the line number in a message).
type keyIndex struct {
	pos   map[string]position
	paths map[string]keyPath
	order []string            // indexed paths in document order
	plain map[string][]string // path without indices → indexed paths
}

type position struct{ Line, Col int }

// pathElem is one key of a path; idx are array indices that follow it
// (steps[1], or matrix[0][2]).
type pathElem struct {
	key string
	idx []int
}

type keyPath []pathElem

func (p keyPath) String() string { return p.format(true) }

// plain is the path as BurntSushi's Key.String gives it: no indices.
func (p keyPath) plain() string { return p.format(false) }

func (p keyPath) format(withIdx bool) string {
	var b strings.Builder
	for i, e := range p {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(quoteKey(e.key))
		if withIdx {
			for _, n := range e.idx {
				b.WriteByte('[')
				b.WriteString(strconv.Itoa(n))
				b.WriteByte(']')
			}
		}
	}
	return b.String()
}

func (p keyPath) with(key string) keyPath {
	out := make(keyPath, len(p), len(p)+1)
	copy(out, p)
	return append(out, pathElem{key: key})
}

func (p keyPath) withIndex(n int) keyPath {
	out := make(keyPath, len(p))
	copy(out, p)
	last := out[len(out)-1]
	last.idx = append(append([]int(nil), last.idx...), n)
	out[len(out)-1] = last
	return out
}

// quoteKey writes a key as TOML would need it: bare when it can be.
func quoteKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !isBareKeyChar(byte(r)) || r > 0x7f {
			return strconv.Quote(k)
		}
	}
	return k
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// lookup returns the position of an indexed path.
func (x *keyIndex) lookup(path string) (position, bool) {
	if x == nil {
		return position{}, false
	}
	p, ok := x.pos[path]
	return p, ok
}

// occurrences lists where a key (a path without indices) is written, in
// document order: each [[table]] element, or the key of an inline array
// (not its elements).
func (x *keyIndex) occurrences(plain string) []keyPath {
	if x == nil {
		return nil
	}
	all := x.plain[plain]
	var out []keyPath
	for _, o := range all {
		inner := false
		for _, other := range all {
			if len(other) < len(o) && strings.HasPrefix(o, other) && o[len(other)] == '[' {
				inner = true
				break
			}
		}
		if !inner {
			out = append(out, x.paths[o])
		}
	}
	return out
}

// childKeys lists the keys directly under an indexed table path, in
// document order.
func (x *keyIndex) childKeys(table string) []string {
	if x == nil {
		return nil
	}
	depth := 0
	if table != "" {
		t, ok := x.paths[table]
		if !ok {
			return nil
		}
		depth = len(t)
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range x.order {
		p := x.paths[k]
		if len(p) <= depth || p[:depth].String() != table {
			continue
		}
		if c := p[depth].key; !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// indexKeys scans a TOML document.
func indexKeys(src string) *keyIndex {
	s := &keyScanner{
		src:    src,
		line:   1,
		x:      &keyIndex{pos: map[string]position{}, paths: map[string]keyPath{}, plain: map[string][]string{}},
		arrays: map[string]int{},
	}
	s.document()
	return s.x
}

type keyScanner struct {
	src       string
	i         int
	line      int
	lineStart int
	x         *keyIndex
	table     keyPath
	// arrays counts the elements of each array of tables by indexed path.
	arrays map[string]int
	failed bool
}

func (s *keyScanner) record(p keyPath, at position) {
	k := p.String()
	if _, ok := s.x.pos[k]; ok {
		return
	}
	s.x.pos[k] = at
	s.x.paths[k] = p
	s.x.order = append(s.x.order, k)
	pl := p.plain()
	s.x.plain[pl] = append(s.x.plain[pl], k)
}

func (s *keyScanner) here() position { return position{Line: s.line, Col: s.i - s.lineStart + 1} }

func (s *keyScanner) eof() bool { return s.failed || s.i >= len(s.src) }

func (s *keyScanner) peek() byte {
	if s.eof() {
		return 0
	}
	return s.src[s.i]
}

func (s *keyScanner) advance() {
	if s.eof() {
		return
	}
	if s.src[s.i] == '\n' {
		s.line++
		s.lineStart = s.i + 1
	}
	s.i++
}

// skip passes spaces, and newlines and comments when multiline is set.
func (s *keyScanner) skip(multiline bool) {
	for !s.eof() {
		switch c := s.peek(); {
		case c == ' ' || c == '\t' || c == '\r':
			s.advance()
		case c == '\n' && multiline:
			s.advance()
		case c == '#':
			for !s.eof() && s.peek() != '\n' {
				s.advance()
			}
		default:
			return
		}
	}
}

func (s *keyScanner) document() {
	for !s.eof() {
		s.skip(true)
		if s.eof() {
			return
		}
		start := s.i
		if s.peek() == '[' {
			s.header()
		} else {
			s.keyValue(s.table)
		}
		if s.i == start { // no progress: give up rather than loop
			return
		}
	}
}

func (s *keyScanner) header() {
	s.advance()
	array := s.peek() == '['
	if array {
		s.advance()
	}
	s.skip(false)
	at := s.here()
	keys := s.dottedKey()
	if s.failed || len(keys) == 0 {
		s.failed = true
		return
	}
	s.skip(false)
	closing := "]"
	if array {
		closing = "]]"
	}
	if !strings.HasPrefix(s.src[s.i:], closing) {
		s.failed = true
		return
	}
	for range closing {
		s.advance()
	}
	var p keyPath
	for j, k := range keys {
		p = p.with(k)
		if j == len(keys)-1 && array {
			n := s.arrays[p.String()]
			s.arrays[p.String()] = n + 1
			p = p.withIndex(n)
		} else if n := s.arrays[p.String()]; n > 0 {
			p = p.withIndex(n - 1) // the latest element of an array of tables
		}
		s.record(p, at)
	}
	s.table = p
}

// keyValue reads `key = value` under base.
func (s *keyScanner) keyValue(base keyPath) {
	at := s.here()
	keys := s.dottedKey()
	if s.failed || len(keys) == 0 {
		s.failed = true
		return
	}
	p := base
	for _, k := range keys {
		p = p.with(k)
		s.record(p, at)
	}
	s.skip(false)
	if s.peek() != '=' {
		s.failed = true
		return
	}
	s.advance()
	s.skip(false)
	s.value(p)
}

func (s *keyScanner) dottedKey() []string {
	var keys []string
	for {
		s.skip(false)
		k, ok := s.simpleKey()
		if !ok {
			s.failed = true
			return nil
		}
		keys = append(keys, k)
		s.skip(false)
		if s.peek() != '.' {
			return keys
		}
		s.advance()
	}
}

func (s *keyScanner) simpleKey() (string, bool) {
	switch s.peek() {
	case '"':
		raw, ok := s.basicString()
		if !ok {
			return "", false
		}
		return unquoteBasic(raw)
	case '\'':
		return s.literalString()
	}
	start := s.i
	for !s.eof() && isBareKeyChar(s.peek()) {
		s.advance()
	}
	if s.i == start {
		return "", false
	}
	return s.src[start:s.i], true
}

// basicString reads "..." and returns it with its quotes.
func (s *keyScanner) basicString() (string, bool) {
	start := s.i
	s.advance()
	for !s.eof() {
		switch s.peek() {
		case '\\':
			s.advance()
			s.advance()
		case '"':
			s.advance()
			return s.src[start:s.i], true
		case '\n':
			return "", false
		default:
			s.advance()
		}
	}
	return "", false
}

func (s *keyScanner) literalString() (string, bool) {
	s.advance()
	start := s.i
	for !s.eof() {
		switch s.peek() {
		case '\'':
			v := s.src[start:s.i]
			s.advance()
			return v, true
		case '\n':
			return "", false
		default:
			s.advance()
		}
	}
	return "", false
}

// unquoteBasic decodes a quoted key with the TOML library, so escapes
// come out as in the keys it reports (\xE9 is U+00E9 there, a byte to Go).
func unquoteBasic(raw string) (string, bool) {
	if !strings.Contains(raw, `\`) { // nothing to decode; skip a parse
		return raw[1 : len(raw)-1], true
	}
	var m map[string]any
	if _, err := toml.Decode(raw+" = 0", &m); err != nil {
		return "", false
	}
	for k := range m {
		return k, true
	}
	return "", false
}

func (s *keyScanner) multiline(q string) {
	// s is at the opening triple quote.
	for range 3 {
		s.advance()
	}
	for !s.eof() {
		if q == `"""` && s.peek() == '\\' {
			s.advance()
			s.advance()
			continue
		}
		if strings.HasPrefix(s.src[s.i:], q) {
			for range 3 {
				s.advance()
			}
			// Up to two more quotes belong to the content.
			for range 2 {
				if s.peek() == q[0] {
					s.advance()
				}
			}
			return
		}
		s.advance()
	}
}

func (s *keyScanner) value(p keyPath) {
	switch c := s.peek(); {
	case strings.HasPrefix(s.src[s.i:], `"""`):
		s.multiline(`"""`)
	case strings.HasPrefix(s.src[s.i:], `'''`):
		s.multiline(`'''`)
	case c == '"':
		if _, ok := s.basicString(); !ok {
			s.failed = true
		}
	case c == '\'':
		if _, ok := s.literalString(); !ok {
			s.failed = true
		}
	case c == '[':
		s.array(p)
	case c == '{':
		s.inlineTable(p)
	default:
		start := s.i
		for !s.eof() && !strings.ContainsRune(",]}\n#", rune(s.peek())) {
			s.advance()
		}
		if s.i == start {
			s.failed = true
		}
	}
}

func (s *keyScanner) array(p keyPath) {
	s.advance()
	for n := 0; ; n++ {
		s.skip(true)
		if s.eof() {
			s.failed = true
			return
		}
		if s.peek() == ']' {
			s.advance()
			return
		}
		elem := p.withIndex(n)
		s.record(elem, s.here())
		s.value(elem)
		if s.failed {
			return
		}
		s.skip(true)
		switch s.peek() {
		case ',':
			s.advance()
		case ']':
			s.advance()
			return
		default:
			s.failed = true
			return
		}
	}
}

func (s *keyScanner) inlineTable(p keyPath) {
	s.advance()
	for {
		s.skip(true)
		if s.eof() {
			s.failed = true
			return
		}
		if s.peek() == '}' {
			s.advance()
			return
		}
		s.keyValue(p)
		if s.failed {
			return
		}
		s.skip(true)
		switch s.peek() {
		case ',':
			s.advance()
		case '}':
			s.advance()
			return
		default:
			s.failed = true
			return
		}
	}
}
