package tool

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// parsePythonLiteral parses what ast.literal_eval accepts of the literals
// models emit when they write arguments as a Python dict: dicts (as
// *object, keys in order), lists, tuples and sets (as []any), strings in
// either quote with escapes and u/r prefixes, exact numbers (json.Number),
// None, True, False.
func parsePythonLiteral(s string) (any, error) {
	p := &pyParser{s: s}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected text after the value")
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

const maxPyDepth = 200

func (p *pyParser) errf(format string, a ...any) error {
	return fmt.Errorf("python literal at offset %d: %s", p.i, fmt.Sprintf(format, a...))
}

// space skips what Python's tokenizer skips between tokens: blanks,
// newlines (we are inside brackets), line continuations and comments.
func (p *pyParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r', '\f':
			p.i++
		case '\\':
			if !strings.HasPrefix(p.s[p.i:], "\\\n") && !strings.HasPrefix(p.s[p.i:], "\\\r\n") {
				return
			}
			p.i++
		case '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, p.errf("nesting too deep")
	}
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.seq(depth, '[', ']')
	case c == '(':
		return p.paren(depth)
	case c == '\'' || c == '"' || p.stringPrefix() > 0:
		return p.strings()
	case c == '-' || c == '+':
		return p.signed()
	case c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		word := p.s[p.i:]
		end := strings.IndexFunc(word, func(r rune) bool { return !isIdentRune(r) })
		if end >= 0 {
			word = word[:end]
		}
		switch word {
		case "None":
			p.i += len(word)
			return nil, nil
		case "True":
			p.i += len(word)
			return true, nil
		case "False":
			p.i += len(word)
			return false, nil
		case "":
		default:
			return nil, p.errf("name %q is not a literal (only None, True and False are)", word)
		}
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return nil, p.errf("unexpected character %q", r)
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return newObject(), nil
	}
	first, err := p.value(depth + 1)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] != ':' {
		// A set literal: {a, b}.
		items := []any{first}
		return p.rest(depth, items, '}')
	}
	out := newObject()
	key := first
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.i++
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		ks, err := keyString(key)
		if err != nil {
			return nil, p.errf("%v", err)
		}
		out.set(ks, val)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated dict")
		}
		if p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		if p.s[p.i] != ',' {
			return nil, p.errf("expected ',' or '}'")
		}
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		if key, err = p.value(depth + 1); err != nil {
			return nil, err
		}
	}
}

func keyString(k any) (string, error) {
	switch x := k.(type) {
	case string:
		return x, nil
	case json.Number:
		return string(x), nil
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "null", nil
	}
	return "", fmt.Errorf("unsupported dict key %v", k)
}

// paren parses a tuple, or a parenthesised value: (1) is 1, (1,) a tuple.
func (p *pyParser) paren(depth int) (any, error) {
	p.i++
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ')' {
		p.i++
		return []any{}, nil
	}
	v, err := p.value(depth + 1)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ')' {
		p.i++
		return v, nil
	}
	return p.rest(depth, []any{v}, ')')
}

// signed parses one unary sign before a number (literal_eval takes -1,
// +1 and - 1, not --1).
func (p *pyParser) signed() (any, error) {
	neg := p.s[p.i] == '-'
	p.i++
	p.space()
	if p.i >= len(p.s) || !(p.s[p.i] == '.' || (p.s[p.i] >= '0' && p.s[p.i] <= '9')) {
		return nil, p.errf("a sign must be followed by a number")
	}
	v, err := p.number()
	if err != nil || !neg {
		return v, err
	}
	n := string(v.(json.Number))
	if !strings.ContainsAny(n, ".eE") && strings.Trim(n, "0") == "" {
		return v, nil // an integer -0 is 0
	}
	return json.Number("-" + n), nil
}

func (p *pyParser) seq(depth int, open, close byte) (any, error) {
	p.i++
	p.space()
	items := []any{}
	if p.i < len(p.s) && p.s[p.i] == close {
		p.i++
		return items, nil
	}
	v, err := p.value(depth + 1)
	if err != nil {
		return nil, err
	}
	return p.rest(depth, append(items, v), close)
}

// rest parses ", item"* up to close.
func (p *pyParser) rest(depth int, items []any, close byte) (any, error) {
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated sequence")
		}
		if p.s[p.i] == close {
			p.i++
			return items, nil
		}
		if p.s[p.i] != ',' {
			return nil, p.errf("expected ',' or %q", close)
		}
		p.i++
		p.space()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return items, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
}

// stringPrefix returns the length of a u/r string prefix at the cursor
// (u'…', r"…", R'…'), or 0.
func (p *pyParser) stringPrefix() int {
	rest := p.s[p.i:]
	if len(rest) >= 2 && strings.ContainsRune("uUrR", rune(rest[0])) && (rest[1] == '\'' || rest[1] == '"') {
		return 1
	}
	return 0
}

// strings parses one string literal and any adjacent ones, which Python
// concatenates ('a' "b" is "ab").
func (p *pyParser) strings() (any, error) {
	var b strings.Builder
	for {
		if err := p.str(&b); err != nil {
			return nil, err
		}
		save := p.i
		p.space()
		if p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"' || p.stringPrefix() > 0) {
			continue
		}
		p.i = save
		return b.String(), nil
	}
}

func (p *pyParser) str(b *strings.Builder) error {
	raw := false
	if n := p.stringPrefix(); n > 0 {
		raw = p.s[p.i] == 'r' || p.s[p.i] == 'R'
		p.i += n
	}
	q := p.s[p.i]
	closing := string(q)
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(closing, 3))
	if triple {
		closing = strings.Repeat(closing, 3)
	}
	p.i += len(closing)
	for {
		if p.i >= len(p.s) {
			return p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case strings.HasPrefix(p.s[p.i:], closing):
			p.i += len(closing)
			return nil
		case !triple && (c == '\n' || c == '\r'):
			return p.errf("newline in string")
		case c == '\\' && raw:
			// A raw string keeps the backslash; it only stops the next
			// character from closing the string.
			b.WriteByte('\\')
			p.i++
			if p.i < len(p.s) {
				r, size := utf8.DecodeRuneInString(p.s[p.i:])
				b.WriteRune(r)
				p.i += size
			}
		case c == '\\':
			if err := p.escape(b); err != nil {
				return err
			}
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
}

func (p *pyParser) escape(b *strings.Builder) error {
	p.i++ // backslash
	if p.i >= len(p.s) {
		return p.errf("unterminated escape")
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '\\', '\'', '"':
		b.WriteByte(c)
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '\n': // line continuation
	case '\r':
		if p.i < len(p.s) && p.s[p.i] == '\n' {
			p.i++
		}
	case '0', '1', '2', '3', '4', '5', '6', '7':
		// Up to three octal digits.
		n := int(c - '0')
		for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
			n = n*8 + int(p.s[p.i]-'0')
			p.i++
		}
		b.WriteRune(rune(n))
	case 'x', 'u', 'U':
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if p.i+width > len(p.s) {
			return p.errf("truncated \\%c escape", c)
		}
		digits := p.s[p.i : p.i+width]
		n, err := strconv.ParseUint(digits, 16, 32)
		if err != nil || n > utf8.MaxRune || strings.ContainsAny(digits, "+-_") {
			return p.errf("bad \\%c escape", c)
		}
		p.i += width
		b.WriteRune(rune(n))
	default:
		// Python keeps an unknown escape as written.
		b.WriteByte('\\')
		p.i--
	}
	return nil
}

// number parses an unsigned int or float literal into an exact JSON
// number: integers of any size keep every digit (Python ints are
// unbounded), floats are written as Python writes them (1.0 stays 1.0).
func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if isIdentByte(c) || c == '.' {
			p.i++
			continue
		}
		// An exponent sign: 1e-5, 2.5E+3.
		if (c == '+' || c == '-') && p.i > start && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E') && !isHexPrefixed(p.s[start:p.i]) {
			p.i++
			continue
		}
		break
	}
	text := p.s[start:p.i]
	bad := func() (any, error) { return nil, p.errf("bad number %q", text) }
	if strings.HasPrefix(text, "_") || strings.HasSuffix(text, "_") || strings.Contains(text, "__") {
		return bad()
	}
	lit := strings.ReplaceAll(text, "_", "")
	lower := strings.ToLower(lit)
	if len(lower) > 1 && lower[0] == '0' && strings.ContainsRune("xob", rune(lower[1])) {
		n, ok := new(big.Int).SetString(lower, 0)
		if !ok {
			return bad()
		}
		return json.Number(n.String()), nil
	}
	if lit != "" && strings.Trim(lit, "0123456789") == "" {
		// Python 3 refuses leading zeros (017) except in 0, 00, …
		if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
			return bad()
		}
		n, _ := new(big.Int).SetString(lit, 10)
		return json.Number(n.String()), nil
	}
	if strings.ContainsAny(lower, "jxob") || strings.Count(lower, ".") > 1 {
		return bad() // complex and malformed literals have no JSON form
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return bad()
	}
	return json.Number(pyFloat(f)), nil
}

// pyFloat formats a float the way Python's repr does, which json.dumps
// uses: shortest round-trip digits, always a decimal point or exponent.
func pyFloat(f float64) string {
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		// Go, like Python, writes at least two exponent digits: 1e-05.
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func isHexPrefixed(s string) bool {
	return len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

func isIdentByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// plain turns ordered objects into maps, recursively.
func plain(v any) any {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.keys))
		for _, k := range x.keys {
			m[k] = plain(x.vals[k])
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = plain(e)
		}
		return x
	}
	return v
}
