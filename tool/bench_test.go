package tool_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/agno-go/agno/tool"
)

const benchJSONArgs = `{"path":"/src/main.go","old_string":"\tif err != nil {\n\t\treturn err\n\t}\n","new_string":"\tif err != nil {\n\t\treturn fmt.Errorf(\"read: %w\", err)\n\t}\n","replace_all":"false","count":"None"}`

const benchPyArgs = `{'path': '/src/main.go', 'old_string': '\tif err != nil:\n', 'new_string': '\tif err:\n', 'replace_all': False, 'count': None}`

func benchEditTool(b *testing.B) *tool.Function {
	f, err := tool.New("edit_file", "", func(_ context.Context, a editArgs) (string, error) { return a.Path, nil })
	if err != nil {
		b.Fatal(err)
	}
	return f
}

func BenchmarkDecodeArgumentsJSON(b *testing.B) {
	f := benchEditTool(b)
	b.ReportAllocs()
	for b.Loop() {
		if a := f.DecodeArguments(benchJSONArgs); a.Error != "" {
			b.Fatal(a.Error)
		}
	}
}

func BenchmarkDecodeArgumentsPythonLiteral(b *testing.B) {
	f := benchEditTool(b)
	b.ReportAllocs()
	for b.Loop() {
		if a := f.DecodeArguments(benchPyArgs); a.Error != "" {
			b.Fatal(a.Error)
		}
	}
}

func BenchmarkDecodeAndInvokeTyped(b *testing.B) {
	f := benchEditTool(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a := f.DecodeArguments(benchJSONArgs)
		if _, err := f.Invoke(ctx, nil, a.Values); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParametersSchema(b *testing.B) {
	type args struct {
		Cfg  a7Config          `json:"cfg"`
		C    a7Collapse        `json:"c"`
		Tags []string          `json:"tags" enum:"a,b,c"`
		Meta map[string]any    `json:"meta"`
		Opts *map[string][]int `json:"opts"`
	}
	t := reflect.TypeFor[args]()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tool.ParametersSchema("bench", t); err != nil {
			b.Fatal(err)
		}
	}
}
