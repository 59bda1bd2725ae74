package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/agno-go/agno/model"
)

// newParams maps a model.Request onto a Messages API request.
func (m *Model) newParams(req *model.Request) (sdk.MessageNewParams, error) {
	maxTokens := m.maxTokens
	if req.MaxTokens != nil {
		if *req.MaxTokens <= 0 {
			return sdk.MessageNewParams{}, fmt.Errorf("%w: Request.MaxTokens is %d: set a positive number or leave it nil for the model default %d", ErrInvalidRequest, *req.MaxTokens, m.maxTokens)
		}
		maxTokens = *req.MaxTokens
	}
	if !req.Stream {
		// The SDK refuses non-streaming calls it expects to outlast its
		// 10-minute timeout; say so before sending anything.
		if _, err := sdk.CalculateNonStreamingTimeout(maxTokens, sdk.Model(m.id), nil); err != nil {
			return sdk.MessageNewParams{}, fmt.Errorf("%w: max_tokens %d is too large for a non-streaming request: set Request.Stream or lower MaxTokens", ErrInvalidRequest, maxTokens)
		}
	}

	system, messages, err := convertMessages(req.Messages, m.logger)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	if m.cacheSystem && len(system) > 0 {
		// One breakpoint on the last block caches the whole system prompt.
		cc := sdk.NewCacheControlEphemeralParam()
		cc.TTL = m.cacheTTL
		system[len(system)-1].CacheControl = cc
	}
	params := sdk.MessageNewParams{
		Model:     sdk.Model(m.id),
		MaxTokens: int64(maxTokens),
		System:    system,
		Messages:  messages,
	}
	if params.Tools, err = convertTools(req.Tools); err != nil {
		return sdk.MessageNewParams{}, err
	}
	if m.cacheTools && len(params.Tools) > 0 {
		params.Tools[len(params.Tools)-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	if m.thinking != nil {
		if params.Thinking, err = thinkingParam(m.thinking, maxTokens); err != nil {
			return sdk.MessageNewParams{}, err
		}
	}
	if req.ToolChoice != nil && len(req.Tools) > 0 {
		if params.ToolChoice, err = convertToolChoice(req.ToolChoice); err != nil {
			return sdk.MessageNewParams{}, err
		}
	}
	if len(req.Stop) > 0 {
		params.StopSequences = req.Stop
	}
	if req.User != "" {
		params.Metadata.UserID = sdk.String(req.User)
	}
	if req.ReasoningEffort != "" {
		effort, err := convertEffort(req.ReasoningEffort)
		if err != nil {
			return sdk.MessageNewParams{}, err
		}
		params.OutputConfig.Effort = effort
	}
	if req.Seed != nil || req.FrequencyPenalty != nil || req.PresencePenalty != nil {
		m.logger.Debug("anthropic: seed, frequency_penalty and presence_penalty are not supported by the Messages API; not sent", "model", m.id)
	}

	// temperature, top_p and top_k are not fields of the SDK's params type, and
	// Extra (agno's request_params) may set anything: both go in as extra
	// body fields, Extra last so that it wins.
	extra := map[string]any{}
	if req.Temperature != nil {
		extra["temperature"] = *req.Temperature
	}
	if req.TopP != nil {
		extra["top_p"] = *req.TopP
	}
	if m.topK > 0 {
		extra["top_k"] = m.topK
	}
	for k, v := range req.Extra {
		if k == "stream" {
			continue // decided by Request.Stream
		}
		extra[k] = v
	}
	if len(extra) > 0 {
		params.SetExtraFields(extra)
	}
	return params, nil
}

// convertMessages splits system messages off into the system parameter and
// maps the rest onto user/assistant turns. Tool results become tool_result
// blocks of a user turn, and consecutive turns of one role are merged, as
// the API requires user and assistant to alternate.
func convertMessages(msgs []model.Message, logger *slog.Logger) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	type turn struct {
		assistant bool
		blocks    []sdk.ContentBlockParamUnion
	}
	var system []sdk.TextBlockParam
	var turns []turn
	appendTurn := func(assistant bool, blocks []sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(turns); n > 0 && turns[n-1].assistant == assistant {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
			return
		}
		turns = append(turns, turn{assistant: assistant, blocks: blocks})
	}

	for i, msg := range msgs {
		switch msg.Role {
		case model.RoleSystem, "developer":
			if strings.TrimSpace(msg.Content) != "" {
				system = append(system, sdk.TextBlockParam{Text: msg.Content})
			}

		case model.RoleUser:
			var blocks []sdk.ContentBlockParamUnion
			// Whitespace-only text is rejected by the API.
			if strings.TrimSpace(msg.Content) != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for j, img := range msg.Images {
				block, err := imageBlock(img)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: messages[%d].images[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				blocks = append(blocks, block)
			}
			for j, f := range msg.Files {
				block, err := documentBlock(f)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: messages[%d].files[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				blocks = append(blocks, block)
			}
			appendTurn(false, blocks)

		case model.RoleAssistant:
			// A thinking turn goes back with its thinking first, as the
			// API requires when the model's tool use continues.
			blocks := thinkingBlocks(msg)
			if strings.TrimSpace(msg.Content) != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for _, tc := range msg.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(tc.ID, toolInput(tc, logger), tc.Function.Name))
			}
			appendTurn(true, blocks)

		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, nil, fmt.Errorf("%w: messages[%d]: a tool message needs tool_call_id, the id of the assistant tool call it answers", ErrInvalidRequest, i)
			}
			result := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			// A blank text block is rejected; a blank result goes without content.
			if strings.TrimSpace(msg.Content) != "" {
				result.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: msg.Content}}}
			}
			if msg.ToolCallError {
				result.IsError = sdk.Bool(true)
			}
			appendTurn(false, []sdk.ContentBlockParamUnion{{OfToolResult: &result}})

		default:
			return nil, nil, fmt.Errorf("%w: messages[%d].role is %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
	}
	out := make([]sdk.MessageParam, len(turns))
	for i, t := range turns {
		if t.assistant {
			out[i] = sdk.NewAssistantMessage(t.blocks...)
		} else {
			out[i] = sdk.NewUserMessage(t.blocks...)
		}
	}
	return system, out, nil
}

// thinkingBlocks are the thinking and redacted thinking blocks of an
// assistant message: its reasoning with the signature kept in
// ProviderData, and the redacted blocks' data. Reasoning without a
// signature (another provider's) is not sent: the API would reject it.
func thinkingBlocks(msg model.Message) []sdk.ContentBlockParamUnion {
	var blocks []sdk.ContentBlockParamUnion
	if sig, _ := msg.ProviderData[signatureKey].(string); sig != "" && msg.ReasoningContent != "" {
		blocks = append(blocks, sdk.NewThinkingBlock(sig, msg.ReasoningContent))
	}
	switch data := msg.ProviderData[redactedKey].(type) {
	case string:
		if data != "" {
			blocks = append(blocks, sdk.NewRedactedThinkingBlock(data))
		}
	case []string:
		for _, d := range data {
			blocks = append(blocks, sdk.NewRedactedThinkingBlock(d))
		}
	case []any: // read back from JSON
		for _, d := range data {
			if s, ok := d.(string); ok && s != "" {
				blocks = append(blocks, sdk.NewRedactedThinkingBlock(s))
			}
		}
	}
	return blocks
}

// thinkingParam is the request's thinking parameter. The budget must be
// below max_tokens, which a request may set, so it is checked here.
func thinkingParam(t *Thinking, maxTokens int) (sdk.ThinkingConfigParamUnion, error) {
	switch t.Type {
	case "enabled":
		if t.BudgetTokens >= maxTokens {
			return sdk.ThinkingConfigParamUnion{}, fmt.Errorf("%w: thinking.budget_tokens %d is not below max_tokens %d: raise max_tokens or lower the budget", ErrInvalidRequest, t.BudgetTokens, maxTokens)
		}
		return sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{
			BudgetTokens: int64(t.BudgetTokens),
			Display:      sdk.ThinkingConfigEnabledDisplay(t.Display),
		}}, nil
	case "adaptive":
		return sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
			Display: sdk.ThinkingConfigAdaptiveDisplay(t.Display),
		}}, nil
	default: // "disabled"; New checked the type
		return sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}, nil
	}
}

// toolInput is the tool_use input for a call: its arguments as a JSON
// object. Arguments that are not one are sent as {} so that the
// conversation can go on; the tool result already told the model.
func toolInput(tc model.ToolCall, logger *slog.Logger) json.RawMessage {
	args := strings.TrimSpace(tc.Function.Arguments)
	if args == "" {
		return json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &obj); err != nil || obj == nil {
		logger.Debug("anthropic: tool call arguments are not a JSON object; sending {}", "tool_call_id", tc.ID, "tool", tc.Function.Name)
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// Image media types the Messages API accepts.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

func imageBlock(img model.Image) (sdk.ContentBlockParamUnion, error) {
	switch {
	case strings.HasPrefix(img.URL, "data:"):
		mediaType, data, err := parseDataURL(img.URL)
		if err != nil {
			return sdk.ContentBlockParamUnion{}, err
		}
		return base64Image(mediaType, data)
	case img.URL != "":
		return sdk.NewImageBlock(sdk.URLImageSourceParam{URL: img.URL}), nil
	case len(img.Content) > 0:
		mediaType := img.MimeType
		if mediaType == "" {
			mediaType = http.DetectContentType(img.Content)
		}
		return base64Image(mediaType, base64.StdEncoding.EncodeToString(img.Content))
	default:
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("image has neither url nor content: set one of them")
	}
}

// documentBlock sends a PDF as base64 and a text file as plain text, the
// two document sources the Messages API takes inline.
func documentBlock(f model.File) (sdk.ContentBlockParamUnion, error) {
	if len(f.Content) == 0 {
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("file %q has no content", f.Filename)
	}
	switch {
	case strings.EqualFold(strings.TrimSpace(f.MimeType), "application/pdf"):
		return sdk.NewDocumentBlock(sdk.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(f.Content)}), nil
	case f.IsText():
		return sdk.NewDocumentBlock(sdk.PlainTextSourceParam{Data: string(f.Content)}), nil
	}
	return sdk.ContentBlockParamUnion{}, fmt.Errorf("file %q (%s) is not supported by Anthropic: send a PDF or a text file", f.Filename, f.MimeType)
}

func base64Image(mediaType, data string) (sdk.ContentBlockParamUnion, error) {
	mediaType = strings.ToLower(strings.TrimSpace(mediaType))
	if !imageTypes[mediaType] {
		return sdk.ContentBlockParamUnion{}, fmt.Errorf("media type %q is not supported by Anthropic: use image/jpeg, image/png, image/gif or image/webp", mediaType)
	}
	return sdk.NewImageBlockBase64(mediaType, data), nil
}

// parseDataURL splits a base64 data URL ("data:image/png;base64,...").
func parseDataURL(u string) (mediaType, data string, err error) {
	header, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	if !ok {
		return "", "", fmt.Errorf("data URL has no comma: use data:<media type>;base64,<data>")
	}
	mediaType, enc, _ := strings.Cut(header, ";")
	if enc != "base64" {
		return "", "", fmt.Errorf("data URL is not base64: use data:<media type>;base64,<data>")
	}
	return mediaType, payload, nil
}

// emptySchema is sent for a tool without parameters: input_schema must be
// an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func convertTools(defs []model.ToolDefinition) ([]sdk.ToolUnionParam, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	tools := make([]sdk.ToolUnionParam, 0, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d].name is empty: every tool needs a name", ErrInvalidRequest, i)
		}
		schema := d.Parameters
		if len(schema) == 0 || string(schema) == "null" {
			schema = emptySchema
		} else if !json.Valid(schema) {
			return nil, fmt.Errorf("%w: tools[%d] (%s): parameters are not valid JSON: give a JSON Schema object", ErrInvalidRequest, i, d.Name)
		}
		tool := sdk.ToolParam{
			Name: d.Name,
			// Sent verbatim: the parameters schema is already what the
			// model should see.
			InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
		}
		if d.Description != "" {
			tool.Description = sdk.String(d.Description)
		}
		if d.Strict {
			tool.Strict = sdk.Bool(true)
		}
		tools = append(tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return tools, nil
}

func convertToolChoice(tc *model.ToolChoice) (sdk.ToolChoiceUnionParam, error) {
	if tc.Function != "" {
		return sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: tc.Function}}, nil
	}
	switch tc.Mode {
	case "auto":
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{}}, nil
	case "required", "any":
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}, nil
	case "none":
		none := sdk.NewToolChoiceNoneParam()
		return sdk.ToolChoiceUnionParam{OfNone: &none}, nil
	}
	return sdk.ToolChoiceUnionParam{}, fmt.Errorf("%w: tool_choice mode %q: use none, auto, required, or name a function", ErrInvalidRequest, tc.Mode)
}

func convertEffort(e string) (sdk.OutputConfigEffort, error) {
	switch e {
	case "minimal", "low":
		return sdk.OutputConfigEffortLow, nil
	case "medium":
		return sdk.OutputConfigEffortMedium, nil
	case "high":
		return sdk.OutputConfigEffortHigh, nil
	case "xhigh":
		return sdk.OutputConfigEffortXhigh, nil
	case "max":
		return sdk.OutputConfigEffortMax, nil
	}
	return "", fmt.Errorf("%w: reasoning_effort %q: use low, medium, high, xhigh or max", ErrInvalidRequest, e)
}
