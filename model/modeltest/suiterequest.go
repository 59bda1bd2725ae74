package modeltest

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// SuiteRequest reads what the provider conformance suite checks out of a
// recorded Chat Completions request: images are image_url content parts,
// inline ones as data URLs, and the schema is
// response_format.json_schema.schema
// (https://platform.openai.com/docs/api-reference/chat/create).
func (r RecordedRequest) SuiteRequest() providertest.Request {
	out := providertest.Request{Header: r.Header, Body: r.Body}
	var head struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(r.Body, &head)
	out.Model = head.Model
	req := r.Request
	if req == nil {
		return out
	}
	out.Stream = req.Stream
	for _, m := range req.Messages {
		if m.Role != model.RoleUser {
			continue
		}
		if m.Content != "" {
			out.UserText = append(out.UserText, m.Content)
		}
		for _, img := range m.Images {
			out.Images = append(out.Images, wireImage(img.URL))
		}
	}
	for _, tool := range req.Tools {
		out.Tools = append(out.Tools, tool.Name)
	}
	if rf := req.ResponseFormat; rf != nil && rf.Type == "json_schema" {
		out.ResponseSchema = rf.Schema
	}
	return out
}

// wireImage reads an image_url: a base64 data URL is an inline image.
func wireImage(u string) providertest.Image {
	header, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(header, ";base64")
	if !strings.HasPrefix(u, "data:") || !ok || !isBase64 {
		return providertest.Image{URL: u}
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return providertest.Image{URL: u}
	}
	return providertest.Image{MediaType: mediaType, Data: data}
}
