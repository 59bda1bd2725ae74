// Package pyrepr writes values as Python's repr() writes what json.loads
// gives, where agno's text shows a Python value to a model or a user: a
// session state in a prompt, a pydantic validation error.
package pyrepr

import (
	"encoding/json"
	"github.com/agno-go/agno/internal/pyjson"
	"math"
	"strconv"
	"strings"
	"unicode"
)

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
