package daytona

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

var pyKeywords = map[string]string{"true": "True", "false": "False", "none": "None"}

// preparePythonCode turns the JSON spellings true/false/none that models
// write into Python's True/False/None when they stand as whole words
// (Python's Unicode \b) in code. String literals (with up to two prefix
// letters, triple-quoted or not) and # comments are copied untouched:
// agno v2.6.13 rewrote them too (print('true') printed True); agno fixed
// that later and so does this.
func preparePythonCode(code string) string {
	var b strings.Builder
	b.Grow(len(code))
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '\'' || c == '"':
			if end, ok := pyLiteralEnd(code, i); ok {
				b.WriteString(code[i:end])
				i = end
				continue
			}
			b.WriteByte(c)
			i++
		case c == '#':
			end := strings.IndexByte(code[i:], '\n')
			if end < 0 {
				end = len(code) - i
			}
			b.WriteString(code[i : i+end])
			i += end
		default:
			j := i
			for j < len(code) {
				r, size := utf8.DecodeRuneInString(code[j:])
				if !isPyWordRune(r) {
					break
				}
				j += size
			}
			if j == i {
				_, size := utf8.DecodeRuneInString(code[i:])
				b.WriteString(code[i : i+size])
				i += size
				continue
			}
			word := code[i:j]
			if rep, ok := pyKeywords[word]; ok {
				word = rep
			}
			b.WriteString(word)
			i = j
		}
	}
	return b.String()
}

// isPyWordRune is Python's Unicode \w: alphanumeric (letters and every
// numeric category) or underscore.
func isPyWordRune(r rune) bool {
	return r != utf8.RuneError && (r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r))
}

// pyLiteralEnd returns the end of the string literal opening at code[i]:
// a triple-quoted one runs to the next matching triple quote; a plain one
// to the next unescaped matching quote, across lines, but not past a
// backslash-newline. ok is false when the literal never closes.
func pyLiteralEnd(code string, i int) (end int, ok bool) {
	quote := code[i]
	triple := `"""`
	if quote == '\'' {
		triple = "'''"
	}
	if strings.HasPrefix(code[i:], triple) {
		if k := strings.Index(code[i+3:], triple); k >= 0 {
			return i + 3 + k + 3, true
		}
	}
	for j := i + 1; j < len(code); j++ {
		switch code[j] {
		case quote:
			return j + 1, true
		case '\\':
			if j+1 >= len(code) || code[j+1] == '\n' {
				return 0, false
			}
			j++
		}
	}
	return 0, false
}

// errorJSON is agno's json.dumps({"status": "error", "message": msg}).
func errorJSON(msg string) string {
	return `{"status": "error", "message": ` + pyJSONString(msg) + `}`
}

// pyJSONString encodes s as Python's json.dumps does by default
// (ensure_ascii): everything outside printable ASCII is escaped, as a
// short escape, \uXXXX, or a surrogate pair above the BMP.
func pyJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20 || (r >= 0x7f && r <= 0xffff):
				fmt.Fprintf(&b, `\u%04x`, r)
			case r > 0xffff:
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			default:
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
