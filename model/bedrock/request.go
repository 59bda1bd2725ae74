package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/agno-go/agno/model"
)

// Keys of model.Message.ProviderData this package reads and writes.
const (
	// pdSignature is the reasoning signature Claude needs back with its
	// reasoning on the next turn (agno keeps it under this key too).
	pdSignature = "signature"
	// pdRedacted are redactedContent reasoning blocks, base64, sent back
	// as they came.
	pdRedacted   = "redacted_reasoning_content"
	pdStopReason = "stop_reason"
)

// newInput maps a model.Request onto a Converse request.
func (m *Model) newInput(req *model.Request) (*bedrockruntime.ConverseInput, error) {
	system, messages, err := convertMessages(req.Messages, m.logger)
	if err != nil {
		return nil, err
	}
	in := &bedrockruntime.ConverseInput{
		ModelId:  aws.String(m.id),
		System:   system,
		Messages: messages,
	}
	if in.InferenceConfig, err = inferenceConfig(req); err != nil {
		return nil, err
	}
	if in.ToolConfig, err = m.toolConfig(req); err != nil {
		return nil, err
	}
	if req.Seed != nil || req.FrequencyPenalty != nil || req.PresencePenalty != nil || req.ReasoningEffort != "" {
		m.logger.Debug("aws-bedrock: seed, frequency_penalty, presence_penalty and reasoning_effort have no Converse field; not sent (set model-specific fields in request_params)", "model", m.id)
	}
	if err := applyExtra(in, req.Extra); err != nil {
		return nil, err
	}
	return in, nil
}

// inferenceConfig is Converse's inferenceConfig: the sampling parameters
// every Bedrock model takes.
func inferenceConfig(req *model.Request) (*types.InferenceConfiguration, error) {
	var ic types.InferenceConfiguration
	set := false
	if req.MaxTokens != nil {
		if *req.MaxTokens <= 0 || *req.MaxTokens > math.MaxInt32 {
			return nil, fmt.Errorf("%w: max_tokens is %d: set a positive number or leave it unset for the model's default", ErrInvalidRequest, *req.MaxTokens)
		}
		ic.MaxTokens, set = aws.Int32(int32(*req.MaxTokens)), true
	}
	if req.Temperature != nil {
		ic.Temperature, set = aws.Float32(float32(*req.Temperature)), true
	}
	if req.TopP != nil {
		ic.TopP, set = aws.Float32(float32(*req.TopP)), true
	}
	if len(req.Stop) > 0 {
		ic.StopSequences, set = slices.Clone(req.Stop), true
	}
	if !set {
		return nil, nil
	}
	return &ic, nil
}

// topLevel are Converse request fields request_params may set, as agno
// passes its request_params to converse() as keyword arguments.
var topLevel = []string{"additionalModelRequestFields", "additionalModelResponseFieldPaths", "requestMetadata", "performanceConfig"}

// ownFields are Converse fields the request itself sets.
var ownFields = []string{"modelId", "messages", "system", "toolConfig", "inferenceConfig"}

// applyExtra applies agno's request_params: Converse's own top-level
// fields as agno passes them, and every other key into
// additionalModelRequestFields, the model-specific parameters ("top_k",
// Claude's "thinking", Nova's "reasoningConfig").
func applyExtra(in *bedrockruntime.ConverseInput, extra map[string]any) error {
	if len(extra) == 0 {
		return nil
	}
	fields := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		v := extra[k]
		switch {
		case k == "stream":
			// Decided by Request.Stream (Converse or ConverseStream).
		case k == "additionalModelRequestFields":
			obj, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%w: request_params.additionalModelRequestFields is %T: give a table", ErrInvalidRequest, v)
			}
			for fk, fv := range obj {
				fields[fk] = fv
			}
		case k == "additionalModelResponseFieldPaths":
			paths, err := stringList(v)
			if err != nil {
				return fmt.Errorf("%w: request_params.additionalModelResponseFieldPaths: %v", ErrInvalidRequest, err)
			}
			in.AdditionalModelResponseFieldPaths = paths
		case k == "requestMetadata":
			obj, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%w: request_params.requestMetadata is %T: give a table of strings", ErrInvalidRequest, v)
			}
			in.RequestMetadata = map[string]string{}
			for mk, mv := range obj {
				s, ok := mv.(string)
				if !ok {
					return fmt.Errorf("%w: request_params.requestMetadata.%s is %T: give a string", ErrInvalidRequest, mk, mv)
				}
				in.RequestMetadata[mk] = s
			}
		case k == "performanceConfig":
			obj, _ := v.(map[string]any)
			latency, ok := obj["latency"].(string)
			if !ok || len(obj) != 1 {
				return fmt.Errorf("%w: request_params.performanceConfig: give {latency = \"standard\"} or {latency = \"optimized\"}", ErrInvalidRequest)
			}
			in.PerformanceConfig = &types.PerformanceConfiguration{Latency: types.PerformanceConfigLatency(latency)}
		case slices.Contains(ownFields, k):
			return fmt.Errorf("%w: request_params.%s is set from the request itself: use the model's parameters (temperature, max_tokens, ...) or the agent's messages and tools instead", ErrInvalidRequest, k)
		case isConverseField(k):
			return fmt.Errorf("%w: request_params.%s is not supported: request_params takes %s, or model-specific fields that go into additionalModelRequestFields", ErrInvalidRequest, k, strings.Join(topLevel, ", "))
		default:
			fields[k] = v
		}
	}
	if len(fields) > 0 {
		in.AdditionalModelRequestFields = document.NewLazyDocument(fields)
	}
	return nil
}

// isConverseField reports the Converse request fields not in topLevel or
// ownFields, so that one is not sent to the model as its own parameter.
func isConverseField(k string) bool {
	switch k {
	case "guardrailConfig", "promptVariables", "serviceTier", "outputConfig", "projectIdentifier":
		return true
	}
	return false
}

func stringList(v any) ([]string, error) {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l), nil
	case []any:
		out := make([]string, len(l))
		for i, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("element %d is %T: give a list of strings", i, e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("is %T: give a list of strings", v)
}

// streamInput is in as a ConverseStream request: the same fields.
func streamInput(in *bedrockruntime.ConverseInput) *bedrockruntime.ConverseStreamInput {
	return &bedrockruntime.ConverseStreamInput{
		ModelId:                           in.ModelId,
		AdditionalModelRequestFields:      in.AdditionalModelRequestFields,
		AdditionalModelResponseFieldPaths: in.AdditionalModelResponseFieldPaths,
		InferenceConfig:                   in.InferenceConfig,
		Messages:                          in.Messages,
		PerformanceConfig:                 in.PerformanceConfig,
		RequestMetadata:                   in.RequestMetadata,
		System:                            in.System,
		ToolConfig:                        in.ToolConfig,
	}
}

// convertMessages splits system messages off into Converse's system
// blocks and maps the rest onto user/assistant turns. Tool results become
// toolResult blocks of a user turn, and consecutive turns of one role are
// merged: Converse requires user and assistant to alternate.
func convertMessages(msgs []model.Message, logger *slog.Logger) ([]types.SystemContentBlock, []types.Message, error) {
	var system []types.SystemContentBlock
	var turns []types.Message
	appendTurn := func(role types.ConversationRole, blocks []types.ContentBlock) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].Role == role {
			turns[n-1].Content = append(turns[n-1].Content, blocks...)
			return
		}
		turns = append(turns, types.Message{Role: role, Content: blocks})
	}
	docs := 0
	for i, msg := range msgs {
		switch msg.Role {
		case model.RoleSystem, "developer":
			if strings.TrimSpace(msg.Content) != "" {
				system = append(system, &types.SystemContentBlockMemberText{Value: msg.Content})
			}

		case model.RoleUser:
			var blocks []types.ContentBlock
			// Converse rejects blank text blocks.
			if strings.TrimSpace(msg.Content) != "" {
				blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Content})
			}
			for j, img := range msg.Images {
				b, err := imageBlock(img)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: messages[%d].images[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				blocks = append(blocks, b)
			}
			for j, f := range msg.Files {
				docs++
				b, err := documentBlock(f, docs)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: messages[%d].files[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				blocks = append(blocks, b)
			}
			appendTurn(types.ConversationRoleUser, blocks)

		case model.RoleAssistant:
			blocks := reasoningBlocks(msg)
			if strings.TrimSpace(msg.Content) != "" {
				blocks = append(blocks, &types.ContentBlockMemberText{Value: msg.Content})
			}
			for _, tc := range msg.ToolCalls {
				blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
					ToolUseId: aws.String(tc.ID),
					Name:      aws.String(tc.Function.Name),
					Input:     document.NewLazyDocument(toolInput(tc, logger)),
				}})
			}
			appendTurn(types.ConversationRoleAssistant, blocks)

		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, nil, fmt.Errorf("%w: messages[%d]: a tool message needs tool_call_id, the id of the assistant tool call it answers", ErrInvalidRequest, i)
			}
			// agno sends the result as {"json": {"result": content}}.
			result := types.ToolResultBlock{
				ToolUseId: aws.String(msg.ToolCallID),
				Content: []types.ToolResultContentBlock{&types.ToolResultContentBlockMemberJson{
					Value: document.NewLazyDocument(map[string]any{"result": msg.Content}),
				}},
			}
			appendTurn(types.ConversationRoleUser, []types.ContentBlock{&types.ContentBlockMemberToolResult{Value: result}})

		default:
			return nil, nil, fmt.Errorf("%w: messages[%d].role is %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
	}
	return system, turns, nil
}

// reasoningBlocks are the reasoningContent blocks an assistant message
// had: sent back only with their signature (or redacted), which Claude
// requires and checks; reasoning text alone is not replayed.
func reasoningBlocks(msg model.Message) []types.ContentBlock {
	var blocks []types.ContentBlock
	if sig, _ := msg.ProviderData[pdSignature].(string); sig != "" && msg.ReasoningContent != "" {
		blocks = append(blocks, &types.ContentBlockMemberReasoningContent{
			Value: &types.ReasoningContentBlockMemberReasoningText{Value: types.ReasoningTextBlock{
				Text: aws.String(msg.ReasoningContent), Signature: aws.String(sig),
			}},
		})
	}
	for _, r := range redactedList(msg.ProviderData[pdRedacted]) {
		data, err := base64.StdEncoding.DecodeString(r)
		if err != nil || len(data) == 0 {
			continue
		}
		blocks = append(blocks, &types.ContentBlockMemberReasoningContent{
			Value: &types.ReasoningContentBlockMemberRedactedContent{Value: data},
		})
	}
	return blocks
}

// redactedList reads the redacted reasoning list, as this package stored
// it or as it reads back from JSON.
func redactedList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// toolInput is a toolUse input: the call's arguments as a JSON object.
// Arguments that are not one are sent as {} so that the conversation can
// go on, as agno does; the tool result already told the model.
func toolInput(tc model.ToolCall, logger *slog.Logger) map[string]any {
	obj := map[string]any{}
	args := strings.TrimSpace(tc.Function.Arguments)
	if args == "" {
		return obj
	}
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		logger.Debug("aws-bedrock: tool call arguments are not a JSON object; sending {}", "tool_call_id", tc.ID, "tool", tc.Function.Name)
		return map[string]any{}
	}
	return obj
}

// imageFormats are the image formats Converse takes, by media type.
var imageFormats = map[string]types.ImageFormat{
	"image/png": types.ImageFormatPng, "image/jpeg": types.ImageFormatJpeg, "image/jpg": types.ImageFormatJpeg,
	"image/gif": types.ImageFormatGif, "image/webp": types.ImageFormatWebp,
}

// imageBlock sends an image's bytes, or an s3:// URL as an S3 location:
// Converse takes no http(s) URLs.
func imageBlock(img model.Image) (types.ContentBlock, error) {
	data, mediaType := img.Content, img.MimeType
	switch {
	case strings.HasPrefix(img.URL, "data:"):
		var err error
		if mediaType, data, err = parseDataURL(img.URL); err != nil {
			return nil, err
		}
	case strings.HasPrefix(img.URL, "s3://"):
		format, err := imageFormat(mediaType, path.Ext(img.URL), nil)
		if err != nil {
			return nil, err
		}
		return &types.ContentBlockMemberImage{Value: types.ImageBlock{
			Format: format,
			Source: &types.ImageSourceMemberS3Location{Value: types.S3Location{Uri: aws.String(img.URL)}},
		}}, nil
	case img.URL != "":
		return nil, fmt.Errorf("image URL %q: Converse takes images as bytes or s3:// locations, not http(s) URLs: give the image's content instead", img.URL)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("image has no content: Bedrock needs the image's bytes (or an s3:// url)")
	}
	format, err := imageFormat(mediaType, "", data)
	if err != nil {
		return nil, err
	}
	return &types.ContentBlockMemberImage{Value: types.ImageBlock{
		Format: format, Source: &types.ImageSourceMemberBytes{Value: data},
	}}, nil
}

func imageFormat(mediaType, ext string, data []byte) (types.ImageFormat, error) {
	mt := strings.ToLower(strings.TrimSpace(mediaType))
	if mt == "" && ext != "" {
		mt = "image/" + strings.ToLower(strings.TrimPrefix(ext, "."))
	}
	if mt == "" && len(data) > 0 {
		mt = http.DetectContentType(data)
	}
	if f, ok := imageFormats[mt]; ok {
		return f, nil
	}
	return "", fmt.Errorf("image type %q is not supported by Bedrock: use png, jpeg, gif or webp", mt)
}

// parseDataURL decodes a base64 data URL ("data:image/png;base64,...").
func parseDataURL(u string) (string, []byte, error) {
	header, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mediaType, enc, _ := strings.Cut(header, ";")
	if !ok || enc != "base64" {
		return "", nil, fmt.Errorf("data URL is not base64: use data:<media type>;base64,<data>")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("data URL: %v", err)
	}
	return mediaType, data, nil
}

// documentFormats are the document formats Converse takes, by media type.
var documentFormats = map[string]types.DocumentFormat{
	"application/pdf":    types.DocumentFormatPdf,
	"text/csv":           types.DocumentFormatCsv,
	"application/msword": types.DocumentFormatDoc,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": types.DocumentFormatDocx,
	"application/vnd.ms-excel": types.DocumentFormatXls,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": types.DocumentFormatXlsx,
	"text/html":     types.DocumentFormatHtml,
	"text/plain":    types.DocumentFormatTxt,
	"text/markdown": types.DocumentFormatMd,
}

// documentBlock sends a file as a Converse document, named (as Converse
// requires) after the file.
func documentBlock(f model.File, n int) (types.ContentBlock, error) {
	if len(f.Content) == 0 {
		return nil, fmt.Errorf("file %q has no content", f.Filename)
	}
	mt, _, _ := strings.Cut(f.MimeType, ";")
	format, ok := documentFormats[strings.ToLower(strings.TrimSpace(mt))]
	if !ok {
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(f.Filename), "."))
		if slices.Contains(types.DocumentFormat("").Values(), types.DocumentFormat(ext)) {
			format, ok = types.DocumentFormat(ext), true
		}
	}
	if !ok {
		return nil, fmt.Errorf("file %q (%s) is not supported by Bedrock: send pdf, csv, doc, docx, xls, xlsx, html, txt or md", f.Filename, f.MimeType)
	}
	return &types.ContentBlockMemberDocument{Value: types.DocumentBlock{
		Format: format,
		Name:   aws.String(documentName(f.Filename, n)),
		Source: &types.DocumentSourceMemberBytes{Value: f.Content},
	}}, nil
}

// documentName makes a file name a valid Converse document name:
// letters, digits, single spaces, hyphens, parentheses and brackets.
func documentName(filename string, n int) string {
	base := strings.TrimSuffix(path.Base(filename), path.Ext(filename))
	var b strings.Builder
	space := false
	for _, r := range base {
		switch {
		case r == ' ' || r == '\t':
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-()[]", r):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		space = false
	}
	name := strings.TrimSpace(b.String())
	if name == "" || name == "." {
		return fmt.Sprintf("document-%d", n)
	}
	return name
}

// emptySchema is sent for a tool without parameters: inputSchema must be
// an object schema.
var emptySchema = map[string]any{"type": "object", "properties": map[string]any{}}

// toolConfig is Converse's toolConfig: each tool's JSON schema as its
// inputSchema, and the tool choice.
func (m *Model) toolConfig(req *model.Request) (*types.ToolConfiguration, error) {
	if len(req.Tools) == 0 {
		return nil, nil
	}
	tc := &types.ToolConfiguration{}
	for i, d := range req.Tools {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d].name is empty: every tool needs a name", ErrInvalidRequest, i)
		}
		var schema any = emptySchema
		if len(d.Parameters) > 0 && string(d.Parameters) != "null" {
			var obj map[string]any
			if err := json.Unmarshal(d.Parameters, &obj); err != nil || obj == nil {
				return nil, fmt.Errorf("%w: tools[%d] (%s): parameters are not a JSON object: give a JSON Schema object", ErrInvalidRequest, i, d.Name)
			}
			schema = obj
		}
		spec := types.ToolSpecification{
			Name:        aws.String(d.Name),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(schema)},
		}
		if d.Description != "" {
			spec.Description = aws.String(d.Description)
		}
		if d.Strict {
			spec.Strict = aws.Bool(true)
		}
		tc.Tools = append(tc.Tools, &types.ToolMemberToolSpec{Value: spec})
	}
	if c := req.ToolChoice; c != nil {
		switch {
		case c.Function != "":
			tc.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(c.Function)}}
		case c.Mode == "auto":
			tc.ToolChoice = &types.ToolChoiceMemberAuto{Value: types.AutoToolChoice{}}
		case c.Mode == "required" || c.Mode == "any":
			tc.ToolChoice = &types.ToolChoiceMemberAny{Value: types.AnyToolChoice{}}
		case c.Mode == "none":
			// Converse has no "none"; the tools stay, since a history with
			// toolUse blocks needs them.
			m.logger.Debug("aws-bedrock: Converse has no tool_choice none; sent as auto", "model", m.id)
		default:
			return nil, fmt.Errorf("%w: tool_choice mode %q: use none, auto, required, or name a function", ErrInvalidRequest, c.Mode)
		}
	}
	return tc, nil
}
