package tool

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// argsKwargs is the arguments object as pydantic prints it for a missing
// argument.
type argsKwargs struct{ kwargs *object }

// pyTypeName is the Python type of a value decoded by json.loads.
func pyTypeName(v any) string {
	switch x := v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case json.Number:
		if isFloatText(x) {
			return "float"
		}
		return "int"
	case []any:
		return "list"
	case map[string]any, *object:
		return "dict"
	case argsKwargs:
		return "ArgsKwargs"
	}
	if j, ok := asJSON(v); ok {
		return pyTypeName(j)
	}
	return "object"
}

// truncateRepr shortens a long input as pydantic does: over 50 bytes, the
// first 25 and last 24, cut at character boundaries.
func truncateRepr(s string) string {
	if len(s) <= 50 {
		return s
	}
	head := 25
	for head > 0 && !utf8RuneStart(s[head]) {
		head--
	}
	tail := len(s) - 24
	for tail < len(s) && !utf8RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "..." + s[tail:]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// pyRepr renders a JSON value as Python's repr() of what json.loads gives.
func pyRepr(v any) string {
	var b strings.Builder
	writePyRepr(&b, v, 0)
	return b.String()
}

func writePyRepr(b *strings.Builder, v any, depth int) {
	if depth > maxCheckDepth {
		b.WriteString("...")
		return
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		writePyString(b, x)
	case json.Number:
		b.WriteString(pyNumber(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyRepr(b, e, depth+1)
		}
		b.WriteByte(']')
	case map[string]any:
		writePyRepr(b, orderedLike(x, nil), depth)
	case *object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, k)
			b.WriteString(": ")
			writePyRepr(b, x.vals[k], depth+1)
		}
		b.WriteByte('}')
	case argsKwargs:
		b.WriteString("ArgsKwargs(()")
		if len(x.kwargs.keys) > 0 {
			b.WriteString(", ")
			writePyRepr(b, x.kwargs, depth+1)
		}
		b.WriteByte(')')
	default:
		if j, ok := asJSON(x); ok {
			writePyRepr(b, j, depth+1)
		} else {
			b.WriteString("None")
		}
	}
}

// pyNumber is Python's repr of a JSON number: an int as its digits, a
// float in the shortest form that reads back, with ".0" or a two-digit
// exponent.
func pyNumber(n json.Number) string {
	s := string(n)
	if !isFloatText(n) {
		if strings.Trim(s, "-0") == "" {
			return "0"
		}
		return s
	}
	f, _ := strconv.ParseFloat(s, 64)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	fixed := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed
}

// writePyString writes Python's repr of a str: single quotes unless the
// text has one and no double quote, and escapes for what is not printable.
func writePyString(b *strings.Builder, s string) {
	q := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	b.WriteRune(q)
	for _, r := range s {
		switch {
		case r == q || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x`)
			b.WriteString(hex(uint64(r), 2))
		case r < 0x10000:
			b.WriteString(`\u`)
			b.WriteString(hex(uint64(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hex(uint64(r), 8))
		}
	}
	b.WriteRune(q)
}

func hex(n uint64, width int) string {
	s := strconv.FormatUint(n, 16)
	return strings.Repeat("0", width-len(s)) + s
}
