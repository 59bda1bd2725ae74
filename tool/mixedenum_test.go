package tool_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/tool"
)

// A7 at the top level: agno's get_json_schema unwraps Optional[X] for a
// tool parameter before building X's schema, so Optional[Literal[1, "a"]]
// is {"enum":[1,"a"]} — no anyOf, no "type" (none fits a mixed enum) —
// and the parameter is not required.
func TestA7OptionalMixedEnumParameter(t *testing.T) {
	type args struct {
		Name string     `json:"name"`
		Mode *mixedMode `json:"mode"`
	}
	if got := string(property(t, schemaFor[args](t), "mode")); got != `{"enum":[1,"a"]}` {
		t.Fatalf("mode schema = %s", got)
	}
	var got args
	f := tool.Must(tool.New("configure", "", func(_ context.Context, a args) (string, error) {
		got = a
		return "ok", nil
	}))
	want := `{"type":"object","properties":{"name":{"type":"string"},"mode":{"enum":[1,"a"]}},"required":["name"]}`
	if string(f.Parameters) != want {
		t.Fatalf("parameters\n got  %s\n want %s", f.Parameters, want)
	}
	// Both members of the enum decode, and leaving it out is allowed.
	for _, tc := range []struct {
		args string
		want any
	}{{`{"name":"x","mode":1}`, float64(1)}, {`{"name":"x","mode":"a"}`, "a"}, {`{"name":"x"}`, nil}} {
		got = args{}
		if _, err := f.Invoke(context.Background(), nil, f.DecodeArguments(tc.args).Values); err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		var mode any
		if got.Mode != nil {
			mode = got.Mode.v
		}
		if mode != tc.want {
			t.Fatalf("%s: mode = %#v, want %#v", tc.args, mode, tc.want)
		}
	}
}
