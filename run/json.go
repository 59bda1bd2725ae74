package run

import (
	"bytes"
	"encoding/json"
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
