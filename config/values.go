package config

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/BurntSushi/toml"
)

// Table is a free-form TOML table (session_state, metadata, dependencies,
// JSON schemas): any keys, any values. Values are JSON-compatible: TOML
// integers are int64, floats float64, date-times RFC 3339 strings.
type Table map[string]any

var _ toml.Unmarshaler = (*Table)(nil)

// UnmarshalTOML implements toml.Unmarshaler.
func (t *Table) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("expected a table, got %s", tomlKind(v))
	}
	*t = Table(jsonValue(m).(map[string]any))
	return nil
}

// JSON returns the table as a JSON object; nil for an absent table.
func (t Table) JSON() (json.RawMessage, error) {
	if t == nil {
		return nil, nil
	}
	return json.Marshal(map[string]any(t))
}

// Value is any TOML value, decoded to its JSON-compatible form.
type Value struct{ V any }

var _ toml.Unmarshaler = (*Value)(nil)

// UnmarshalTOML implements toml.Unmarshaler.
func (x *Value) UnmarshalTOML(v any) error {
	x.V = jsonValue(v)
	return nil
}

// jsonValue converts decoded TOML into values encoding/json and CEL take.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case time.Time:
		// The TOML library marks local dates and times by zone name.
		switch x.Location().String() {
		case "date-local":
			return x.Format(time.DateOnly)
		case "time-local":
			return x.Format("15:04:05.999999999")
		case "datetime-local":
			return x.Format("2006-01-02T15:04:05.999999999")
		}
		return x.Format(time.RFC3339Nano)
	}
	return v
}

// StringList is a string or a list of strings (instructions = "…" or
// ["…", "…"]).
type StringList []string

var _ toml.Unmarshaler = (*StringList)(nil)

// UnmarshalTOML implements toml.Unmarshaler.
func (l *StringList) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*l = StringList{x}
		return nil
	case []any:
		out := make(StringList, 0, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("item %d is %s; every item must be a string", i, tomlKind(e))
			}
			out = append(out, s)
		}
		*l = out
		return nil
	}
	return fmt.Errorf("expected a string or a list of strings, got %s", tomlKind(v))
}

// Expr is a condition, selector or end condition: the name of a
// registered Go function or a CEL expression. A TOML boolean is the CEL
// literal.
type Expr string

var _ toml.Unmarshaler = (*Expr)(nil)

// UnmarshalTOML implements toml.Unmarshaler.
func (e *Expr) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*e = Expr(x)
	case bool:
		*e = Expr(fmt.Sprint(x))
	default:
		return fmt.Errorf("expected a string (a registered function name or a CEL expression), got %s", tomlKind(v))
	}
	return nil
}

// Seconds is a duration in seconds (a TOML integer or float).
type Seconds float64

var _ toml.Unmarshaler = (*Seconds)(nil)

// UnmarshalTOML implements toml.Unmarshaler.
func (s *Seconds) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		*s = Seconds(x)
	case float64:
		*s = Seconds(x)
	default:
		return fmt.Errorf("expected a number of seconds, got %s", tomlKind(v))
	}
	return nil
}

// Duration converts to a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

func tomlKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case int64:
		return fmt.Sprintf("the integer %d", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}
