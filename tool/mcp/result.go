package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// imageLine is agno's text for an image moved into the result's images.
const imageLine = "Image has been generated and added to the response."

// convertResult turns a CallToolResult into agno's ToolResult shape
// (get_entrypoint_for_tool in agno/utils/mcp.py).
func convertResult(toolName string, res *sdk.CallToolResult) tool.Result {
	if res.IsError {
		return tool.Result{Content: "Error from MCP tool '" + toolName + "': " + renderContent(res.Content)}
	}
	var b strings.Builder
	var images []model.Image
	for _, item := range res.Content {
		switch c := item.(type) {
		case *sdk.TextContent:
			if img, ok := jsonImage(c.Text); ok {
				images = append(images, img)
				b.WriteString(imageLine + "\n")
				continue
			}
			b.WriteString(c.Text + "\n")
		case *sdk.ImageContent:
			images = append(images, model.Image{ID: run.NewID(), Content: c.Data, MimeType: c.MIMEType})
			b.WriteString(imageLine + "\n")
		case *sdk.EmbeddedResource:
			b.WriteString("[Embedded resource: " + resourceJSON(c.Resource) + "]\n")
		default:
			b.WriteString("[Unsupported content type: " + contentType(item) + "]\n")
		}
	}
	return tool.Result{Content: pyStrip(b.String()), Images: images}
}

// jsonImage recognises agno's custom image text: a JSON object with
// type "image" and non-empty base64 "data" (mimeType defaults to
// image/png).
func jsonImage(text string) (model.Image, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(text), &obj) != nil || obj["type"] != "image" {
		return model.Image{}, false
	}
	data, _ := obj["data"].(string)
	if data == "" {
		return model.Image{}, false
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) == 0 {
		return model.Image{}, false
	}
	mime := "image/png"
	if m, ok := obj["mimeType"].(string); ok {
		mime = m
	}
	return model.Image{ID: run.NewID(), Content: raw, MimeType: mime}, true
}

// resourceJSON is pydantic's model_dump_json of the resource contents:
// field names, declaration order, nulls kept, no HTML escaping.
func resourceJSON(r *sdk.ResourceContents) string {
	if r == nil {
		return "null"
	}
	type text struct {
		URI      string   `json:"uri"`
		MIMEType *string  `json:"mimeType"`
		Meta     sdk.Meta `json:"meta"`
		Text     string   `json:"text"`
	}
	type blob struct {
		URI      string   `json:"uri"`
		MIMEType *string  `json:"mimeType"`
		Meta     sdk.Meta `json:"meta"`
		Blob     string   `json:"blob"`
	}
	var mime *string
	if r.MIMEType != "" {
		mime = &r.MIMEType
	}
	var v any = text{URI: r.URI, MIMEType: mime, Meta: r.Meta, Text: r.Text}
	if r.Blob != nil {
		v = blob{URI: r.URI, MIMEType: mime, Meta: r.Meta, Blob: base64.StdEncoding.EncodeToString(r.Blob)}
	}
	return compactJSON(v)
}

// renderContent shows a content list in an error result as its wire JSON
// (agno shows the Python repr; only the prefix is meant to be read).
func renderContent(items []sdk.Content) string {
	if items == nil {
		items = []sdk.Content{}
	}
	return compactJSON(items)
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "<" + err.Error() + ">"
	}
	return strings.TrimRight(b.String(), "\n")
}

// contentType is the wire "type" of a content item.
func contentType(c sdk.Content) string {
	switch c.(type) {
	case *sdk.TextContent:
		return "text"
	case *sdk.ImageContent:
		return "image"
	case *sdk.AudioContent:
		return "audio"
	case *sdk.ResourceLink:
		return "resource_link"
	case *sdk.EmbeddedResource:
		return "resource"
	//lint:ignore SA1019 servers may send sampling content during its deprecation window; it is named to be reported
	case *sdk.ToolUseContent:
		return "tool_use"
	//lint:ignore SA1019 servers may send sampling content during its deprecation window; it is named to be reported
	case *sdk.ToolResultContent:
		return "tool_result"
	}
	var probe struct {
		Type string `json:"type"`
	}
	if b, err := c.MarshalJSON(); err == nil && json.Unmarshal(b, &probe) == nil && probe.Type != "" {
		return probe.Type
	}
	return "unknown"
}

// pyStrip trims what Python's str.strip() trims.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
	})
}

// timeoutText is the Python SDK's read-timeout message.
func timeoutText(d time.Duration) string {
	secs := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	if !strings.ContainsAny(secs, ".e") {
		secs += ".0"
	}
	return "Timed out while waiting for response to ClientRequest. Waited " + secs + " seconds."
}
