package openai

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agno-go/agno/model"
)

// ErrInvalidRequest wraps every problem found while mapping a model.Request.
var ErrInvalidRequest = errors.New("openai: invalid request")

// Keys of model.Request.Extra with the meaning the Python SDK gives them
// (agno passes request_params through to it); every other key is merged
// into the top level of the body.
const (
	extraBody    = "extra_body"
	extraHeaders = "extra_headers"
	extraQuery   = "extra_query"
)

// defaultToolParameters is what agno sends for a function without
// parameters.
var defaultToolParameters = json.RawMessage(`{"type":"object","properties":{},"required":[]}`)

func (m *Model) params(req *model.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: m.info.ID}
	msgs, err := m.messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs

	if len(req.Tools) > 0 {
		tools, err := toolParams(req.Tools)
		if err != nil {
			return p, err
		}
		p.Tools = tools
		if req.ToolChoice != nil {
			tc, err := toolChoiceParam(req.ToolChoice)
			if err != nil {
				return p, err
			}
			p.ToolChoice = tc
		}
	}
	if f := req.ResponseFormat; f != nil {
		if f.Type == "json_schema" && !m.info.NativeStructuredOutputs {
			// An endpoint that Info says enforces no schema gets JSON mode,
			// as the agent asks of such a model.
			f = &model.ResponseFormat{Type: "json_object"}
		}
		rf, err := responseFormatParam(f)
		if err != nil {
			return p, err
		}
		p.ResponseFormat = rf
	}
	if req.Stream {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}

	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = param.NewOpt(*req.TopP)
	}
	if req.MaxTokens != nil {
		p.MaxTokens = param.NewOpt(int64(*req.MaxTokens))
	}
	if len(req.Stop) > 0 {
		p.Stop.OfStringArray = req.Stop
	}
	if req.Seed != nil {
		p.Seed = param.NewOpt(*req.Seed)
	}
	if req.FrequencyPenalty != nil {
		p.FrequencyPenalty = param.NewOpt(*req.FrequencyPenalty)
	}
	if req.PresencePenalty != nil {
		p.PresencePenalty = param.NewOpt(*req.PresencePenalty)
	}
	if req.User != "" {
		p.User = param.NewOpt(req.User)
	}
	if req.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}

	if extra := bodyExtras(req.Extra); len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, nil
}

// bodyExtras flattens Extra into top-level body fields: extra_body's
// entries are merged (winning over plain keys, as in the Python SDK);
// header and query entries are left to requestOptions.
func bodyExtras(extra map[string]any) map[string]any {
	if len(extra) == 0 {
		return nil
	}
	out := make(map[string]any, len(extra))
	for k, v := range extra {
		switch k {
		case extraHeaders, extraQuery, extraBody:
		default:
			out[k] = v
		}
	}
	if body, ok := extra[extraBody].(map[string]any); ok {
		maps.Copy(out, body)
	} else if v, ok := extra[extraBody]; ok {
		out[extraBody] = v // not a map: pass it through untouched
	}
	return out
}

// requestOptions turns Extra's extra_headers and extra_query into options.
func requestOptions(req *model.Request) []option.RequestOption {
	var opts []option.RequestOption
	for _, k := range sortedKeys(req.Extra[extraHeaders]) {
		opts = append(opts, option.WithHeader(k, fmt.Sprint(req.Extra[extraHeaders].(map[string]any)[k])))
	}
	for _, k := range sortedKeys(req.Extra[extraQuery]) {
		opts = append(opts, option.WithQuery(k, fmt.Sprint(req.Extra[extraQuery].(map[string]any)[k])))
	}
	return opts
}

func sortedKeys(v any) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}

func (m *Model) messages(in []model.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(in))
	for i, msg := range in {
		var u sdk.ChatCompletionMessageParamUnion
		switch msg.Role {
		case model.RoleSystem:
			// OpenAIChat maps system to "developer"; OpenAILike keeps it.
			if m.compatible {
				s := &sdk.ChatCompletionSystemMessageParam{}
				s.Content.OfString = param.NewOpt(msg.Content)
				if msg.Name != "" {
					s.Name = param.NewOpt(msg.Name)
				}
				u.OfSystem = s
			} else {
				d := &sdk.ChatCompletionDeveloperMessageParam{}
				d.Content.OfString = param.NewOpt(msg.Content)
				if msg.Name != "" {
					d.Name = param.NewOpt(msg.Name)
				}
				u.OfDeveloper = d
			}
		case model.RoleUser:
			usr := &sdk.ChatCompletionUserMessageParam{}
			if len(msg.Images) == 0 && len(msg.Files) == 0 {
				usr.Content.OfString = param.NewOpt(msg.Content)
			} else {
				parts := []sdk.ChatCompletionContentPartUnionParam{sdk.TextContentPart(msg.Content)}
				for j, img := range msg.Images {
					part, err := imagePart(img)
					if err != nil {
						return nil, fmt.Errorf("%w: messages[%d].images[%d]: %v", ErrInvalidRequest, i, j, err)
					}
					parts = append(parts, part)
				}
				for j, f := range msg.Files {
					part, err := filePart(f)
					if err != nil {
						return nil, fmt.Errorf("%w: messages[%d].files[%d]: %v", ErrInvalidRequest, i, j, err)
					}
					parts = append(parts, part)
				}
				usr.Content.OfArrayOfContentParts = parts
			}
			if msg.Name != "" {
				usr.Name = param.NewOpt(msg.Name)
			}
			u.OfUser = usr
		case model.RoleAssistant:
			a := &sdk.ChatCompletionAssistantMessageParam{}
			// agno sends "" rather than null content, tool calls or not.
			a.Content.OfString = param.NewOpt(msg.Content)
			if msg.Name != "" {
				a.Name = param.NewOpt(msg.Name)
			}
			for _, tc := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID: m.outgoingCallID(tc.ID),
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      tc.Function.Name,
							Arguments: tc.Function.Arguments,
						},
					},
				})
			}
			u.OfAssistant = a
		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("%w: messages[%d]: a tool message needs tool_call_id, the id of the assistant tool call it answers", ErrInvalidRequest, i)
			}
			t := &sdk.ChatCompletionToolMessageParam{ToolCallID: m.outgoingCallID(msg.ToolCallID)}
			t.Content.OfString = param.NewOpt(msg.Content)
			u.OfTool = t
		default:
			return nil, fmt.Errorf("%w: messages[%d]: unknown role %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
		out = append(out, u)
	}
	return out, nil
}

// outgoingCallID gives OpenAI a "call_" id for calls that came from another
// provider (e.g. Anthropic's "toolu_…"), as agno does. Compatible endpoints
// get ids back verbatim: some (Mistral) validate the ids they issued.
// The mapping is a pure function, so calls and results keep matching.
func (m *Model) outgoingCallID(id string) string {
	if m.compatible || id == "" || strings.HasPrefix(id, "call_") {
		return id
	}
	return "call_" + id
}

func imagePart(img model.Image) (sdk.ChatCompletionContentPartUnionParam, error) {
	var u string
	switch {
	case img.URL != "":
		u = img.URL
	case len(img.Content) > 0:
		mime := img.MimeType
		if mime == "" {
			mime = http.DetectContentType(img.Content)
			if !strings.HasPrefix(mime, "image/") {
				mime = "image/jpeg"
			}
		}
		u = "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img.Content)
	default:
		return sdk.ChatCompletionContentPartUnionParam{}, errors.New("an image needs url or content")
	}
	iu := sdk.ChatCompletionContentPartImageImageURLParam{URL: u}
	if img.Detail != "" {
		iu.Detail = img.Detail
	}
	return sdk.ImageContentPart(iu), nil
}

// filePart sends a document inline: a text file as text (file parts
// take PDFs only on most endpoints), anything else as a data URL in the
// Chat Completions "file" content part.
func filePart(f model.File) (sdk.ChatCompletionContentPartUnionParam, error) {
	if len(f.Content) == 0 {
		return sdk.ChatCompletionContentPartUnionParam{}, errors.New("a file needs content")
	}
	if f.IsText() {
		return sdk.TextContentPart("File " + cmp.Or(f.Filename, "file") + ":\n" + string(f.Content)), nil
	}
	mime := f.MimeType
	if mime == "" {
		mime = http.DetectContentType(f.Content)
	}
	name := f.Filename
	if name == "" {
		name = "file"
	}
	return sdk.FileContentPart(sdk.ChatCompletionContentPartFileFileParam{
		FileData: param.NewOpt("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(f.Content)),
		Filename: param.NewOpt(name),
	}), nil
}

func toolParams(defs []model.ToolDefinition) ([]sdk.ChatCompletionToolUnionParam, error) {
	out := make([]sdk.ChatCompletionToolUnionParam, 0, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d]: name is empty", ErrInvalidRequest, i)
		}
		params, err := functionParameters(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: tools[%d] (%s): parameters: %v", ErrInvalidRequest, i, d.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: d.Name, Parameters: params}
		if d.Description != "" {
			fn.Description = param.NewOpt(d.Description)
		}
		if d.Strict {
			fn.Strict = param.NewOpt(true)
		}
		out = append(out, sdk.ChatCompletionFunctionTool(fn))
	}
	return out, nil
}

// functionParameters keeps each top-level member as raw JSON so nested
// property order reaches the model exactly as the tool declared it.
func functionParameters(raw json.RawMessage) (shared.FunctionParameters, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = defaultToolParameters
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	out := make(shared.FunctionParameters, len(members))
	for k, v := range members {
		out[k] = v
	}
	return out, nil
}

func toolChoiceParam(tc *model.ToolChoice) (sdk.ChatCompletionToolChoiceOptionUnionParam, error) {
	var u sdk.ChatCompletionToolChoiceOptionUnionParam
	if tc.Function != "" {
		u.OfFunctionToolChoice = &sdk.ChatCompletionNamedToolChoiceParam{
			Function: sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: tc.Function},
		}
		return u, nil
	}
	switch tc.Mode {
	case "none", "auto", "required":
		u.OfAuto = param.NewOpt(tc.Mode)
		return u, nil
	}
	return u, fmt.Errorf("%w: tool_choice %q: use none, auto, required or a function name", ErrInvalidRequest, tc.Mode)
}

func responseFormatParam(rf *model.ResponseFormat) (sdk.ChatCompletionNewParamsResponseFormatUnion, error) {
	var u sdk.ChatCompletionNewParamsResponseFormatUnion
	switch rf.Type {
	case "json_object":
		u.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case "text":
		u.OfText = &shared.ResponseFormatTextParam{}
	case "json_schema", "":
		if len(rf.Schema) == 0 {
			return u, fmt.Errorf("%w: response_format json_schema needs a schema (or use type json_object)", ErrInvalidRequest)
		}
		if !json.Valid(rf.Schema) {
			return u, fmt.Errorf("%w: response_format schema is not valid JSON", ErrInvalidRequest)
		}
		name := rf.Name
		if name == "" {
			name = "response"
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: rf.Schema}
		js.Strict = param.NewOpt(rf.Strict)
		u.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	default:
		return u, fmt.Errorf("%w: response_format type %q: use json_schema, json_object or text", ErrInvalidRequest, rf.Type)
	}
	return u, nil
}
