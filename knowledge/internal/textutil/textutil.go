// Package textutil has the string helpers the knowledge packages share:
// Python's notion of whitespace, agno's clean_text, and the tokenizer the
// lexical embedder and keyword search agree on.
package textutil

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace (and so the regex \s on
// str) holds for r. It is unicode.IsSpace plus the separators U+001C to
// U+001F, which Python counts as whitespace and Go does not.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// Clean is agno's ChunkingStrategy.clean_text. Its first two
// substitutions (\n+ to \n, then \s+ to " ") already turn every run of
// whitespace into one space, so the later ones never match.
func Clean(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inSpace := false
	for _, r := range s {
		if IsSpace(r) {
			if !inSpace {
				b.WriteByte(' ')
				inSpace = true
			}
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

// Len is Python's len(str): the number of code points.
func Len(s string) int { return utf8.RuneCountInString(s) }

// Fields is Python's str.split() with no argument.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// Tail returns the last n code points of s (Python's s[-n:]).
func Tail(s string, n int) string {
	if n <= 0 {
		return s // s[-0:] is the whole string in Python
	}
	count := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		count++
		if count == n {
			return s[i:]
		}
	}
	return s
}

// Prefix returns the first n code points of s (Python's s[:n]).
func Prefix(s string, n int) string {
	i := 0
	for range n {
		if i >= len(s) {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// SplitLines is Python's str.splitlines(): it splits on every line
// boundary Python knows and drops the final empty line.
func SplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\r':
			lines = append(lines, s[start:i])
			i += size
			if i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
			continue
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, s[start:i])
			i += size
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// Tokens splits s into lower-cased runs of letters and digits. Keyword
// search and the lexical embedder use the same tokens, so a word that
// matches one way matches the other.
func Tokens(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

// IsStopWord reports whether tok (lower-cased, as Tokens gives it) is a
// common English word: the lexical embedder drops them, since they appear
// in nearly every text and would make unrelated texts look alike, and
// keyword search leaves them out of its query, since every record
// matching one of them would be ranked.
func IsStopWord(tok string) bool { return stopWords[tok] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could",
		"did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his",
		"how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of",
		"on", "or", "our", "she", "so", "such", "than", "that", "the", "their", "them",
		"then", "there", "these", "they", "this", "those", "to", "was", "we", "were",
		"what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
		"you", "your",
	} {
		m[w] = true
	}
	return m
}()
