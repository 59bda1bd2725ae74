package run

import (
	"bytes"
	"encoding/json"
	"math"
	"unicode/utf8"
)

// decodeJSON decodes keeping numbers exact (json.Number), so integers in
// tool arguments and state survive a round trip.
func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// DecodeJSON is decodeJSON for other packages: numbers stay json.Number.
func DecodeJSON(b []byte, v any) error { return decodeJSON(b, v) }

// EncodeJSON encodes without HTML escaping, as Python's json does.
func EncodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// CloneMap deep-copies a JSON-like map.
func CloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return CloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	default:
		return v
	}
}

// MergeMaps deep-merges src into dst (agno's merge_dictionaries): nested
// maps merge, everything else in src replaces dst.
func MergeMaps(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				MergeMaps(dv, sv)
				continue
			}
			dst[k] = CloneMap(sv)
			continue
		}
		dst[k] = cloneValue(v)
	}
}

// JSONForm is m as encoding it to JSON and decoding the text into a
// map[string]any (numbers as float64) gives it back, made without the
// text. ok is false when m holds a value only an encoding can tell (a
// struct, a float32, a json.Number, text that is not UTF-8, NaN): the
// caller encodes then.
func JSONForm(m map[string]any) (out map[string]any, ok bool) {
	if m == nil {
		return nil, true
	}
	out = make(map[string]any, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, false
		}
		if out[k], ok = jsonValue(v); !ok {
			return nil, false
		}
	}
	return out, true
}

func jsonValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case map[string]any:
		if x == nil {
			return nil, true
		}
		return JSONForm(x)
	case []any:
		if x == nil {
			return nil, true
		}
		out := make([]any, len(x))
		for i, e := range x {
			var ok bool
			if out[i], ok = jsonValue(e); !ok {
				return nil, false
			}
		}
		return out, true
	default:
		return nil, false
	}
}
