package engine

import (
	"encoding/json"
	"github.com/agno-go/agno/internal/pyrepr"
	"sort"
	"strconv"
	"strings"
)

// pythonStr renders a value as Python's str() would, so {var}
// substitution and <session_state> read as they do in agno.
func pythonStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pythonRepr(v)
}

// pythonRepr renders a JSON-like value as Python's repr().
func pythonRepr(v any) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

func writeRepr(b *strings.Builder, v any) {
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
		pyrepr.Quote(b, x)
	case json.Number:
		b.WriteString(pyrepr.Number(x))
	case float64:
		b.WriteString(pyrepr.Float(x))
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
			writeRepr(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			pyrepr.Quote(b, k)
			b.WriteString(": ")
			writeRepr(b, x[k])
		}
		b.WriteByte('}')
	default:
		raw, err := json.Marshal(x)
		if err != nil {
			b.WriteString("None")
			return
		}
		var generic any
		if err := json.Unmarshal(raw, &generic); err != nil {
			b.Write(raw)
			return
		}
		writeRepr(b, generic)
	}
}
