package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/tool"
)

// Error texts agno v2.6.13 hands the model (utils/functions.py).
const (
	decodeErrPrefix = "Error while decoding function arguments: "
	decodeErrSuffix = "\n\nPlease make sure we can json.loads() the arguments and retry."
	notObjectErr    = "Function arguments are not a valid JSON object.\n\n Please fix and retry."
)

// sentinelTool has nullable/boolean parameters (where agno's none/null/
// true/false conversion applies) and string parameters (where we keep the
// text).
func sentinelTool(t *testing.T) *tool.Function {
	t.Helper()
	f, err := tool.NewRaw("probe", "A4 probe", json.RawMessage(`{
		"type": "object",
		"properties": {
			"param1": {"type": ["boolean", "null"]},
			"param2": {"type": ["boolean", "null"]},
			"param3": {"type": ["boolean", "null"]},
			"param4": {"type": "string"},
			"code":   {"type": "string"},
			"space":  {"type": "string"},
			"anything": {}
		}
	}`), func(context.Context, map[string]any) (tool.Result, error) { return tool.Text("ok"), nil })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// stringTool declares every A4 parameter a string.
func stringTool(t *testing.T) *tool.Function {
	t.Helper()
	f, err := tool.NewRaw("strings", "", json.RawMessage(`{"type":"object","properties":{
		"param1":{"type":"string"},"param2":{"type":"string"},"param3":{"type":"string"}}}`),
		func(context.Context, map[string]any) (tool.Result, error) { return tool.Result{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDecodeArgumentsA4(t *testing.T) {
	tests := []struct {
		name string
		tool func(*testing.T) *tool.Function
		raw  string
		want map[string]any
	}{
		{
			name: "1 sentinels convert on nullable/boolean params, other strings kept",
			tool: sentinelTool,
			raw:  `{"param1":"None","param2":"True","param3":"False","param4":"  test  "}`,
			want: map[string]any{"param1": nil, "param2": true, "param3": false, "param4": "  test  "},
		},
		{
			name: "2 code and a lone space unchanged",
			tool: sentinelTool,
			raw:  `{"code":"\n  return value\n","space":" "}`,
			want: map[string]any{"code": "\n  return value\n", "space": " "},
		},
		{
			name: "3 whitespace-only strings unchanged, no error",
			tool: stringTool,
			raw:  `{"param1":"\n\n","param2":"  \t  ","param3":"\n \n"}`,
			want: map[string]any{"param1": "\n\n", "param2": "  \t  ", "param3": "\n \n"},
		},
		{
			name: "3 whitespace-only strings unchanged on non-string params too",
			tool: sentinelTool,
			raw:  `{"param1":"\n\n","param2":"  \t  ","param3":"\n \n"}`,
			want: map[string]any{"param1": "\n\n", "param2": "  \t  ", "param3": "\n \n"},
		},
		{
			name: "4 padded and mixed-case sentinels convert",
			tool: sentinelTool,
			raw:  `{"param1":"  None  ","param2":" true ","param3":"  FALSE  "}`,
			want: map[string]any{"param1": nil, "param2": true, "param3": false},
		},
		{
			name: "5 code mentioning True/False/None stays a string",
			tool: sentinelTool,
			raw:  `{"code": "x = True; y = False; z = None;"}`,
			want: map[string]any{"code": "x = True; y = False; z = None;"},
		},
		{
			name: "5 same text on an untyped parameter stays a string",
			tool: sentinelTool,
			raw:  `{"anything": "x = True; y = False; z = None;"}`,
			want: map[string]any{"anything": "x = True; y = False; z = None;"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.tool(t).DecodeArguments(tt.raw)
			if got.Error != "" {
				t.Fatalf("Error = %q, want none", got.Error)
			}
			if diff := cmp.Diff(tt.want, got.Values); diff != "" {
				t.Errorf("Values (-want +got):\n%s", diff)
			}
			if got.Normalized != tt.raw {
				t.Errorf("Normalized = %q, want the model's JSON %q", got.Normalized, tt.raw)
			}
		})
	}
}

func TestDecodeArgumentsSchemaAware(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want map[string]any
	}{
		// agno would turn these into booleans/None and break the tool.
		{"string param keeps true", `{"param4":"true"}`, map[string]any{"param4": "true"}},
		{"string param keeps padded NULL", `{"param4":" NULL "}`, map[string]any{"param4": " NULL "}},
		{"string param keeps None", `{"code":"None"}`, map[string]any{"code": "None"}},
		// Where the schema says nothing, agno's rule applies.
		{"untyped param converts", `{"anything":"null"}`, map[string]any{"anything": nil}},
		{"undeclared param converts", `{"extra":"False"}`, map[string]any{"extra": false}},
		// Python's str.strip() also trims \x1c-\x1f and Unicode spaces.
		{"python strip separators", "{\"param1\":\"\\u001c true \\u001f\"}", map[string]any{"param1": true}},
		{"python strip nbsp", "{\"param1\":\"\\u00a0none\\u2003\"}", map[string]any{"param1": nil}},
		{"zero-width space is not whitespace", "{\"param1\":\"\\u200btrue\"}", map[string]any{"param1": "\u200btrue"}},
		// Only top-level strings convert.
		{"nested untouched", `{"anything":{"x":"true","y":[" none "]}}`, map[string]any{"anything": map[string]any{"x": "true", "y": []any{" none "}}}},
		{"non-strings untouched", `{"param1":true,"anything":0}`, map[string]any{"param1": true, "anything": json.Number("0")}},
		{"numbers exact", `{"anything":12345678901234567890}`, map[string]any{"anything": json.Number("12345678901234567890")}},
	}
	f := sentinelTool(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := f.DecodeArguments(tt.raw)
			if got.Error != "" {
				t.Fatalf("Error = %q", got.Error)
			}
			if diff := cmp.Diff(tt.want, got.Values); diff != "" {
				t.Errorf("Values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeArgumentsRefAndUnionSchemas(t *testing.T) {
	// The shapes MCP servers built on pydantic emit: enums behind $ref,
	// Optional[str] as anyOf.
	f, err := tool.NewRaw("mcp_tool", "", json.RawMessage(`{
		"type": "object",
		"properties": {
			"mode":  {"$ref": "#/$defs/Mode"},
			"flag":  {"$ref": "#/definitions/Flag"},
			"label": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
			"count": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
			"word":  {"enum": ["true", "false", "maybe"]},
			"fixed": {"const": "null"}
		},
		"$defs": {"Mode": {"type": "string", "enum": ["true", "false"]}},
		"definitions": {"Flag": {"type": "boolean"}}
	}`), func(context.Context, map[string]any) (tool.Result, error) { return tool.Result{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	got := f.DecodeArguments(`{"mode":"true","flag":"true","label":"None","count":"None","word":"false","fixed":"null"}`)
	want := map[string]any{"mode": "true", "flag": true, "label": "None", "count": nil, "word": "false", "fixed": "null"}
	if diff := cmp.Diff(want, got.Values); diff != "" {
		t.Errorf("Values (-want +got):\n%s", diff)
	}
}

func TestDecodeArgumentsUnvalidatedFunction(t *testing.T) {
	// A hand-built function the agent has not validated yet still reads
	// its schema, without being modified.
	f := &tool.Function{
		Name:       "hand",
		Parameters: json.RawMessage(`{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"}}}`),
	}
	got := f.DecodeArguments(`{"s":"true","b":"true"}`)
	if diff := cmp.Diff(map[string]any{"s": "true", "b": true}, got.Values); diff != "" {
		t.Errorf("Values (-want +got):\n%s", diff)
	}
	if f.RequiresUserInput || string(f.Parameters) != `{"type":"object","properties":{"s":{"type":"string"},"b":{"type":"boolean"}}}` {
		t.Errorf("DecodeArguments modified the function: %+v", f)
	}
}

func TestDecodeArgumentsErrors(t *testing.T) {
	f := sentinelTool(t)
	decodeErrs := []string{
		`{"a": 1`,
		`{"a": }`,
		`{"a": 1} {"b": 2}`,
		`{'a': nope}`,
		`   `,
		`{"a": NaN}`,
	}
	for _, raw := range decodeErrs {
		t.Run("decode/"+raw, func(t *testing.T) {
			got := f.DecodeArguments(raw)
			if !strings.HasPrefix(got.Error, decodeErrPrefix) || !strings.HasSuffix(got.Error, decodeErrSuffix) {
				t.Fatalf("Error = %q, want agno's decode error text", got.Error)
			}
			if msg := strings.TrimSuffix(strings.TrimPrefix(got.Error, decodeErrPrefix), decodeErrSuffix); msg == "" {
				t.Errorf("decode error carries no reason: %q", got.Error)
			}
			if got.Values != nil {
				t.Errorf("Values = %v, want nil on error", got.Values)
			}
			if got.Normalized != raw {
				t.Errorf("Normalized = %q, want the raw text %q", got.Normalized, raw)
			}
		})
	}
	notObjects := []string{`[1, 2]`, `"text"`, `42`, `null`, `true`, `['a', None]`, `('x',)`}
	for _, raw := range notObjects {
		t.Run("not-object/"+raw, func(t *testing.T) {
			got := f.DecodeArguments(raw)
			if got.Error != notObjectErr {
				t.Fatalf("Error = %q, want %q", got.Error, notObjectErr)
			}
			if got.Values != nil {
				t.Errorf("Values = %v, want nil", got.Values)
			}
		})
	}
}

func TestDecodeArgumentsEmpty(t *testing.T) {
	got := sentinelTool(t).DecodeArguments("")
	if got.Error != "" {
		t.Fatalf("Error = %q", got.Error)
	}
	if got.Values == nil || len(got.Values) != 0 {
		t.Errorf("Values = %#v, want an empty non-nil object", got.Values)
	}
	if got.Normalized != "{}" {
		t.Errorf("Normalized = %q, want {}", got.Normalized)
	}
}

func TestDecodeArgumentsPythonLiteral(t *testing.T) {
	tests := []struct {
		raw        string
		want       map[string]any
		normalized string
	}{
		{
			raw:        `{'a': None, 'b': True, 'c': 'it\'s'}`,
			want:       map[string]any{"a": nil, "b": true, "c": "it's"},
			normalized: `{"a":null,"b":true,"c":"it's"}`,
		},
		{
			// Key order is the model's, as json.dumps would keep it.
			raw:        `{'z': 1, 'a': [1.5, (2, 3)], "m": {'k': 'v'},}`,
			want:       map[string]any{"z": json.Number("1"), "a": []any{json.Number("1.5"), []any{json.Number("2"), json.Number("3")}}, "m": map[string]any{"k": "v"}},
			normalized: `{"z":1,"a":[1.5,[2,3]],"m":{"k":"v"}}`,
		},
		{
			// Sentinels still apply to non-string params, and <>& are not
			// HTML-escaped in the replayed text.
			raw:        `{'param1': 'none', 'param4': 'a<b>&c', 'code': "\tx\n"}`,
			want:       map[string]any{"param1": nil, "param4": "a<b>&c", "code": "\tx\n"},
			normalized: `{"param1":"none","param4":"a<b>&c","code":"\tx\n"}`,
		},
		{
			// JSON refuses a raw control character in a string; Python's
			// literal_eval takes it, and so do we.
			raw:        "{\"a\": \"\x01\"}",
			want:       map[string]any{"a": "\x01"},
			normalized: `{"a":"\u0001"}`,
		},
	}
	f := sentinelTool(t)
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got := f.DecodeArguments(tt.raw)
			if got.Error != "" {
				t.Fatalf("Error = %q", got.Error)
			}
			if diff := cmp.Diff(tt.want, got.Values); diff != "" {
				t.Errorf("Values (-want +got):\n%s", diff)
			}
			if got.Normalized != tt.normalized {
				t.Errorf("Normalized = %s, want %s", got.Normalized, tt.normalized)
			}
			if !json.Valid([]byte(got.Normalized)) {
				t.Errorf("Normalized is not JSON: %s", got.Normalized)
			}
		})
	}
}

type editArgs struct {
	Path      string `json:"path"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
	Code      string `json:"code"`
	Space     string `json:"space"`
	Literal   string `json:"literal"`
	Replace   *bool  `json:"replace_all"`
	Count     *int   `json:"count"`
}

// TestWhitespaceReachesTypedHandler runs the model's text through decoding
// and Invoke into a typed Go handler: every string arrives byte for byte.
func TestWhitespaceReachesTypedHandler(t *testing.T) {
	var got editArgs
	f, err := tool.New("edit_file", "Replace text in a file.", func(_ context.Context, a editArgs) (string, error) {
		got = a
		return "edited", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := `{"path":"  /tmp/a b.py ","old_string":"\n\n","new_string":"  \t  ","code":"def f():\n    if x:\n\treturn 1\n","space":" ","literal":"true","replace_all":" TRUE ","count":"None"}`
	args := f.DecodeArguments(raw)
	if args.Error != "" {
		t.Fatal(args.Error)
	}
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f, ToolCallID: "call_1"}, args.Values)
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "edited" {
		t.Errorf("Content = %q", res.Content)
	}
	yes := true
	want := editArgs{
		Path:      "  /tmp/a b.py ",
		OldString: "\n\n",
		NewString: "  \t  ",
		Code:      "def f():\n    if x:\n\treturn 1\n",
		Space:     " ",
		Literal:   "true",
		Replace:   &yes,
		Count:     nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("handler args (-want +got):\n%s", diff)
	}
}

func TestTypedHandlerRejectsWrongTypes(t *testing.T) {
	f := tool.Must(tool.New("count", "", func(_ context.Context, a struct {
		N int `json:"n"`
	}) (int, error) {
		return a.N * 2, nil
	}))
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, f.DecodeArguments(`{"n": 21}`).Values)
	if err != nil || res.Content != "42" {
		t.Fatalf("Invoke = %q, %v; want 42", res.Content, err)
	}
	// A wrong type fails the schema check, which names the tool.
	_, err = f.Invoke(context.Background(), &tool.Call{Function: f}, f.DecodeArguments(`{"n": "many"}`).Values)
	var ve *tool.ValidationError
	if !errors.As(err, &ve) || !strings.HasPrefix(err.Error(), "1 validation error for count\n") {
		t.Fatalf("err = %v, want a validation error naming the tool", err)
	}
	// What the schema cannot say (an int's range) still fails decoding.
	_, err = f.Invoke(context.Background(), &tool.Call{Function: f}, f.DecodeArguments(`{"n": 100000000000000000000000}`).Values)
	if err == nil || !strings.Contains(err.Error(), "invalid arguments for count") {
		t.Fatalf("err = %v, want an invalid-arguments error naming the tool", err)
	}
}

func TestArgumentsExact(t *testing.T) {
	f := tool.Must(tool.New("t", "d", func(_ context.Context, a struct {
		S string `json:"s,omitempty"`
		B *bool  `json:"b,omitempty"`
	}) (string, error) {
		return a.S, nil
	}))
	cases := []struct {
		raw   string
		exact bool
	}{
		{`{"s":"  x  "}`, true},
		{`{"s":"true"}`, true},  // a string parameter keeps "true"
		{`{"b":"true"}`, false}, // converted to a boolean
		{`{'s': 'py'}`, false},  // Python-literal fallback
		{``, false},             // empty arguments
	}
	for _, c := range cases {
		a := f.DecodeArguments(c.raw)
		if a.Exact != c.exact {
			t.Errorf("%q: Exact=%v, want %v", c.raw, a.Exact, c.exact)
		}
		res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, a)
		if err != nil {
			t.Fatalf("%q: %v", c.raw, err)
		}
		if c.raw == `{"s":"  x  "}` && res.Content != "  x  " {
			t.Errorf("fast path changed the string: %q", res.Content)
		}
	}
}
