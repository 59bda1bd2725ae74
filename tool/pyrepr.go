package tool

import (
	"encoding/json"
	"strings"

	"github.com/agno-go/agno/internal/pyrepr"
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
func pyRepr(v any) string { return pyrepr.Repr(v) }

// Keys and Value make an object a pyrepr.Ordered: printed in its order.
func (o *object) Keys() []string       { return o.keys }
func (o *object) Value(key string) any { return o.vals[key] }

// WritePyRepr writes the arguments as pydantic prints them.
func (a argsKwargs) WritePyRepr(b *strings.Builder) {
	b.WriteString("ArgsKwargs(()")
	if len(a.kwargs.keys) > 0 {
		b.WriteString(", ")
		pyrepr.Write(b, a.kwargs)
	}
	b.WriteByte(')')
}
