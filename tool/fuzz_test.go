package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	`{"param1":"None","param2":"True","param3":"False","param4":"  test  "}`,
	`{"code":"\n  return value\n","space":" "}`,
	`{"param1":"\n\n","param2":"  \t  ","param3":"\n \n"}`,
	`{"param1":"  None  ","param2":" true ","param3":"  FALSE  "}`,
	`{"code": "x = True; y = False; z = None;"}`,
	`{'a': None, 'b': True, 'c': 'it\'s'}`,
	`{'n': 0x1F, 'f': 1e-5, 't': (1,), 's': {1, 2}, 'r': r'\d', "u": u'\u00e9'}`,
	`[1, 2]`,
	`{"a": 1`,
	``,
}

func fuzzFunction(t testing.TB) *Function {
	f, err := NewRaw("fuzz", "", json.RawMessage(`{"type":"object","properties":{
		"param1":{"type":["boolean","null"]},"param4":{"type":"string"},"code":{"type":"string"}}}`),
		func(context.Context, map[string]any) (Result, error) { return Result{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// FuzzDecodeArguments: any text a model sends decodes without panicking;
// a success is an object that re-marshals, with a JSON Normalized form; a
// failure is one of agno's two error texts.
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	fn := fuzzFunction(f)
	f.Fuzz(func(t *testing.T, raw string) {
		got := fn.DecodeArguments(raw)
		if got.Error != "" {
			if got.Values != nil {
				t.Fatalf("error %q with values %v", got.Error, got.Values)
			}
			if got.Error != argsNotObjectError && !(strings.HasPrefix(got.Error, "Error while decoding function arguments: ") &&
				strings.HasSuffix(got.Error, "\n\nPlease make sure we can json.loads() the arguments and retry.")) {
				t.Fatalf("unexpected error text %q", got.Error)
			}
			return
		}
		if got.Values == nil {
			t.Fatal("no error and no values")
		}
		b, err := json.Marshal(got.Values)
		if err != nil {
			t.Fatalf("values do not re-marshal: %v (%#v)", err, got.Values)
		}
		if !json.Valid(b) || !json.Valid([]byte(got.Normalized)) {
			t.Fatalf("invalid JSON: values %s, normalized %q", b, got.Normalized)
		}
		// The normalized text decodes to the same object before the
		// sentinel conversion, so replaying it is faithful.
		var back map[string]any
		if err := decodeStrict(got.Normalized, new(any)); err != nil {
			t.Fatalf("normalized %q does not decode: %v", got.Normalized, err)
		}
		if err := json.Unmarshal([]byte(got.Normalized), &back); err != nil {
			t.Fatalf("normalized %q is not an object: %v", got.Normalized, err)
		}
		if len(back) != len(got.Values) {
			t.Fatalf("normalized %q has %d keys, values %d", got.Normalized, len(back), len(got.Values))
		}
		if s, ok := got.Values["param4"].(string); ok {
			if orig, _ := back["param4"].(string); orig != s {
				t.Fatalf("string param changed: %q -> %q", orig, s)
			}
		}
	})
}

// FuzzParsePythonLiteral: the fallback parser never panics, and what it
// accepts marshals to JSON that decodes again.
func FuzzParsePythonLiteral(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Add(`'''tri'ple''' "b" r'\q' '\101\x41\u0041\U00000041'`)
	f.Add(`{1: -0.0, 2: 01.5, 3: 1_0, True: [(), (1), (1,)]}`)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePythonLiteral(s)
		if err != nil {
			return
		}
		b, err := marshalNoEscape(v)
		if err != nil {
			t.Fatalf("parsed %q to %#v, which does not marshal: %v", s, v, err)
		}
		var back any
		if err := decodeStrict(string(b), &back); err != nil {
			t.Fatalf("marshaled %s does not decode: %v", b, err)
		}
	})
}
