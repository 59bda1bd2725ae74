// Package pyrepr writes values as Python's repr() writes what json.loads
// gives, where agno's text shows a Python value to a model or a user: a
// session state in a prompt, a pydantic validation error.
package pyrepr

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/agno-go/agno/internal/pyjson"
)

// Ordered is a mapping that keeps its keys' order, as a Python dict keeps
// insertion order; plain maps are written with their keys sorted.
type Ordered interface {
	Keys() []string
	Value(key string) any
}

// Writer writes its own repr (a Python object that is not JSON-like).
type Writer interface {
	WritePyRepr(b *strings.Builder)
}

// maxDepth bounds nesting; deeper values are written "...".
const maxDepth = 64

// Repr is Python's repr() of a JSON-like value (nil, bool, string,
// json.Number, float64, int, int64, []any, map[string]any, Ordered);
// anything else is written as what json.loads makes of its JSON.
func Repr(v any) string {
	var b strings.Builder
	Write(&b, v)
	return b.String()
}

// Write writes Repr(v) to b.
func Write(b *strings.Builder, v any) { write(b, v, 0) }

func write(b *strings.Builder, v any, depth int) {
	if depth > maxDepth {
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
		Quote(b, x)
	case json.Number:
		b.WriteString(Number(x))
	case float64:
		b.WriteString(Float(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e, depth+1)
		}
		b.WriteByte(']')
	case map[string]any:
		dict(b, slices.Sorted(maps.Keys(x)), func(k string) any { return x[k] }, depth)
	case Ordered:
		dict(b, x.Keys(), x.Value, depth)
	case Writer:
		x.WritePyRepr(b)
	default:
		raw, err := json.Marshal(x)
		var back any
		if err == nil {
			d := json.NewDecoder(bytes.NewReader(raw))
			d.UseNumber()
			err = d.Decode(&back)
		}
		if err != nil {
			b.WriteString("None")
			return
		}
		write(b, back, depth+1)
	}
}

func dict(b *strings.Builder, keys []string, value func(string) any, depth int) {
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		Quote(b, k)
		b.WriteString(": ")
		write(b, value(k), depth+1)
	}
	b.WriteByte('}')
}

// Quote writes Python's repr of a str: single quotes unless the text has
// one and no double quote, and escapes for what is not printable.
func Quote(b *strings.Builder, s string) {
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

// IsFloat reports whether a JSON number is a float to json.loads (it has
// a fraction or an exponent).
func IsFloat(n json.Number) bool { return strings.ContainsAny(string(n), ".eE") }

// Number is Python's repr of a JSON number: an int as its digits, a float
// as Float gives it.
func Number(n json.Number) string {
	s := string(n)
	if !IsFloat(n) {
		if strings.Trim(s, "-0") == "" {
			return "0"
		}
		return s
	}
	f, _ := strconv.ParseFloat(s, 64)
	return Float(f)
}

// Float is Python's repr of a float: the shortest form that reads back,
// with ".0" or a two-digit exponent (json.dumps writes the same, but for
// inf and nan).
func Float(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s, _ := pyjson.FloatRepr(f) // finite: no error
	return s
}
