package tool

import (
	"encoding/json"
	"github.com/agno-go/agno/internal/pyrepr"
	"strings"
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
		if pyrepr.IsFloat(x) {
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
		pyrepr.Quote(b, x)
	case json.Number:
		b.WriteString(pyrepr.Number(x))
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
			pyrepr.Quote(b, k)
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
