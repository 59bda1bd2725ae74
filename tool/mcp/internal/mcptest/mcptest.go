// Package mcptest is the MCP server the tool/mcp tests talk to, in process
// (in-memory or HTTP) and as a stdio child (testdata/server). It is a real
// go-sdk server; its tools exercise each kind of result agno handles.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Calls counts tool calls served by this process.
var Calls atomic.Int64

const objectSchema = `{"type":"object","properties":{},"required":[]}`

// NewServer returns a server with the test tools.
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "agno-go-mcptest", Version: "1.0.0"}, nil)
	add := func(name, desc, schema string, h func(ctx context.Context, req *sdk.CallToolRequest, args map[string]any) (*sdk.CallToolResult, error)) {
		s.AddTool(&sdk.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				Calls.Add(1)
				var args map[string]any
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
						return nil, err
					}
				}
				return h(ctx, req, args)
			})
	}
	text := func(s ...string) *sdk.CallToolResult {
		r := &sdk.CallToolResult{}
		for _, t := range s {
			r.Content = append(r.Content, &sdk.TextContent{Text: t})
		}
		return r
	}

	add("search", "Search the documentation.",
		`{"type":"object","properties":{"query":{"type":"string","description":"What to look for"}},"required":["query"]}`,
		func(_ context.Context, _ *sdk.CallToolRequest, a map[string]any) (*sdk.CallToolResult, error) {
			return text(fmt.Sprintf("results for %v", a["query"])), nil
		})
	add("echo", "Returns the message Go-quoted, so every byte shows.",
		`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`,
		func(_ context.Context, _ *sdk.CallToolRequest, a map[string]any) (*sdk.CallToolResult, error) {
			m, _ := a["message"].(string)
			return text(strconv.Quote(m)), nil
		})
	add("raw_args", "Returns the arguments exactly as received.", objectSchema,
		func(_ context.Context, req *sdk.CallToolRequest, _ map[string]any) (*sdk.CallToolResult, error) {
			return text(string(req.Params.Arguments)), nil
		})
	add("lines", "Two text contents.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return text("line1", "line2"), nil
		})
	add("image", "An image and an audio clip.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.ImageContent{Data: []byte("hello"), MIMEType: "image/png"},
				&sdk.AudioContent{Data: []byte("sound"), MIMEType: "audio/wav"},
			}}, nil
		})
	add("json_image", "An image as JSON text.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return text(`{"type":"image","data":"aGVsbG8=","mimeType":"image/jpeg"}`), nil
		})
	add("empty_json_image", "JSON image text without data.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return text(`{"type":"image","data":""}`), nil
		})
	add("resource", "An embedded text resource and a resource link.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://doc/1", MIMEType: "text/plain", Text: "a <b> & ü"}},
				&sdk.ResourceLink{URI: "test://doc/2", Name: "doc2"},
			}}, nil
		})
	add("fail", "Always reports an error.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}}, nil
		})
	add("slow", "Creates the file named by marker (when given), then waits ms milliseconds.",
		`{"type":"object","properties":{"ms":{"type":"integer"},"marker":{"type":"string"}}}`,
		func(ctx context.Context, _ *sdk.CallToolRequest, a map[string]any) (*sdk.CallToolResult, error) {
			if m, _ := a["marker"].(string); m != "" {
				if err := os.WriteFile(m, []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
					return nil, err
				}
			}
			ms, _ := a["ms"].(float64)
			select {
			case <-time.After(time.Duration(ms) * time.Millisecond):
				return text("done"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	add("pid", "The server's process id.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			return text(strconv.Itoa(os.Getpid())), nil
		})
	add("headers", "The request's Authorization and X-* headers as JSON.", objectSchema,
		func(_ context.Context, req *sdk.CallToolRequest, _ map[string]any) (*sdk.CallToolResult, error) {
			out := map[string]string{}
			if req.Extra != nil {
				for k, v := range req.Extra.Header {
					if k == "Authorization" || strings.HasPrefix(k, "X-") {
						out[k] = strings.Join(v, ",")
					}
				}
			}
			b, _ := json.Marshal(out)
			return text(string(b)), nil
		})
	add("env", "The names of the server's environment variables.", objectSchema,
		func(context.Context, *sdk.CallToolRequest, map[string]any) (*sdk.CallToolResult, error) {
			var names []string
			for _, kv := range os.Environ() {
				k, _, _ := strings.Cut(kv, "=")
				names = append(names, k)
			}
			slices.Sort(names)
			return text(strings.Join(names, ",")), nil
		})
	return s
}
