package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode"
)

// Error texts agno returns to the model so it can retry.
const (
	argsDecodeErrorFmt = "Error while decoding function arguments: %s\n\nPlease make sure we can json.loads() the arguments and retry."
	argsNotObjectError = "Function arguments are not a valid JSON object.\n\n Please fix and retry."
)

// Arguments is a model's tool-call arguments after decoding.
type Arguments struct {
	// Values are the decoded arguments; numbers are json.Number.
	Values map[string]any
	// Normalized is the arguments text to store and replay to the
	// provider: the model's own text when it was JSON, or the JSON form of
	// a Python-literal fallback (agno #10231).
	Normalized string
	// Error is agno's error text when the arguments could not be decoded;
	// it becomes the tool result and the call is not run.
	Error string
	// Exact reports that Values are exactly the JSON of Normalized (no
	// Python-literal fallback, no sentinel conversion), so a typed tool may
	// decode Normalized directly.
	Exact bool
}

// DecodeArguments decodes a model's arguments text for f (agno v2.6.13,
// get_function_call): JSON, else a Python literal (single quotes,
// None/True/False); not an object is an error. A top-level string whose
// trimmed lower-case form is none/null/true/false becomes null/true/false —
// unless the parameter's schema declares a string, where the text is kept
// (agno converts regardless and breaks a string parameter whose value is
// "true"). Every other string is kept byte for byte.
func (f *Function) DecodeArguments(raw string) Arguments {
	if raw == "" {
		return Arguments{Values: map[string]any{}, Normalized: "{}"}
	}
	var v any
	normalized := raw
	if err := decodeStrict(raw, &v); err != nil {
		pv, perr := parsePythonLiteral(raw)
		if perr != nil {
			return Arguments{Normalized: raw, Error: sprintf(argsDecodeErrorFmt, err.Error())}
		}
		if b, err := marshalNoEscape(pv); err == nil {
			normalized = string(b)
		}
		v = plain(pv)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Arguments{Normalized: normalized, Error: argsNotObjectError}
	}
	strParams := f.stringParams
	if !f.prepared {
		// A hand-built function not yet validated: read the schema
		// without touching f.
		strParams = map[string]bool{}
		if root, props, err := parseParameters(f.Parameters); err == nil {
			strParams = stringParams(root, props)
		}
	}
	converted := false
	for k, val := range obj {
		s, isStr := val.(string)
		if !isStr || strParams[k] {
			continue
		}
		switch strings.ToLower(pyStrip(s)) {
		case "none", "null":
			obj[k], converted = nil, true
		case "true":
			obj[k], converted = true, true
		case "false":
			obj[k], converted = false, true
		}
	}
	return Arguments{Values: obj, Normalized: normalized, Exact: !converted && normalized == raw}
}

// decodeStrict decodes one JSON value with exact numbers and nothing after
// it.
func decodeStrict(s string, v *any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errExtraData
	}
	return nil
}

type argError string

func (e argError) Error() string { return string(e) }

const errExtraData = argError("Extra data after the JSON value")

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// pyStrip trims what Python's str.strip() trims: Unicode whitespace and
// the separators \x1c-\x1f, which Go's unicode.IsSpace leaves.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}
