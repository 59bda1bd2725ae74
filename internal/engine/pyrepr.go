package engine

import (
	"github.com/agno-go/agno/internal/pyrepr"
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
func pythonRepr(v any) string { return pyrepr.Repr(v) }
