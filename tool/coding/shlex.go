package coding

import "errors"

// shlexSplit is Python's shlex.split(s) (POSIX mode, no comments): words
// split at whitespace, '…' literal, "…" with \ escaping \ " $ ` and
// newline, and \ escaping any character outside quotes.
func shlexSplit(s string) ([]string, error) {
	var words []string
	var cur []rune
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, string(cur))
				cur, inWord = nil, false
			}
		case r == '\\':
			i++
			if i >= len(rs) {
				//lint:ignore ST1005 agno's error text, which the model sees as it is
				return nil, errors.New("No escaped character")
			}
			cur, inWord = append(cur, rs[i]), true
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				//lint:ignore ST1005 agno's error text, which the model sees as it is
				return nil, errors.New("No closing quotation")
			}
			cur = append(cur, rs[i+1:j]...)
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && (rs[j+1] == '\\' || rs[j+1] == '"' || rs[j+1] == '$' || rs[j+1] == '`' || rs[j+1] == '\n') {
					j++
				}
				cur = append(cur, rs[j])
			}
			if j >= len(rs) {
				//lint:ignore ST1005 agno's error text, which the model sees as it is
				return nil, errors.New("No closing quotation")
			}
			i = j
		default:
			cur, inWord = append(cur, r), true
		}
	}
	if inWord {
		words = append(words, string(cur))
	}
	return words, nil
}
