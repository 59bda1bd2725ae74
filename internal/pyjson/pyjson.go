// Package pyjson writes JSON exactly as Python's json.dumps does with its
// defaults: ", " and ": " separators, ensure_ascii (non-ASCII as \uXXXX,
// astral characters as surrogate pairs, lower-case hex), no HTML escaping,
// and floats in Python's repr form (1.0 stays 1.0). Hashes and texts that
// agno computes with json.dumps are reproduced byte for byte.
package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Options mirror json.dumps keyword arguments.
type Options struct {
	SortKeys bool
	// Indent > 0 pretty-prints with that many spaces and "," separators
	// at line ends, as json.dumps(indent=n) does.
	Indent int
	// EnsureASCII defaults to true in Python; set NoEnsureASCII to emit
	// UTF-8 (ensure_ascii=False).
	NoEnsureASCII bool
}

// Dumps is json.dumps(v) with Python's defaults.
func Dumps(v any) (string, error) { return DumpsOpts(v, Options{}) }

// DumpsOpts is json.dumps(v, **opts).
func DumpsOpts(v any, o Options) (string, error) {
	w := &writer{o: o}
	if err := w.value(normalize(v), 0); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

// normalize turns arbitrary Go values into nil, bool, string,
// json.Number, float64, []any, map[string]any or *Object.
func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, json.Number, float64, map[string]any, []any, *Object:
		return x
	case float32:
		return float64(x)
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case fmt.Stringer:
		if reflect.TypeOf(v).Kind() != reflect.Struct && reflect.TypeOf(v).Kind() != reflect.Pointer {
			return x.String()
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v) // Python's default=str
	}
	out, err := decodeOrdered(raw)
	if err != nil {
		return fmt.Sprint(v)
	}
	return out
}

func decodeOrdered(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return readValue(dec)
}

type writer struct {
	b bytes.Buffer
	o Options
}

func (w *writer) newline(depth int) {
	if w.o.Indent > 0 {
		w.b.WriteByte('\n')
		w.b.WriteString(strings.Repeat(" ", w.o.Indent*depth))
	}
}

func (w *writer) sep() string {
	if w.o.Indent > 0 {
		return ","
	}
	return ", "
}

func (w *writer) value(v any, depth int) error {
	switch x := v.(type) {
	case nil:
		w.b.WriteString("null")
	case bool:
		if x {
			w.b.WriteString("true")
		} else {
			w.b.WriteString("false")
		}
	case string:
		w.str(x)
	case json.Number:
		w.b.WriteString(pyNumber(string(x)))
	case float64:
		s, err := FloatRepr(x)
		if err != nil {
			return err
		}
		w.b.WriteString(s)
	case []any:
		if len(x) == 0 {
			w.b.WriteString("[]")
			return nil
		}
		w.b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.b.WriteString(w.sep())
			}
			w.newline(depth + 1)
			if err := w.value(normalize(e), depth+1); err != nil {
				return err
			}
		}
		w.newline(depth)
		w.b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // Go maps have no insertion order; sorted is the stable choice
		return w.object(keys, func(k string) any { return x[k] }, depth)
	case *Object:
		keys := x.keys
		if w.o.SortKeys {
			keys = append([]string(nil), keys...)
			sort.Strings(keys)
		}
		return w.object(keys, func(k string) any { return x.vals[k] }, depth)
	default:
		return w.value(normalize(x), depth)
	}
	return nil
}

func (w *writer) object(keys []string, get func(string) any, depth int) error {
	if len(keys) == 0 {
		w.b.WriteString("{}")
		return nil
	}
	w.b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			w.b.WriteString(w.sep())
		}
		w.newline(depth + 1)
		w.str(k)
		w.b.WriteString(": ")
		if err := w.value(normalize(get(k)), depth+1); err != nil {
			return err
		}
	}
	w.newline(depth)
	w.b.WriteByte('}')
	return nil
}

// pyNumber renders a JSON number literal as Python would after loading
// it: integers as is, floats in repr form.
func pyNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	r, err := FloatRepr(f)
	if err != nil {
		return s
	}
	return r
}

// FloatRepr is Python's repr(float) as json.dumps writes it.
func FloatRepr(f float64) (string, error) {
	switch {
	case math.IsNaN(f):
		return "NaN", nil
	case math.IsInf(f, 1):
		return "Infinity", nil
	case math.IsInf(f, -1):
		return "-Infinity", nil
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, "e.") {
		// Python switches to exponent form at 1e16.
		if math.Abs(f) >= 1e16 {
			s = strconv.FormatFloat(f, 'e', -1, 64)
		} else {
			return s + ".0", nil
		}
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		sign := "+"
		if exp[0] == '-' || exp[0] == '+' {
			if exp[0] == '-' {
				sign = "-"
			}
			exp = exp[1:]
		}
		exp = strings.TrimLeft(exp, "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		// Python uses exponent form below 1e-4 and at 1e16 and above;
		// Go's 'g' uses it from 1e21 and below 1e-4.
		n, _ := strconv.Atoi(exp)
		if sign == "+" && n < 16 {
			return strconv.FormatFloat(f, 'f', -1, 64) + dotZero(strconv.FormatFloat(f, 'f', -1, 64)), nil
		}
		return mant + "e" + sign + exp, nil
	}
	return s, nil
}

func dotZero(s string) string {
	if strings.Contains(s, ".") {
		return ""
	}
	return ".0"
}

func (w *writer) str(s string) {
	w.b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch r {
		case '"':
			w.b.WriteString(`\"`)
		case '\\':
			w.b.WriteString(`\\`)
		case '\n':
			w.b.WriteString(`\n`)
		case '\r':
			w.b.WriteString(`\r`)
		case '\t':
			w.b.WriteString(`\t`)
		case '\b':
			w.b.WriteString(`\b`)
		case '\f':
			w.b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(&w.b, `\u%04x`, r)
			case r < 0x7f || (w.o.NoEnsureASCII && r != utf8.RuneError):
				w.b.WriteRune(r)
			case r == 0x7f:
				if w.o.NoEnsureASCII {
					w.b.WriteRune(r)
				} else {
					w.b.WriteString(`\u007f`)
				}
			case r > 0xffff:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&w.b, `\u%04x\u%04x`, r1, r2)
			default:
				fmt.Fprintf(&w.b, `\u%04x`, r)
			}
		}
	}
	w.b.WriteByte('"')
}
