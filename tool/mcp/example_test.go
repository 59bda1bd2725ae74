package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/mcp"
)

type addArgs struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

// calculator serves a real MCP server (the official Go SDK) with one tool
// over streamable HTTP; close it after the toolkits that use it.
func calculator() *httptest.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "calculator", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
		})
	return httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
}

// Connect lists the server's tools; each is a tool.Function whose
// parameters are the server's input schema.
func ExampleNew() {
	srv := calculator()
	defer srv.Close()

	tk, err := mcp.New(mcp.Config{URL: srv.URL}) // or Command: "npx -y @modelcontextprotocol/server-everything"
	if err != nil {
		panic(err)
	}
	defer tk.Close()
	ctx := context.Background()
	if err := tk.Connect(ctx); err != nil {
		panic(err)
	}
	fns, _ := tk.Functions(ctx)
	fmt.Println(fns[0].Name, "-", fns[0].Description)

	res, err := tk.Call(ctx, "add", map[string]any{"a": 2, "b": 3})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content)
	// Output:
	// add - Add two numbers.
	// 5
}

// An agent uses a connected toolkit like any other tool provider; the
// model calls the server's tools by name.
func ExampleNew_agent() {
	srv := calculator()
	defer srv.Close()
	tk, err := mcp.New(mcp.Config{URL: srv.URL})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := tk.Connect(ctx); err != nil {
		panic(err)
	}
	m := modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if last := req.Messages[len(req.Messages)-1]; last.Role == model.RoleTool {
			return modeltest.Response{Content: "2 + 3 = " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "add", `{"a":2,"b":3}`)}}
	})
	a, err := agent.New(agent.Config{Name: "Calculator", Model: m, Tools: []tool.Provider{tk}})
	if err != nil {
		panic(err)
	}
	defer a.Close() // closes the toolkit's sessions

	out, err := a.Run(ctx, "What is 2 + 3?")
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Content)
	// Output:
	// 2 + 3 = 5
}
