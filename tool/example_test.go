package tool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agno-go/agno/tool"
)

type weatherArgs struct {
	City  string `json:"city" description:"The city" enum:"nyc,sf"`
	Units string `json:"units,omitempty" description:"celsius or fahrenheit"`
}

// A typed Go function becomes a tool: its argument struct is the JSON
// schema the model sees, and the model's arguments are decoded into it.
func ExampleNew() {
	weather, err := tool.New("get_weather", "Get the weather of a city.",
		func(_ context.Context, a weatherArgs) (string, error) {
			return "It's always sunny in " + a.City, nil
		})
	if err != nil {
		panic(err)
	}
	var schema bytes.Buffer
	_ = json.Indent(&schema, weather.Definition().Parameters, "", "  ")
	fmt.Println(schema.String())

	res, err := weather.Invoke(context.Background(), &tool.Call{Function: weather}, map[string]any{"city": "sf"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content)
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "city": {
	//       "type": "string",
	//       "enum": [
	//         "nyc",
	//         "sf"
	//       ],
	//       "description": "The city"
	//     },
	//     "units": {
	//       "type": "string",
	//       "description": "celsius or fahrenheit"
	//     }
	//   },
	//   "required": [
	//     "city"
	//   ]
	// }
	// It's always sunny in sf
}

// A tool's options set agno's human-in-the-loop flags.
func ExampleRequiresConfirmation() {
	del := tool.Must(tool.New("delete_file", "Delete a file.",
		func(_ context.Context, a struct {
			Path string `json:"path"`
		}) (string, error) {
			return "deleted " + a.Path, nil
		}, tool.RequiresConfirmation()))
	fmt.Println(del.Name, del.RequiresConfirmation)
	// Output:
	// delete_file true
}

// A toolkit groups functions under one name; Include picks which are
// registered and the per-name lists set flags.
func ExampleNewToolkit() {
	echo := func(name string) *tool.Function {
		return tool.Must(tool.New(name, "Echo.", func(_ context.Context, a struct {
			Text string `json:"text"`
		}) (string, error) {
			return a.Text, nil
		}))
	}
	kit, err := tool.NewToolkit(tool.ToolkitConfig{
		Name:                 "text",
		Functions:            []*tool.Function{echo("shout"), echo("whisper"), echo("mumble")},
		Include:              []string{"shout", "whisper"},
		RequiresConfirmation: []string{"shout"},
	})
	if err != nil {
		panic(err)
	}
	fns, _ := kit.Functions(context.Background())
	var names []string
	for _, f := range fns {
		names = append(names, fmt.Sprintf("%s(confirm=%v)", f.Name, f.RequiresConfirmation))
	}
	fmt.Println(kit.Name(), strings.Join(names, " "))
	// Output:
	// text shout(confirm=true) whisper(confirm=false)
}
