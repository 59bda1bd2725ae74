package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Object is a JSON object that keeps its key order, as a Python dict
// keeps insertion order: Set on a present key keeps its place. Dumps
// writes it in that order, pyrepr as a dict (Keys and Value), and
// MarshalJSON in that order with floats as Python writes them.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject is an empty object.
func NewObject() *Object { return &Object{vals: map[string]any{}} }

// Set sets k to v.
func (o *Object) Set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// Get returns k's value.
func (o *Object) Get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

// GetOr is Python's dict.get(k, def); a nil object has no keys.
func (o *Object) GetOr(k string, def any) any {
	if o == nil {
		return def
	}
	if v, ok := o.vals[k]; ok {
		return v
	}
	return def
}

// Keys are the keys in order (pyrepr.Ordered).
func (o *Object) Keys() []string { return o.keys }

// Value is k's value, nil when absent (pyrepr.Ordered).
func (o *Object) Value(k string) any { return o.vals[k] }

// MarshalJSON writes the keys in order; a float stays one (50.0, not
// 50), as json.dumps writes it.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if f, ok := o.vals[k].(float64); ok {
			r, err := FloatRepr(f)
			if err != nil {
				return nil, err
			}
			b.WriteString(r)
			continue
		}
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ErrExtraData is Loads' error for text after the JSON value.
var ErrExtraData = errors.New("extra data after the JSON value")

// Loads reads one JSON value as Python's json.loads does: objects as
// *Object (key order kept), numbers as json.Number, arrays as []any
// (never nil); text after the value is ErrExtraData.
func Loads(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, ErrExtraData
	}
	return v, nil
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	switch d {
	case '{':
		o := NewObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k, v)
		}
		_, err := dec.Token()
		return o, err
	case '[':
		arr := []any{}
		for dec.More() {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}
