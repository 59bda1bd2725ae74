package tool

import (
	"strings"
	"testing"
)

// TestParsePythonLiteral checks values against what Python's
// json.dumps(ast.literal_eval(text)) prints (compact separators).
func TestParsePythonLiteral(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{'a': None, 'b': True, 'c': False}`, `{"a":null,"b":true,"c":false}`},
		{`{"k": 'v', 'n': 1, 'f': 1.0, 'e': 1e5, 'neg': -3, 'pos': +4}`, `{"k":"v","n":1,"f":1.0,"e":100000.0,"neg":-3,"pos":4}`},
		{`{'big': 123456789012345678901234567890}`, `{"big":123456789012345678901234567890}`},
		{`{'hex': 0xFF, 'oct': 0o17, 'bin': 0b101, 'under': 1_000_000}`, `{"hex":255,"oct":15,"bin":5,"under":1000000}`},
		{`{'small': 1e-05, 'tiny': 0.0001, 'huge': 1e16, 'x': 123.456, 'z': -0.0, 'zi': -0}`, `{"small":1e-05,"tiny":0.0001,"huge":1e+16,"x":123.456,"z":-0.0,"zi":0}`},
		{`{'dot': .5, 'trail': 5., 'lead': 01.5, 'spaced': - 1}`, `{"dot":0.5,"trail":5.0,"lead":1.5,"spaced":-1}`},
		{`{'esc': 'a\nb\tc\\d\'e\"f'}`, `{"esc":"a\nb\tc\\d'e\"f"}`},
		{`{'oct': '\0\101\7', 'x': '\x41', 'u': '\u00e9', 'U': '\U0001F600'}`, `{"oct":"\u0000A\u0007","x":"A","u":"é","U":"😀"}`},
		{`{'unknown': '\q\d'}`, `{"unknown":"\\q\\d"}`},
		{`{'raw': r'C:\new\t', 'rq': r'it\'s'}`, `{"raw":"C:\\new\\t","rq":"it\\'s"}`},
		{`{'u': u'text', 'cat': 'ab' "cd" u'ef'}`, `{"u":"text","cat":"abcdef"}`},
		{"{'triple': '''line1\nline2 'quoted' ''', \"t2\": \"\"\"a\"b\"\"\"}", `{"triple":"line1\nline2 'quoted' ","t2":"a\"b"}`},
		{"{'cont': 'a\\\nb'}", `{"cont":"ab"}`},
		{`{'list': [1, 'two', None], 'tuple': (1, 2), 'one': (1,), 'paren': (1), 'empty': (), 'set': {1, 2}}`, `{"list":[1,"two",null],"tuple":[1,2],"one":[1],"paren":1,"empty":[],"set":[1,2]}`},
		{`{1: 'int key', 2.5: 'float key', None: 'none key'}`, `{"1":"int key","2.5":"float key","null":"none key"}`},
		{`{True: 'yes', False: 'no'}`, `{"true":"yes","false":"no"}`},
		{"{\n  'a': 1,  # a comment\n  'b': 2,\n}", `{"a":1,"b":2}`},
		{`{'dup': 1, 'dup': 2}`, `{"dup":2}`},
		{`{'nested': {'deep': [{'x': (None,)}]}}`, `{"nested":{"deep":[{"x":[null]}]}}`},
		{`  {'pad': 'ded'}  `, `{"pad":"ded"}`},
		{`{'s': '<&>'}`, `{"s":"<&>"}`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`'top'`, `"top"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := parsePythonLiteral(tt.in)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			b, err := marshalNoEscape(v)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestParsePythonLiteralErrors(t *testing.T) {
	tests := []struct{ in, reason string }{
		{``, "unexpected end"},
		{`{'a': 1`, "unterminated dict"},
		{`{'a' 1}`, "expected ',' or '}'"}, // a set literal missing its comma
		{`{'a': 1, 'b' 2}`, "expected ':'"},
		{`{'a': 1 'b': 2}`, "expected ',' or '}'"},
		{`{'a': true}`, `name "true" is not a literal`},
		{`{'a': null}`, `name "null" is not a literal`},
		{`{'a': Nonesuch}`, `name "Nonesuch" is not a literal`},
		{`{'a': 'open}`, "unterminated string"},
		{"{'a': 'line\nbreak'}", "newline in string"},
		{`{'a': 017}`, "bad number"},
		{`{'a': 1__0}`, "bad number"},
		{`{'a': 1e999}`, "bad number"},
		{`{'a': 1j}`, "bad number"},
		{`{'a': 1.2.3}`, "bad number"},
		{`{'a': 0xZZ}`, "bad number"},
		{`{'a': -'x'}`, "a sign must be followed by a number"},
		{`{'a': --1}`, "a sign must be followed by a number"},
		{`{'a': '\x4'}`, `bad \x escape`},
		{`{'a': '\u12'}`, `bad \u escape`},
		{`{'a': '\u1`, `truncated \u escape`},
		{`{'a': b'bytes'}`, `name "b" is not a literal`},
		{`{['a']: 1}`, "unsupported dict key"},
		{`{'a': 1} extra`, "unexpected text after the value"},
		{`{'a': @}`, "unexpected character '@'"},
		{strings.Repeat("[", 300), "nesting too deep"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := parsePythonLiteral(tt.in)
			if err == nil {
				t.Fatalf("parsed to %#v, want an error containing %q", v, tt.reason)
			}
			if !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("error %q does not contain %q", err, tt.reason)
			}
		})
	}
}
