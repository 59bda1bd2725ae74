package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
)

type forecastConfig struct {
	Mode string   `json:"mode" enum:"fast,exact"`
	Days int      `json:"days"`
	Tags []string `json:"tags,omitempty"`
}

type forecastArgs struct {
	City   string          `json:"city" description:"City name"`
	Unit   string          `json:"unit" enum:"celsius,fahrenheit"`
	Days   int             `json:"days"`
	Ratio  float64         `json:"ratio,omitempty"`
	Alerts bool            `json:"alerts,omitempty"`
	Tags   []string        `json:"tags,omitempty"`
	Levels []int           `json:"levels,omitempty" enum:"1,2,3"`
	Config *forecastConfig `json:"config,omitempty"`
	Limit  *int            `json:"limit,omitempty"`
	Meta   map[string]any  `json:"meta,omitempty"`
}

// forecastTool echoes the arguments it receives as JSON and counts calls.
func forecastTool(t testing.TB, calls *int) *tool.Function {
	t.Helper()
	return tool.Must(tool.New("get_weather", "Get the weather.", func(_ context.Context, a forecastArgs) (forecastArgs, error) {
		*calls++
		return a, nil
	}))
}

// The expected texts are pydantic 2.13's str(ValidationError) for the same
// call of the Python equivalent (validate_call on
// get_weather(city: str, unit: Literal['celsius', 'fahrenheit'], days: int,
// ratio: float = 0.0, …, config: Optional[ForecastConfig] = None, …), the
// config a BaseModel with extra='forbid'), without the "For further
// information visit" lines.
func TestCheckArgumentsPydanticText(t *testing.T) {
	cases := []struct {
		name, args, want string
	}{
		{"enum", `{"city":"Paris","unit":"kelvin","days":3}`,
			"1 validation error for get_weather\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value='kelvin', input_type=str]"},
		{"enum wrong type", `{"city":"Paris","unit":5,"days":3}`,
			"1 validation error for get_weather\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value=5, input_type=int]"},
		{"required", `{"unit":"celsius","days":3}`,
			"1 validation error for get_weather\ncity\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs((), {'unit': 'celsius', 'days': 3}), input_type=ArgsKwargs]"},
		{"two required", `{"days":3}`,
			"2 validation errors for get_weather\ncity\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs((), {'days': 3}), input_type=ArgsKwargs]\nunit\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs((), {'days': 3}), input_type=ArgsKwargs]"},
		{"no arguments", ``,
			"3 validation errors for get_weather\ncity\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs(()), input_type=ArgsKwargs]\nunit\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs(()), input_type=ArgsKwargs]\ndays\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs(()), input_type=ArgsKwargs]"},
		{"errors in signature order", `{"unit":"kelvin","days":"x"}`,
			"3 validation errors for get_weather\ncity\n  Missing required argument [type=missing_argument, input_value=ArgsKwargs((), {'unit': 'kelvin', 'days': 'x'}), input_type=ArgsKwargs]\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value='kelvin', input_type=str]\ndays\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]"},
		{"int from text", `{"city":"Paris","unit":"celsius","days":"three"}`,
			"1 validation error for get_weather\ndays\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='three', input_type=str]"},
		{"int from fraction", `{"city":"Paris","unit":"celsius","days":3.5}`,
			"1 validation error for get_weather\ndays\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=3.5, input_type=float]"},
		{"int null", `{"city":"Paris","unit":"celsius","days":null}`,
			"1 validation error for get_weather\ndays\n  Input should be a valid integer [type=int_type, input_value=None, input_type=NoneType]"},
		{"int sentinel null", `{"city":"Paris","unit":"celsius","days":"None"}`,
			"1 validation error for get_weather\ndays\n  Input should be a valid integer [type=int_type, input_value=None, input_type=NoneType]"},
		{"int infinite", `{"city":"Paris","unit":"celsius","days":1e400}`,
			"1 validation error for get_weather\ndays\n  Input should be a finite number [type=finite_number, input_value=inf, input_type=float]"},
		{"string", `{"city":42,"unit":"celsius","days":3}`,
			"1 validation error for get_weather\ncity\n  Input should be a valid string [type=string_type, input_value=42, input_type=int]"},
		{"number and boolean", `{"city":"Paris","unit":"celsius","days":3,"ratio":"high","alerts":"maybe"}`,
			"2 validation errors for get_weather\nratio\n  Input should be a valid number, unable to parse string as a number [type=float_parsing, input_value='high', input_type=str]\nalerts\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='maybe', input_type=str]"},
		{"number and boolean types", `{"city":"Paris","unit":"celsius","days":3,"alerts":2,"ratio":[1.5]}`,
			"2 validation errors for get_weather\nratio\n  Input should be a valid number [type=float_type, input_value=[1.5], input_type=list]\nalerts\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=2, input_type=int]"},
		{"list", `{"city":"Paris","unit":"celsius","days":3,"tags":"rain"}`,
			"1 validation error for get_weather\ntags\n  Input should be a valid list [type=list_type, input_value='rain', input_type=str]"},
		{"items", `{"city":"Paris","unit":"celsius","days":3,"tags":["rain",7],"levels":[1,4]}`,
			"2 validation errors for get_weather\ntags.1\n  Input should be a valid string [type=string_type, input_value=7, input_type=int]\nlevels.1\n  Input should be 1, 2 or 3 [type=literal_error, input_value=4, input_type=int]"},
		{"enum items take no text", `{"city":"Paris","unit":"celsius","days":3,"levels":["1"]}`,
			"1 validation error for get_weather\nlevels.0\n  Input should be 1, 2 or 3 [type=literal_error, input_value='1', input_type=str]"},
		{"nested", `{"city":"Paris","unit":"celsius","days":3,"config":{"mode":"slow","days":"x"}}`,
			"2 validation errors for get_weather\nconfig.mode\n  Input should be 'fast' or 'exact' [type=literal_error, input_value='slow', input_type=str]\nconfig.days\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]"},
		{"nested required", `{"city":"Paris","unit":"celsius","days":3,"config":{"days":1}}`,
			"1 validation error for get_weather\nconfig.mode\n  Field required [type=missing, input_value={'days': 1}, input_type=dict]"},
		{"nested additionalProperties false", `{"city":"Paris","unit":"celsius","days":3,"config":{"mode":"fast","days":1,"hours":2}}`,
			"1 validation error for get_weather\nconfig.hours\n  Extra inputs are not permitted [type=extra_forbidden, input_value=2, input_type=int]"},
		{"nested not an object", `{"city":"Paris","unit":"celsius","days":3,"config":"fast"}`,
			// pydantic names the class here (model_type); a schema has no
			// class, so this is the dict wording.
			"1 validation error for get_weather\nconfig\n  Input should be a valid dictionary [type=dict_type, input_value='fast', input_type=str]"},
		{"dict", `{"city":"Paris","unit":"celsius","days":3,"meta":[1]}`,
			"1 validation error for get_weather\nmeta\n  Input should be a valid dictionary [type=dict_type, input_value=[1], input_type=list]"},
		{"long input truncated", `{"city":"Paris","unit":"` + strings.Repeat("x", 80) + `","days":3}`,
			"1 validation error for get_weather\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx', input_type=str]"},
		{"python reprs", `{"city":"it's","unit":"celsius","days":true,"tags":["a\nb",{"k":1e16}],"meta":{"x":1},"limit":2.5}`,
			"2 validation errors for get_weather\ntags.1\n  Input should be a valid string [type=string_type, input_value={'k': 1e+16}, input_type=dict]\nlimit\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=2.5, input_type=float]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			f := forecastTool(t, &calls)
			args := f.DecodeArguments(tc.args)
			if args.Error != "" {
				t.Fatalf("decode: %s", args.Error)
			}
			_, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args)
			var ve *tool.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *tool.ValidationError", err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error text:\n got %q\nwant %q", got, tc.want)
			}
			if calls != 0 {
				t.Errorf("the Go function ran %d times on bad arguments", calls)
			}
			// The map path (hooks present) refuses alike.
			_, err = f.Invoke(context.Background(), nil, args.Values)
			if err == nil || err.Error() != tc.want || calls != 0 {
				t.Errorf("Invoke: err %v, calls %d", err, calls)
			}
		})
	}
}

// What pydantic's lax mode converts reaches the function converted.
func TestCheckArgumentsConverts(t *testing.T) {
	cases := []struct {
		name, args, want string
	}{
		{"int from text", `{"city":"Paris","unit":"celsius","days":" 3 "}`, `{"city":"Paris","unit":"celsius","days":3}`},
		{"int from text with zero fraction", `{"city":"Paris","unit":"celsius","days":"1_000.0"}`, `{"city":"Paris","unit":"celsius","days":1000}`},
		{"int from whole float", `{"city":"Paris","unit":"celsius","days":3.0}`, `{"city":"Paris","unit":"celsius","days":3}`},
		{"int from boolean", `{"city":"Paris","unit":"celsius","days":true}`, `{"city":"Paris","unit":"celsius","days":1}`},
		{"number and boolean from text", `{"city":"Paris","unit":"celsius","days":3,"ratio":"1.5","alerts":"yes"}`,
			`{"city":"Paris","unit":"celsius","days":3,"ratio":1.5,"alerts":true}`},
		{"boolean from number", `{"city":"Paris","unit":"celsius","days":3,"alerts":1.0}`, `{"city":"Paris","unit":"celsius","days":3,"alerts":true}`},
		{"enum by Python equality", `{"city":"Paris","unit":"celsius","days":3,"levels":[1.0,true,3]}`,
			`{"city":"Paris","unit":"celsius","days":3,"levels":[1,1,3]}`},
		{"optional takes null", `{"city":"Paris","unit":"celsius","days":3,"limit":null,"config":null}`, `{"city":"Paris","unit":"celsius","days":3}`},
		{"nested", `{"city":"Paris","unit":"celsius","days":3,"config":{"mode":"fast","days":"2","tags":null}}`,
			`{"city":"Paris","unit":"celsius","days":3,"config":{"mode":"fast","days":2}}`},
		{"free-form dict", `{"city":"Paris","unit":"celsius","days":3,"meta":{"any":["thing",1]}}`,
			`{"city":"Paris","unit":"celsius","days":3,"meta":{"any":["thing",1]}}`},
		{"unknown parameter ignored", `{"city":"Paris","unit":"celsius","days":3,"extra":1}`, `{"city":"Paris","unit":"celsius","days":3}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			f := forecastTool(t, &calls)
			for _, hooked := range []bool{false, true} {
				args := f.DecodeArguments(tc.args)
				var hooks []tool.Hook
				if hooked {
					// A hook sends the call down the map path.
					hooks = append(hooks, func(ctx context.Context, _ *tool.Call, a map[string]any, next tool.Handler) (tool.Result, error) {
						return next(ctx, a)
					})
				}
				res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args, hooks...)
				if err != nil {
					t.Fatalf("hooked=%v: %v", hooked, err)
				}
				if res.Content != tc.want {
					t.Errorf("hooked=%v: the function got %s, want %s", hooked, res.Content, tc.want)
				}
			}
		})
	}
}

func TestCheckArgumentsRawSchema(t *testing.T) {
	cases := []struct {
		name, schema, args string
		want               string // "" accepts
		got                string // the handler's arguments, when accepted
	}{
		{name: "top-level additionalProperties false",
			schema: `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`,
			args:   `{"q":"go","page":2}`,
			want:   "1 validation error for raw\npage\n  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=2, input_type=int]"},
		{name: "type list is a union",
			schema: `{"type":"object","properties":{"x":{"type":["integer","string"]}}}`,
			args:   `{"x":[1]}`,
			want:   "2 validation errors for raw\nx.int\n  Input should be a valid integer [type=int_type, input_value=[1], input_type=list]\nx.str\n  Input should be a valid string [type=string_type, input_value=[1], input_type=list]"},
		{name: "union keeps a value that fits as it is",
			schema: `{"type":"object","properties":{"x":{"anyOf":[{"type":"integer"},{"type":"string"}]}}}`,
			args:   `{"x":"5"}`, got: `{"x":"5"}`},
		{name: "anyOf members tagged",
			schema: `{"type":"object","properties":{"x":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"object"},{"type":"null"}]}}}`,
			args:   `{"x":"s"}`,
			want:   "2 validation errors for raw\nx.list[int]\n  Input should be a valid list [type=list_type, input_value='s', input_type=str]\nx.dict[str,any]\n  Input should be a valid dictionary [type=dict_type, input_value='s', input_type=str]"},
		{name: "nullable anyOf fails as its member",
			schema: `{"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"null"}],"default":null}},"required":["n"]}`,
			args:   `{"n":"x"}`,
			want:   "1 validation error for raw\nn\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]"},
		{name: "nullable anyOf takes null",
			schema: `{"type":"object","properties":{"n":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["n"]}`,
			args:   `{"n":null}`, got: `{"n":null}`},
		{name: "pydantic $defs enum, as MCP servers send",
			schema: `{"type":"object","$defs":{"Unit":{"enum":["c","f"],"type":"string"}},"properties":{"unit":{"$ref":"#/$defs/Unit"}},"required":["unit"]}`,
			args:   `{"unit":"k"}`,
			want:   "1 validation error for raw\nunit\n  Input should be 'c' or 'f' [type=literal_error, input_value='k', input_type=str]"},
		{name: "const",
			schema: `{"type":"object","properties":{"kind":{"const":"only"}}}`,
			args:   `{"kind":"two"}`,
			want:   "1 validation error for raw\nkind\n  Input should be 'only' [type=literal_error, input_value='two', input_type=str]"},
		{name: "tuple items",
			schema: `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":{"type":"boolean"}}}}`,
			args:   `{"p":[1,2,"yes","x"]}`,
			want:   "2 validation errors for raw\np.1\n  Input should be a valid string [type=string_type, input_value=2, input_type=int]\np.3\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value='x', input_type=str]"},
		{name: "additionalProperties schema",
			schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
			args:   `{"m":{"a":"1","b":"x"}}`,
			want:   "1 validation error for raw\nm.b\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]"},
		{name: "allOf",
			schema: `{"type":"object","properties":{"n":{"allOf":[{"type":"integer"}]}}}`,
			args:   `{"n":"7"}`, got: `{"n":7}`},
		{name: "keywords not checked are ignored",
			schema: `{"type":"object","properties":{"s":{"type":"string","minLength":10,"pattern":"^z","format":"email"},"n":{"type":"integer","minimum":100}}}`,
			args:   `{"s":"a","n":1}`, got: `{"n":1,"s":"a"}`},
		{name: "patternProperties leave additional names alone",
			schema: `{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x-":{}},"additionalProperties":false}`,
			args:   `{"a":"1","x-b":2}`, got: `{"a":"1","x-b":2}`},
		{name: "oneOf checked as anyOf",
			schema: `{"type":"object","properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`,
			args:   `{"v":3}`, got: `{"v":3}`},
		{name: "unresolvable $ref admits anything",
			schema: `{"type":"object","properties":{"v":{"$ref":"https://example.com/s.json"}}}`,
			args:   `{"v":{"deep":[1]}}`, got: `{"v":{"deep":[1]}}`},
		{name: "no schema admits anything",
			schema: ``,
			args:   `{"v":1}`, got: `{"v":1}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got map[string]any
			f := tool.Must(tool.NewRaw("raw", "", json.RawMessage(tc.schema), func(_ context.Context, a map[string]any) (tool.Result, error) {
				got = a
				return tool.Text("ran"), nil
			}))
			args := f.DecodeArguments(tc.args)
			_, err := f.Invoke(context.Background(), nil, args.Values)
			if tc.want != "" {
				if err == nil || err.Error() != tc.want {
					t.Fatalf("error text:\n got %v\nwant %q", err, tc.want)
				}
				if got != nil {
					t.Error("the handler ran on bad arguments")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(got); string(b) != tc.got {
				t.Errorf("handler got %s, want %s", b, tc.got)
			}
		})
	}
}

// As validate_call wraps agno's entrypoint inside the tool hooks, a hook
// sees the model's arguments and may fix them before the check.
func TestCheckRunsInsideHooks(t *testing.T) {
	calls := 0
	f := forecastTool(t, &calls)
	var seen any
	fix := func(ctx context.Context, _ *tool.Call, a map[string]any, next tool.Handler) (tool.Result, error) {
		seen = a["unit"]
		a["unit"] = "celsius"
		return next(ctx, a)
	}
	args := f.DecodeArguments(`{"city":"Paris","unit":"kelvin","days":"2"}`)
	res, err := f.InvokeArgs(context.Background(), &tool.Call{Function: f}, args, fix)
	if err != nil || calls != 1 || seen != "kelvin" || res.Content != `{"city":"Paris","unit":"celsius","days":2}` {
		t.Fatalf("res %q, err %v, calls %d, hook saw %v", res.Content, err, calls, seen)
	}
	// The check converts a copy: the caller's arguments (the run's record
	// of the call) keep what the model sent.
	if args.Values["days"] != "2" {
		t.Errorf("the caller's arguments changed: %v", args.Values)
	}
}

// A field a human fills in is hidden from the model but checked, with the
// rest of the schema, when the call runs.
func TestUserInputFieldsAreChecked(t *testing.T) {
	type transfer struct {
		To     string `json:"to"`
		Amount int    `json:"amount"`
	}
	f := tool.Must(tool.New("transfer", "", func(_ context.Context, a transfer) (transfer, error) { return a, nil },
		tool.RequiresUserInput("amount")))
	if strings.Contains(string(f.Parameters), "amount") {
		t.Fatalf("the model sees the human's field: %s", f.Parameters)
	}
	res, err := f.Invoke(context.Background(), nil, map[string]any{"to": "bob", "amount": "12"})
	if err != nil || res.Content != `{"to":"bob","amount":12}` {
		t.Fatalf("res %q, err %v", res.Content, err)
	}
	want := "1 validation error for transfer\namount\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='twelve', input_type=str]"
	if _, err := f.Invoke(context.Background(), nil, map[string]any{"to": "bob", "amount": "twelve"}); err == nil || err.Error() != want {
		t.Fatalf("err = %v", err)
	}
}

// A direct Invoke with Go values is checked as their JSON.
func TestCheckArgumentsGoValues(t *testing.T) {
	calls := 0
	f := forecastTool(t, &calls)
	res, err := f.Invoke(context.Background(), nil, map[string]any{"city": "Paris", "unit": "celsius", "days": 4, "tags": []string{"a"}, "ratio": float32(0.5)})
	if err != nil || res.Content != `{"city":"Paris","unit":"celsius","days":4,"ratio":0.5,"tags":["a"]}` {
		t.Fatalf("res %q, err %v", res.Content, err)
	}
	_, err = f.Invoke(context.Background(), nil, map[string]any{"city": "Paris", "unit": "celsius", "days": 4.5})
	want := "1 validation error for get_weather\ndays\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=4.5, input_type=float]"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v", err)
	}
}

// End to end: the model's out-of-enum argument never reaches the Go
// function; the validation error goes back as the tool result, and the
// model's corrected call runs.
func TestModelGetsValidationErrorAndRetries(t *testing.T) {
	var got []forecastArgs
	weather := tool.Must(tool.New("get_weather", "Get the weather.", func(_ context.Context, a forecastArgs) (string, error) {
		got = append(got, a)
		return "sunny in " + a.City, nil
	}))
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_1", "get_weather", `{"city":"Paris","unit":"kelvin","days":2}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_2", "get_weather", `{"city":"Paris","unit":"celsius","days":2}`)}},
		modeltest.Response{Content: "It is sunny."},
	)
	a, err := agent.New(agent.Config{Name: "forecaster", Model: fake, Tools: []tool.Provider{weather}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]forecastArgs{{City: "Paris", Unit: "celsius", Days: 2}}, got); diff != "" {
		t.Fatalf("the Go function's calls (-want +got):\n%s", diff)
	}
	want := "1 validation error for get_weather\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value='kelvin', input_type=str]"
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	msgs := reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != model.RoleTool || last.ToolCallID != "call_1" || last.Content != want || !last.ToolCallError {
		t.Fatalf("tool message to the model = %+v\nwant content %q", last, want)
	}
	if len(out.Tools) != 2 || !out.Tools[0].ToolCallError || out.Tools[0].ResultText() != want ||
		out.Tools[0].ToolArgs["unit"] != "kelvin" || out.Tools[1].ToolCallError {
		t.Fatalf("tool executions = %+v", out.Tools)
	}
	if out.Content != "It is sunny." {
		t.Errorf("content = %q", out.Content)
	}
}

// pydantic 2.13's lax mode for one value; "!type" is the error type it
// reports.
func TestCheckArgumentsLaxScalars(t *testing.T) {
	cases := []struct {
		typ, in, want string
	}{
		{"integer", `" 3 "`, `3`}, {"integer", `"1_000"`, `1000`}, {"integer", `"+3"`, `3`}, {"integer", `"-3"`, `-3`},
		{"integer", `"007"`, `7`}, {"integer", `"3.00"`, `3`}, {"integer", `"-0.0"`, `0`},
		{"integer", `"1e3"`, `!int_parsing`}, {"integer", `"0x10"`, `!int_parsing`}, {"integer", `"3.5"`, `!int_parsing`},
		{"integer", `"3.50"`, `!int_parsing`}, {"integer", `"3."`, `!int_parsing`}, {"integer", `""`, `!int_parsing`},
		{"integer", `"٣"`, `!int_parsing`}, {"integer", `"1__0"`, `!int_parsing`}, {"integer", `"_1"`, `!int_parsing`},
		{"integer", `"1_"`, `!int_parsing`}, {"integer", `"+ 3"`, `!int_parsing`},
		{"integer", `1e16`, `10000000000000000`}, {"integer", `-0.0`, `0`}, {"integer", `1e30`, `!int_parsing_size`},
		{"integer", `0.1`, `!int_from_float`}, {"integer", `{}`, `!int_type`},
		{"number", `" 1.5 "`, `1.5`}, {"number", `"1_0.5"`, `10.5`}, {"number", `"1e3"`, `1000`}, {"number", `".5"`, `0.5`},
		{"number", `"5."`, `5`}, {"number", `"1_.5"`, `1.5`}, {"number", `"+1.5"`, `1.5`}, {"number", `true`, `1`},
		{"number", `""`, `!float_parsing`}, {"number", `"1__0.5"`, `!float_parsing`}, {"number", `"_1.5"`, `!float_parsing`},
		{"number", `"1.5_"`, `!float_parsing`}, {"number", `null`, `!float_type`},
		// pydantic takes "inf" and "nan"; JSON cannot carry them.
		{"number", `"inf"`, `!float_parsing`},
		{"boolean", `"YES"`, `true`}, {"boolean", `"On"`, `true`}, {"boolean", `"F"`, `false`}, {"boolean", `"n"`, `false`},
		{"boolean", `"0"`, `false`}, {"boolean", `1`, `true`}, {"boolean", `0.0`, `false`},
		{"boolean", `" yes"`, `!bool_parsing`}, {"boolean", `"2"`, `!bool_parsing`}, {"boolean", `""`, `!bool_parsing`},
		{"boolean", `-1`, `!bool_parsing`}, {"boolean", `2.0`, `!bool_parsing`}, {"boolean", `1.5`, `!bool_type`},
		{"boolean", `[]`, `!bool_type`},
		{"string", `5`, `!string_type`}, {"string", `true`, `!string_type`}, {"string", `"5"`, `"5"`},
		{"null", `1`, `!none_required`}, {"null", `null`, `null`},
	}
	for _, tc := range cases {
		f := tool.Must(tool.NewRaw("lax", "", json.RawMessage(`{"type":"object","properties":{"x":{"type":"`+tc.typ+`"}},"required":["x"]}`), okHandler))
		args := f.DecodeArguments(`{"x":` + tc.in + `}`)
		out, err := f.CheckArguments(args.Values)
		var ve *tool.ValidationError
		switch {
		case strings.HasPrefix(tc.want, "!"):
			if !errors.As(err, &ve) || len(ve.Errors) != 1 || ve.Errors[0].Type != tc.want[1:] {
				t.Errorf("%s %s: err = %v, want %s", tc.typ, tc.in, err, tc.want[1:])
			}
		case err != nil:
			t.Errorf("%s %s: %v", tc.typ, tc.in, err)
		default:
			if b, _ := json.Marshal(out["x"]); string(b) != tc.want {
				t.Errorf("%s %s: converted to %s, want %s", tc.typ, tc.in, b, tc.want)
			}
		}
	}
}

// A Strict function's schema lists every property as required, as agno's
// strict rewrite does, defaults or not: required is not enforced there,
// the rest is. The want is agno's text for add_memory(memory: str,
// topics: Optional[List[str]] = None) called with memory=42.
func TestStrictFunctionRequiredNotEnforced(t *testing.T) {
	schema := `{"type":"object","properties":{"memory":{"type":"string"},"topics":{"type":"array","items":{"type":"string"}}},"additionalProperties":false,"required":["memory","topics"]}`
	f := tool.Must(tool.NewRaw("add_memory", "", json.RawMessage(schema), okHandler, tool.Strict()))
	for _, ok := range []string{`{"memory":"m","topics":null}`, `{"memory":"m"}`} {
		if _, err := f.Invoke(context.Background(), nil, f.DecodeArguments(ok).Values); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	want := "1 validation error for add_memory\nmemory\n  Input should be a valid string [type=string_type, input_value=42, input_type=int]"
	if _, err := f.Invoke(context.Background(), nil, f.DecodeArguments(`{"memory":42}`).Values); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	want = "1 validation error for add_memory\ntags\n  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=['x'], input_type=list]"
	if _, err := f.Invoke(context.Background(), nil, f.DecodeArguments(`{"memory":"m","tags":["x"]}`).Values); err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

// FuzzCheckArguments: any arguments a model sends are checked without
// panicking; accepted ones marshal, and the check never edits the
// caller's map.
func FuzzCheckArguments(f *testing.F) {
	for _, s := range []string{
		`{"city":"Paris","unit":"kelvin","days":"3","config":{"mode":1,"days":2.0,"x":[]}}`,
		`{"u":[1,"a",null,{"k":true}],"n":"1_0","t":["x",1e400],"r":{"a":{"a":{}}}}`,
		`{'city': None, 'levels': (1, 2.0, True), 'meta': {1: 2}}`,
		`{}`,
	} {
		f.Add(s)
	}
	calls := 0
	typed := forecastTool(f, &calls)
	raw := tool.Must(tool.NewRaw("raw", "", json.RawMessage(`{"type":"object","$defs":{"R":{"type":"object","properties":{"a":{"$ref":"#/$defs/R"}},"additionalProperties":false}},
		"properties":{"u":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"string","enum":["a","b"]},{"type":"null"},{"type":"object","additionalProperties":{"type":"boolean"}}]}},
		"n":{"type":["integer","null"]},"t":{"type":"array","prefixItems":[{"const":"x"}],"items":{"type":"number"}},"r":{"$ref":"#/$defs/R"}},"required":["u"]}`), okHandler))
	f.Fuzz(func(t *testing.T, s string) {
		for _, fn := range []*tool.Function{typed, raw} {
			args := fn.DecodeArguments(s)
			if args.Error != "" {
				return
			}
			before, _ := json.Marshal(args.Values)
			out, err := fn.CheckArguments(args.Values)
			if after, _ := json.Marshal(args.Values); string(after) != string(before) {
				t.Fatalf("the caller's arguments changed: %s -> %s", before, after)
			}
			if err != nil {
				_ = err.Error()
				continue
			}
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("accepted arguments do not marshal: %v", err)
			}
		}
	})
}
