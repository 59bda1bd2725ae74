package webfetch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Object is a JSON object with its keys in the order they came, as
// Python's json.loads keeps them; pyrepr writes it as a dict.
type Object struct {
	keys []string
	vals map[string]any
}

// Keys implements pyrepr.Ordered.
func (o *Object) Keys() []string { return o.keys }

// Value implements pyrepr.Ordered.
func (o *Object) Value(k string) any { return o.vals[k] }

// Loads is Python's json.loads: objects as *Object, numbers as
// json.Number. Its error for a body that is no JSON at all is Python's
// ("Expecting value: line 1 column 1 (char 0)"), the text agno's tools
// show the model.
func Loads(data []byte) (any, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || !strings.ContainsRune(`{["-0123456789tfn`, rune(trimmed[0])) {
		pos := len(data) - len(trimmed)
		line := bytes.Count(data[:pos], []byte("\n")) + 1
		col := pos - bytes.LastIndexByte(data[:pos], '\n')
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Expecting value: line %d column %d (char %d)", line, col, pos)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := value(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		//lint:ignore ST1005 agno's error text, which the model sees as it is
		return nil, fmt.Errorf("Extra data after the JSON value")
	}
	return v, nil
}

func value(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &Object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := value(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := value(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
