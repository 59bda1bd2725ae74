// Package metajson is how the vector stores write and read a record's
// metadata: as agno stores it (Python's json.dumps, floats in repr form,
// so 2.0 stays a float) and back as Python's json.loads gives it
// (integer literals as int64, or json.Number beyond int64; other numbers
// as float64).
//
// Writing floats with a '.' or an exponent keeps their type through the
// database: SQLite's and Postgres' JSON functions then see the same
// numbers filter.Match does.
package metajson

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
)

// ErrNotJSON is returned (wrapped) for values JSON cannot hold: NaN and
// infinite numbers.
var ErrNotJSON = errors.New("metadata: NaN and infinite numbers cannot be stored as JSON")

// Encode writes v as agno stores it, UTF-8 (not \u-escaped).
func Encode(v any) (string, error) {
	s, err := pyjson.DumpsOpts(v, pyjson.Options{NoEnsureASCII: true})
	if err != nil {
		return "", err
	}
	// pyjson writes NaN and Infinity as Python does, which is not JSON.
	if !json.Valid([]byte(s)) {
		return "", ErrNotJSON
	}
	return s, nil
}

// Decode reads a stored JSON object; JSON null gives an empty map.
func Decode(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	for k, v := range m {
		m[k] = Numbers(v)
	}
	return m, nil
}

// Numbers turns the json.Number values inside v (in place, for maps and
// slices) into Python's types: int64 for an integer literal that fits,
// float64 for any other finite number; others stay json.Number.
func Numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
			return x
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = Numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = Numbers(e)
		}
	}
	return v
}
