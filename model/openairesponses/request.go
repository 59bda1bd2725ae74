package openairesponses

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agno-go/agno/model"
)

// ErrInvalidRequest wraps every problem found while mapping a model.Request.
var ErrInvalidRequest = errors.New("openai-responses: invalid request")

// Keys of model.Message.ProviderData this package writes on a response
// and reads back from the history. response_id and reasoning_output are
// agno's names.
const (
	// pdResponseID is the response's id, continued by previous_response_id.
	pdResponseID = "response_id"
	// pdReasoning is the reasoning item (an object), or items (a list),
	// as the API returned them, sent back on stateless turns.
	pdReasoning = "reasoning_output"
	// pdCallItems maps each call_id to its function_call item id (fc_…),
	// sent back with the call.
	pdCallItems = "function_call_ids"
)

// Keys of model.Request.Extra with the Python SDK's meaning (agno passes
// request_params through to it); every other key is a body field.
const (
	extraBody    = "extra_body"
	extraHeaders = "extra_headers"
	extraQuery   = "extra_query"
)

// encryptedReasoning is the include value that returns reasoning items
// with their encrypted content, for stateless (store=false) turns.
const encryptedReasoning = responses.ResponseIncludableReasoningEncryptedContent

func (m *Model) params(req *model.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{Model: m.info.ID}
	o := m.opts

	var include []responses.ResponseIncludable
	for _, inc := range o.Include {
		include = append(include, responses.ResponseIncludable(inc))
	}
	history := req.Messages
	switch {
	case m.reasoning && m.storeOff():
		// Stateless: reasoning comes back encrypted, to be sent again.
		p.Store = param.NewOpt(false)
		if !slices.Contains(include, encryptedReasoning) {
			include = append(include, encryptedReasoning)
		}
	case m.chains():
		p.Store = param.NewOpt(true)
		if i, id := lastResponse(history); id != "" {
			// The server holds everything up to that response.
			p.PreviousResponseID = param.NewOpt(id)
			history = history[i+1:]
		}
	case o.Store != nil:
		p.Store = param.NewOpt(*o.Store)
	}
	p.Include = include

	items, err := m.input(req.Messages, history)
	if err != nil {
		return p, err
	}
	p.Input.OfInputItemList = items

	if len(req.Tools) > 0 {
		if p.Tools, err = toolParams(req.Tools); err != nil {
			return p, err
		}
	}
	if req.ToolChoice != nil {
		if p.ToolChoice, err = toolChoiceParam(req.ToolChoice); err != nil {
			return p, err
		}
	}
	if o.ParallelToolCalls != nil {
		p.ParallelToolCalls = param.NewOpt(*o.ParallelToolCalls)
	}
	if o.MaxToolCalls != nil {
		p.MaxToolCalls = param.NewOpt(int64(*o.MaxToolCalls))
	}
	if req.ResponseFormat != nil {
		if p.Text.Format, err = m.formatParam(req.ResponseFormat); err != nil {
			return p, err
		}
	}
	if o.Verbosity != "" {
		p.Text.Verbosity = responses.ResponseTextConfigVerbosity(o.Verbosity)
	}

	if req.ReasoningEffort != "" {
		p.Reasoning.Effort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	if o.ReasoningSummary != "" {
		p.Reasoning.Summary = shared.ReasoningSummary(o.ReasoningSummary)
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.TopP != nil {
		p.TopP = param.NewOpt(*req.TopP)
	}
	switch {
	case req.MaxTokens != nil:
		p.MaxOutputTokens = param.NewOpt(int64(*req.MaxTokens))
	case o.MaxOutputTokens != nil:
		p.MaxOutputTokens = param.NewOpt(int64(*o.MaxOutputTokens))
	}
	if req.User != "" {
		p.User = param.NewOpt(req.User)
	}
	if len(o.Metadata) > 0 {
		p.Metadata = shared.Metadata(maps.Clone(o.Metadata))
	}
	if o.Truncation != "" {
		p.Truncation = responses.ResponseNewParamsTruncation(o.Truncation)
	}
	if o.ServiceTier != "" {
		p.ServiceTier = responses.ResponseNewParamsServiceTier(o.ServiceTier)
	}
	// The Responses API has no stop, seed or penalties (it refuses them):
	// agno's OpenAIResponses sends none, and neither does this package.
	// request_params may still send them to a server that takes them.
	if len(req.Stop) > 0 || req.Seed != nil || req.FrequencyPenalty != nil || req.PresencePenalty != nil {
		m.logger.Debug("openai-responses: stop, seed, frequency_penalty and presence_penalty are not parameters of the Responses API; not sent", "model", m.info.ID)
	}
	if extra := bodyExtras(req.Extra); len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, nil
}

// lastResponse finds the last assistant message carrying a response id.
func lastResponse(msgs []model.Message) (int, string) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != model.RoleAssistant {
			continue
		}
		if id, _ := msgs[i].ProviderData[pdResponseID].(string); id != "" {
			return i, id
		}
	}
	return -1, ""
}

// input renders history (a tail of all) as input items. all gives the
// call ids this provider issued, which go back verbatim.
func (m *Model) input(all, history []model.Message) (responses.ResponseInputParam, error) {
	// Function call item ids (fc_…) by call_id, from every assistant turn.
	itemIDs := map[string]string{}
	for _, msg := range all {
		for callID, itemID := range stringMap(msg.ProviderData[pdCallItems]) {
			itemIDs[callID] = itemID
		}
	}
	callID := func(id string) string {
		// A call another provider issued ("toolu_…") gets the call_ prefix
		// the API expects, as agno does; the mapping is pure, so calls
		// and their outputs still match.
		if _, ours := itemIDs[id]; ours || id == "" || strings.HasPrefix(id, "call_") {
			return id
		}
		return "call_" + id
	}
	offset := len(all) - len(history)
	out := make(responses.ResponseInputParam, 0, len(history))
	for j, msg := range history {
		i := offset + j
		switch msg.Role {
		case model.RoleSystem:
			// agno's role_map sends system as developer.
			out = append(out, textMessage(responses.EasyInputMessageRoleDeveloper, msg.Content))
		case model.RoleUser:
			item, err := userMessage(msg)
			if err != nil {
				return nil, fmt.Errorf("%w: messages[%d]: %v", ErrInvalidRequest, i, err)
			}
			out = append(out, item)
		case model.RoleAssistant:
			reasoning, err := reasoningItems(msg.ProviderData[pdReasoning])
			if err != nil {
				return nil, fmt.Errorf("%w: messages[%d].provider_data.%s: %v", ErrInvalidRequest, i, pdReasoning, err)
			}
			// In the order the model produced them: reasoning, text, calls.
			out = append(out, reasoning...)
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				out = append(out, textMessage(responses.EasyInputMessageRoleAssistant, msg.Content))
			}
			for _, tc := range msg.ToolCalls {
				fc := &responses.ResponseFunctionToolCallParam{
					CallID: callID(tc.ID), Name: tc.Function.Name, Arguments: tc.Function.Arguments,
					Status: responses.ResponseFunctionToolCallStatusCompleted,
				}
				if id := itemIDs[tc.ID]; id != "" {
					fc.ID = param.NewOpt(id)
				}
				out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCall: fc})
			}
		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("%w: messages[%d]: a tool message needs tool_call_id, the call_id of the function call it answers", ErrInvalidRequest, i)
			}
			fo := &responses.ResponseInputItemFunctionCallOutputParam{CallID: param.NewOpt(callID(msg.ToolCallID))}
			fo.Output.OfString = param.NewOpt(msg.Content)
			out = append(out, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: fo})
		default:
			return nil, fmt.Errorf("%w: messages[%d]: unknown role %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
	}
	return out, nil
}

func textMessage(role responses.EasyInputMessageRole, text string) responses.ResponseInputItemUnionParam {
	msg := &responses.EasyInputMessageParam{Role: role}
	msg.Content.OfString = param.NewOpt(text)
	return responses.ResponseInputItemUnionParam{OfMessage: msg}
}

// userMessage is text alone, or input_text followed by input_image and
// input_file parts.
func userMessage(msg model.Message) (responses.ResponseInputItemUnionParam, error) {
	if len(msg.Images) == 0 && len(msg.Files) == 0 {
		return textMessage(responses.EasyInputMessageRoleUser, msg.Content), nil
	}
	parts := responses.ResponseInputMessageContentListParam{{OfInputText: &responses.ResponseInputTextParam{Text: msg.Content}}}
	for j, img := range msg.Images {
		part, err := imagePart(img)
		if err != nil {
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("images[%d]: %v", j, err)
		}
		parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: part})
	}
	for j, f := range msg.Files {
		part, err := filePart(f)
		if err != nil {
			return responses.ResponseInputItemUnionParam{}, fmt.Errorf("files[%d]: %v", j, err)
		}
		parts = append(parts, responses.ResponseInputContentUnionParam{OfInputFile: part})
	}
	um := &responses.EasyInputMessageParam{Role: responses.EasyInputMessageRoleUser}
	um.Content.OfInputItemContentList = parts
	return responses.ResponseInputItemUnionParam{OfMessage: um}, nil
}

func imagePart(img model.Image) (*responses.ResponseInputImageParam, error) {
	part := &responses.ResponseInputImageParam{Detail: responses.ResponseInputImageDetail(img.Detail)}
	switch {
	case img.URL != "":
		part.ImageURL = param.NewOpt(img.URL)
	case len(img.Content) > 0:
		mt := img.MimeType
		if mt == "" {
			if mt = http.DetectContentType(img.Content); !strings.HasPrefix(mt, "image/") {
				mt = "image/jpeg"
			}
		}
		part.ImageURL = param.NewOpt("data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(img.Content))
	default:
		return nil, errors.New("an image needs url or content")
	}
	return part, nil
}

// filePart sends a file inline as a data URL with its name, or by an
// OpenAI file id ("file-…"), as agno's _format_file_for_input does.
func filePart(f model.File) (*responses.ResponseInputFileParam, error) {
	name := f.Filename
	if name == "" {
		name = "document"
	}
	switch {
	case len(f.Content) > 0:
		mt := f.MimeType
		if mt == "" {
			mt = mime.TypeByExtension(path.Ext(name))
		}
		if mt == "" {
			mt = "application/octet-stream"
		}
		return &responses.ResponseInputFileParam{
			Filename: param.NewOpt(name),
			FileData: param.NewOpt("data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(f.Content)),
		}, nil
	case strings.HasPrefix(f.ID, "file-"):
		return &responses.ResponseInputFileParam{FileID: param.NewOpt(f.ID)}, nil
	}
	return nil, errors.New("a file needs content, or an OpenAI file id (file-…)")
}

// reasoningItems reads the reasoning item(s) a response left in its
// provider data (an object, or a list of them) and sends each back as
// the API returned it.
func reasoningItems(v any) ([]responses.ResponseInputItemUnionParam, error) {
	if v == nil {
		return nil, nil
	}
	var list []any
	switch t := v.(type) {
	case []any:
		list = t
	case []map[string]any:
		for _, e := range t {
			list = append(list, e)
		}
	default:
		list = []any{t}
	}
	out := make([]responses.ResponseInputItemUnionParam, 0, len(list))
	for k, e := range list {
		obj, ok := e.(map[string]any)
		if !ok || obj["type"] != "reasoning" {
			return nil, fmt.Errorf("item %d is not a reasoning item ({\"type\":\"reasoning\",...}): %.100v", k, e)
		}
		raw, err := json.Marshal(withoutNulls(obj))
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", k, err)
		}
		r := &responses.ResponseReasoningItemParam{}
		param.SetJSON(raw, r)
		out = append(out, responses.ResponseInputItemUnionParam{OfReasoning: r})
	}
	return out, nil
}

// withoutNulls drops null members, as agno's model_dump(exclude_none).
func withoutNulls(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// stringMap reads a map[string]string that may have been through JSON.
func stringMap(v any) map[string]string {
	switch t := v.(type) {
	case map[string]string:
		return t
	case map[string]any:
		out := make(map[string]string, len(t))
		for k, x := range t {
			if s, ok := x.(string); ok {
				out[k] = s
			}
		}
		return out
	}
	return nil
}

// defaultToolParameters is what agno sends for a function without
// parameters.
var defaultToolParameters = json.RawMessage(`{"type":"object","properties":{},"required":[]}`)

func toolParams(defs []model.ToolDefinition) ([]responses.ToolUnionParam, error) {
	out := make([]responses.ToolUnionParam, 0, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d]: name is empty", ErrInvalidRequest, i)
		}
		params, err := functionParameters(d.Parameters)
		if err != nil {
			return nil, fmt.Errorf("%w: tools[%d] (%s): parameters: %v", ErrInvalidRequest, i, d.Name, err)
		}
		fn := &responses.FunctionToolParam{Name: d.Name, Parameters: params}
		if d.Description != "" {
			fn.Description = param.NewOpt(d.Description)
		}
		// agno sends strict only when the function sets it.
		if d.Strict {
			fn.Strict = param.NewOpt(true)
		}
		out = append(out, responses.ToolUnionParam{OfFunction: fn})
	}
	return out, nil
}

// functionParameters keeps each member as raw JSON, so property order
// reaches the model as declared, except that a property typed with a
// list of types gets the first one, as agno's _format_tool_params does.
func functionParameters(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = defaultToolParameters
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	out := make(map[string]any, len(members))
	for k, v := range members {
		out[k] = v
	}
	props, ok := members["properties"]
	if !ok {
		return out, nil
	}
	var byName map[string]json.RawMessage
	if json.Unmarshal(props, &byName) != nil {
		return out, nil
	}
	changed := false
	for name, prop := range byName {
		var p map[string]json.RawMessage
		if json.Unmarshal(prop, &p) != nil {
			continue
		}
		var types []json.RawMessage
		if json.Unmarshal(p["type"], &types) != nil || len(types) == 0 {
			continue
		}
		p["type"] = types[0]
		if b, err := json.Marshal(p); err == nil {
			byName[name], changed = b, true
		}
	}
	if changed {
		b, err := json.Marshal(byName)
		if err != nil {
			return nil, err
		}
		out["properties"] = json.RawMessage(b)
	}
	return out, nil
}

func toolChoiceParam(tc *model.ToolChoice) (responses.ResponseNewParamsToolChoiceUnion, error) {
	var u responses.ResponseNewParamsToolChoiceUnion
	if tc.Function != "" {
		u.OfFunctionTool = &responses.ToolChoiceFunctionParam{Name: tc.Function}
		return u, nil
	}
	switch tc.Mode {
	case "none", "auto", "required":
		u.OfToolChoiceMode = param.NewOpt(responses.ToolChoiceOptions(tc.Mode))
		return u, nil
	}
	return u, fmt.Errorf("%w: tool_choice %q: use none, auto, required or a function name", ErrInvalidRequest, tc.Mode)
}

// formatParam is text.format: a json_schema named after the output type
// with agno's strict_output, json_object, or text.
func (m *Model) formatParam(rf *model.ResponseFormat) (responses.ResponseFormatTextConfigUnionParam, error) {
	var u responses.ResponseFormatTextConfigUnionParam
	switch rf.Type {
	case "json_object":
		u.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case "text":
		u.OfText = &shared.ResponseFormatTextParam{}
	case "json_schema", "":
		var schema map[string]any
		if len(rf.Schema) == 0 {
			return u, fmt.Errorf("%w: response_format json_schema needs a schema (or use type json_object)", ErrInvalidRequest)
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(rf.Schema, &members); err != nil {
			return u, fmt.Errorf("%w: response_format schema is not a JSON object: %v", ErrInvalidRequest, err)
		}
		schema = make(map[string]any, len(members))
		for k, v := range members {
			schema[k] = v
		}
		name := rf.Name
		if name == "" {
			name = "response"
		}
		strict := rf.Strict
		if m.opts.StrictOutput != nil && !*m.opts.StrictOutput {
			strict = false
		}
		u.OfJSONSchema = &responses.ResponseFormatTextJSONSchemaConfigParam{Name: name, Schema: schema, Strict: param.NewOpt(strict)}
	default:
		return u, fmt.Errorf("%w: response_format type %q: use json_schema, json_object or text", ErrInvalidRequest, rf.Type)
	}
	return u, nil
}

// bodyExtras flattens Extra into body fields: extra_body's entries are
// merged over the plain keys, as in the Python SDK; headers and query
// entries go to requestOptions.
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
		out[extraBody] = v
	}
	return out
}

// requestOptions turns Extra's extra_headers and extra_query into options.
func requestOptions(extra map[string]any) []option.RequestOption {
	var opts []option.RequestOption
	if h, ok := extra[extraHeaders].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			opts = append(opts, option.WithHeader(k, fmt.Sprint(h[k])))
		}
	}
	if q, ok := extra[extraQuery].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(q)) {
			opts = append(opts, option.WithQuery(k, fmt.Sprint(q[k])))
		}
	}
	return opts
}
