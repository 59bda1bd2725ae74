package file

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// pyDumps is Python's json.dumps(v, indent=n): ", "-free indented layout,
// no HTML escaping, and ensure_ascii (everything outside printable ASCII
// escaped, above the BMP as a surrogate pair).
func pyDumps(v any, indent string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var b strings.Builder
	for len(raw) > 0 {
		r, size := utf8.DecodeRune(raw)
		switch {
		case r == 0x7f || (r > 0x7f && r <= 0xffff):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
		raw = raw[size:]
	}
	return b.String(), nil
}
