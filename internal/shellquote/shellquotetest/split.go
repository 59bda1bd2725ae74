// Package shellquotetest is a small, strict POSIX shell word parser for
// tests: it turns one command line into words and operators the way sh
// would, and refuses anything sh would expand (parameters, command
// substitution, globs, tildes, comments), so a test can prove that quoted
// text is one literal word.
package shellquotetest

import (
	"fmt"
	"strings"
)

// Token is a word (quotes removed) or a control/redirection operator.
type Token struct {
	Text string
	Op   bool
}

// Words returns the texts of tokens, operators included.
func Words(toks []Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

var operators = []string{"&&", "||", ">>", "<<", ";", "|", "&", ">", "<", "(", ")"}

// Split parses one command line. An unquoted newline, or any character sh
// would expand when unquoted or double-quoted, is an error naming its
// offset.
func Split(line string) ([]Token, error) {
	var toks []Token
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, Token{Text: word.String()})
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '\n':
			return nil, fmt.Errorf("unquoted newline at offset %d", i)
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated single quote at offset %d", i)
			}
			word.WriteString(line[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case c == '"':
			n, err := doubleQuoted(line, i, &word)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = n
		case c == '\\':
			if i+1 >= len(line) {
				return nil, fmt.Errorf("trailing backslash at offset %d", i)
			}
			if line[i+1] != '\n' { // backslash-newline is a line continuation
				word.WriteByte(line[i+1])
				inWord = true
			}
			i += 2
		default:
			if op := operatorAt(line, i); op != "" {
				flush()
				toks = append(toks, Token{Text: op, Op: true})
				i += len(op)
				continue
			}
			if strings.IndexByte("$`*?[{}!", c) >= 0 || (!inWord && (c == '#' || c == '~')) {
				return nil, fmt.Errorf("unquoted %q at offset %d would be expanded by sh", c, i)
			}
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	return toks, nil
}

func operatorAt(line string, i int) string {
	for _, op := range operators {
		if strings.HasPrefix(line[i:], op) {
			return op
		}
	}
	return ""
}

// doubleQuoted reads a "…" segment starting at line[start] into word and
// returns the offset after its closing quote.
func doubleQuoted(line string, start int, word *strings.Builder) (int, error) {
	for i := start + 1; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			return i + 1, nil
		case '$', '`':
			return 0, fmt.Errorf("%q inside double quotes at offset %d would be expanded by sh", c, i)
		case '\\':
			if i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
				if line[i+1] != '\n' {
					word.WriteByte(line[i+1])
				}
				i++
				continue
			}
			word.WriteByte(c)
		default:
			word.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("unterminated double quote at offset %d", start)
}

// FirstLine splits a command at its first newline that is outside quotes:
// the line holding a here-document operator, and the text after it (the
// here-document body and whatever follows).
func FirstLine(cmd string) (line, rest string, err error) {
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case '\n':
			return cmd[:i], cmd[i+1:], nil
		case '\'':
			end := strings.IndexByte(cmd[i+1:], '\'')
			if end < 0 {
				return "", "", fmt.Errorf("unterminated single quote at offset %d", i)
			}
			i += end + 1
		case '\\':
			i++
		case '"':
			var sink strings.Builder
			n, err := doubleQuoted(cmd, i, &sink)
			if err != nil {
				return "", "", err
			}
			i = n - 1
		}
	}
	return cmd, "", nil
}
