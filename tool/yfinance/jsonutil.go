package yfinance

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// object is a JSON object that keeps its keys' order, as Python's dicts do.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// set adds k, or replaces its value in place (dict.update's order).
func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// fields reads a JSON object's members in order; a non-object is none.
func fields(raw json.RawMessage) *object {
	o := newObject()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return o
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return o
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o
		}
		o.set(kt.(string), v)
	}
	return o
}

// plain is a quoteSummary value as yfinance keeps it: {"raw": x, "fmt":
// "..."} becomes x; an empty object or null is dropped (ok false).
func plain(v json.RawMessage) (json.RawMessage, bool) {
	t := bytes.TrimSpace(v)
	if len(t) == 0 || string(t) == "null" || string(t) == "{}" {
		return nil, false
	}
	if t[0] == '{' {
		if r, ok := fields(t).get("raw"); ok {
			return r, true
		}
	}
	return t, true
}

// pandasFloat is a float as pandas' to_json writes it (double_precision
// 10: at most ten decimals, trailing zeros dropped, ".0" kept); NaN is null.
func pandasFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null"
	}
	s := strconv.FormatFloat(f, 'f', 10, 64)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}
