package tool

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// parsePythonLiteral parses the subset of Python literal syntax models emit
// when they write arguments as a Python dict: dicts, lists, tuples, sets,
// strings in either quote (with escapes), numbers, None, True, False.
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

func (p *pyParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
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
		return p.seq(depth, '(', ')')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, kw := range []struct {
			word string
			val  any
		}{{"None", nil}, {"True", true}, {"False", false}} {
			if strings.HasPrefix(p.s[p.i:], kw.word) {
				p.i += len(kw.word)
				return kw.val, nil
			}
		}
	}
	return nil, p.errf("unexpected character %q", p.s[p.i])
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return map[string]any{}, nil
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
	out := map[string]any{}
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
		out[ks] = val
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

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	if triple {
		p.i += 3
	} else {
		p.i++
	}
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return nil, p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case triple && strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3)):
			p.i += 3
			return b.String(), nil
		case !triple && c == q:
			p.i++
			return b.String(), nil
		case !triple && c == '\n':
			return nil, p.errf("newline in string")
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return nil, err
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
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00", '\n': ""}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 {
		b.WriteByte('\\')
		b.WriteByte(c)
		return nil
	}
	if p.i+width > len(p.s) {
		return p.errf("truncated \\%c escape", c)
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32)
	if err != nil || n > utf8.MaxRune {
		return p.errf("bad \\%c escape", c)
	}
	p.i += width
	b.WriteRune(rune(n))
	return nil
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789._eExXabcdefABCDEFjJ", p.s[p.i]) >= 0 {
		p.i++
	}
	lit := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if n, err := strconv.ParseInt(lit, 0, 64); err == nil {
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, p.errf("bad number %q", p.s[start:p.i])
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}
