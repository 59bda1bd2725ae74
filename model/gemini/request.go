package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"

	"google.golang.org/genai"

	"github.com/agno-go/agno/model"
)

// Keys of Message.ProviderData. thought_signature is agno's key, for the
// signature of the message's text; agno keeps a call's signature in its
// tool_call dict, which model.ToolCall has no room for, so they go by
// call id under toolCallSignaturesKey.
const (
	thoughtSignatureKey   = "thought_signature"
	toolCallSignaturesKey = "tool_call_thought_signatures"
)

// localCallIDPrefix marks ids made up for function calls the API sent
// without one: they are not sent back, since the API never knew them.
const localCallIDPrefix = "call_local_"

// newRequest maps a model.Request onto contents and a generation config.
func (m *Model) newRequest(req *model.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	system, contents, err := m.convertMessages(req.Messages)
	if err != nil {
		return nil, nil, err
	}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction: system,
		TopK:              m.topK,
		SafetySettings:    m.safety,
	}
	if m.thinking != nil {
		tc := *m.thinking
		cfg.ThinkingConfig = &tc
	}
	if req.Temperature != nil {
		cfg.Temperature = f32(*req.Temperature)
	}
	if req.TopP != nil {
		cfg.TopP = f32(*req.TopP)
	}
	if req.MaxTokens != nil {
		if *req.MaxTokens <= 0 || *req.MaxTokens > math.MaxInt32 {
			return nil, nil, fmt.Errorf("%w: max_tokens is %d: set a positive number or leave it out for the model's default", ErrInvalidRequest, *req.MaxTokens)
		}
		cfg.MaxOutputTokens = int32(*req.MaxTokens)
	}
	if len(req.Stop) > 0 {
		cfg.StopSequences = req.Stop
	}
	if req.Seed != nil {
		if *req.Seed < math.MinInt32 || *req.Seed > math.MaxInt32 {
			return nil, nil, fmt.Errorf("%w: seed %d does not fit Gemini's 32-bit seed: use a value from %d to %d", ErrInvalidRequest, *req.Seed, math.MinInt32, math.MaxInt32)
		}
		s := int32(*req.Seed)
		cfg.Seed = &s
	}
	if req.FrequencyPenalty != nil {
		cfg.FrequencyPenalty = f32(*req.FrequencyPenalty)
	}
	if req.PresencePenalty != nil {
		cfg.PresencePenalty = f32(*req.PresencePenalty)
	}
	if req.ReasoningEffort != "" {
		if err := m.applyEffort(cfg, req.ReasoningEffort); err != nil {
			return nil, nil, err
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema":
			var schema any
			if err := json.Unmarshal(rf.Schema, &schema); err != nil {
				return nil, nil, fmt.Errorf("%w: response_format %q: the schema is not valid JSON: %v", ErrInvalidRequest, rf.Name, err)
			}
			cfg.ResponseMIMEType = "application/json"
			cfg.ResponseJsonSchema = schema
		case "json_object":
			cfg.ResponseMIMEType = "application/json"
		default:
			return nil, nil, fmt.Errorf("%w: response_format type %q: use json_schema or json_object", ErrInvalidRequest, rf.Type)
		}
	}
	if cfg.Tools, err = convertTools(req.Tools); err != nil {
		return nil, nil, err
	}
	if req.ToolChoice != nil && len(req.Tools) > 0 {
		if cfg.ToolConfig, err = convertToolChoice(req.ToolChoice); err != nil {
			return nil, nil, err
		}
	}
	if len(req.Extra) > 0 {
		if cfg, err = mergeExtra(cfg, req.Extra); err != nil {
			return nil, nil, err
		}
	}
	return contents, cfg, nil
}

func f32(v float64) *float32 {
	f := float32(v)
	return &f
}

// applyEffort maps reasoning_effort onto thinkingLevel, unless the model's
// own thinking keys already chose a budget or a level.
func (m *Model) applyEffort(cfg *genai.GenerateContentConfig, effort string) error {
	level, ok := thinkingLevels[strings.ToLower(effort)]
	if !ok {
		return fmt.Errorf("%w: reasoning_effort %q: use minimal, low, medium or high", ErrInvalidRequest, effort)
	}
	if tc := cfg.ThinkingConfig; tc != nil && (tc.ThinkingBudget != nil || tc.ThinkingLevel != "") {
		m.logger.Debug("gemini: reasoning_effort ignored: thinking_budget or thinking_level is set", "model", m.id)
		return nil
	}
	if cfg.ThinkingConfig == nil {
		cfg.ThinkingConfig = &genai.ThinkingConfig{}
	}
	cfg.ThinkingConfig.ThinkingLevel = level
	return nil
}

// convertMessages maps the history onto Gemini contents: system messages
// become the system instruction, assistant messages "model" contents
// with their text and functionCall parts (thought signatures restored),
// tool results functionResponse parts of a "user" content. Consecutive
// contents of one role are merged, as the API wants them alternating.
func (m *Model) convertMessages(msgs []model.Message) (*genai.Content, []*genai.Content, error) {
	var system []*genai.Part
	var contents []*genai.Content
	add := func(role string, parts []*genai.Part) {
		if len(parts) == 0 {
			return
		}
		if n := len(contents); n > 0 && contents[n-1].Role == role {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			return
		}
		contents = append(contents, &genai.Content{Role: role, Parts: parts})
	}
	callNames := map[string]string{}
	for i, msg := range msgs {
		switch msg.Role {
		case model.RoleSystem, "developer":
			if strings.TrimSpace(msg.Content) != "" {
				system = append(system, &genai.Part{Text: msg.Content})
			}

		case model.RoleUser:
			var parts []*genai.Part
			if msg.Content != "" {
				parts = append(parts, &genai.Part{Text: msg.Content})
			}
			for j, img := range msg.Images {
				p, err := imagePart(img)
				if err != nil {
					return nil, nil, fmt.Errorf("%w: messages[%d].images[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				parts = append(parts, p)
			}
			for j, f := range msg.Files {
				if len(f.Content) == 0 {
					return nil, nil, fmt.Errorf("%w: messages[%d].files[%d] (%s) has no content: load the file's bytes before the call", ErrInvalidRequest, i, j, f.Filename)
				}
				parts = append(parts, &genai.Part{InlineData: &genai.Blob{Data: f.Content, MIMEType: fileMIMEType(f)}})
			}
			add(genai.RoleUser, parts)

		case model.RoleAssistant:
			var parts []*genai.Part
			if msg.Content != "" {
				parts = append(parts, &genai.Part{Text: msg.Content, ThoughtSignature: signature(msg.ProviderData[thoughtSignatureKey])})
			}
			callSigs, _ := msg.ProviderData[toolCallSignaturesKey].(map[string]any)
			for _, tc := range msg.ToolCalls {
				callNames[tc.ID] = tc.Function.Name
				fc := &genai.FunctionCall{Name: tc.Function.Name, Args: m.callArgs(tc)}
				if !strings.HasPrefix(tc.ID, localCallIDPrefix) {
					fc.ID = tc.ID
				}
				parts = append(parts, &genai.Part{FunctionCall: fc, ThoughtSignature: signature(callSigs[tc.ID])})
			}
			add(genai.RoleModel, parts)

		case model.RoleTool:
			name := cmpOr(msg.ToolName, callNames[msg.ToolCallID], msg.Name)
			if name == "" {
				return nil, nil, fmt.Errorf("%w: messages[%d]: a tool message needs tool_name, or a tool_call_id of an earlier assistant tool call", ErrInvalidRequest, i)
			}
			fr := &genai.FunctionResponse{Name: name, Response: map[string]any{"result": msg.Content}}
			if msg.ToolCallError {
				fr.Response = map[string]any{"error": msg.Content}
			}
			if msg.ToolCallID != "" && !strings.HasPrefix(msg.ToolCallID, localCallIDPrefix) {
				fr.ID = msg.ToolCallID
			}
			add(genai.RoleUser, []*genai.Part{{FunctionResponse: fr}})

		default:
			return nil, nil, fmt.Errorf("%w: messages[%d].role is %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
	}
	if len(contents) == 0 {
		return nil, nil, fmt.Errorf("%w: no user or assistant message to send: Gemini needs at least one", ErrInvalidRequest)
	}
	var sys *genai.Content
	if len(system) > 0 {
		sys = &genai.Content{Role: genai.RoleUser, Parts: system}
	}
	return sys, contents, nil
}

// signature decodes a base64 thought signature kept in ProviderData; a
// missing or damaged one is left out.
func signature(v any) []byte {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}

// callArgs is a call's arguments as the object functionCall.args wants;
// arguments that are not a JSON object are sent as {} so that the
// conversation can go on (the tool result already told the model).
func (m *Model) callArgs(tc model.ToolCall) map[string]any {
	args := map[string]any{}
	if s := strings.TrimSpace(tc.Function.Arguments); s != "" {
		if err := json.Unmarshal([]byte(s), &args); err != nil || args == nil {
			m.logger.Debug("gemini: tool call arguments are not a JSON object; sending {}", "tool_call_id", tc.ID, "tool", tc.Function.Name)
			args = map[string]any{}
		}
	}
	return args
}

// imagePart sends inline bytes as inlineData and a URL as fileData: the
// API reads gs:// URIs, Files API URIs and public HTTP(S) URLs itself.
func imagePart(img model.Image) (*genai.Part, error) {
	switch {
	case strings.HasPrefix(img.URL, "data:"):
		mt, data, err := parseDataURL(img.URL)
		if err != nil {
			return nil, err
		}
		return &genai.Part{InlineData: &genai.Blob{Data: data, MIMEType: mt}}, nil
	case img.URL != "":
		mt := img.MimeType
		if mt == "" {
			mt = mime.TypeByExtension(path.Ext(strings.SplitN(img.URL, "?", 2)[0]))
		}
		return &genai.Part{FileData: &genai.FileData{FileURI: img.URL, MIMEType: mt}}, nil
	case len(img.Content) > 0:
		mt := img.MimeType
		if mt == "" {
			mt = http.DetectContentType(img.Content)
		}
		return &genai.Part{InlineData: &genai.Blob{Data: img.Content, MIMEType: mt}}, nil
	}
	return nil, fmt.Errorf("image has neither url nor content: set one of them")
}

// fileMIMEType is the file's type, else its name's, else PDF as agno
// assumes.
func fileMIMEType(f model.File) string {
	if f.MimeType != "" {
		return f.MimeType
	}
	if t := mime.TypeByExtension(path.Ext(f.Filename)); t != "" {
		return t
	}
	return "application/pdf"
}

func parseDataURL(u string) (string, []byte, error) {
	header, payload, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
	mt, enc, _ := strings.Cut(header, ";")
	if !ok || enc != "base64" {
		return "", nil, fmt.Errorf("data URL is not base64: use data:<media type>;base64,<data>")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("data URL: %v", err)
	}
	return mt, data, nil
}

// convertTools declares every tool in one Tool, with its parameters as
// parametersJsonSchema, sent verbatim.
func convertTools(defs []model.ToolDefinition) ([]*genai.Tool, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	decls := make([]*genai.FunctionDeclaration, 0, len(defs))
	for i, d := range defs {
		if d.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d].name is empty: every tool needs a name", ErrInvalidRequest, i)
		}
		fd := &genai.FunctionDeclaration{Name: d.Name, Description: d.Description}
		if len(d.Parameters) > 0 && string(d.Parameters) != "null" {
			var schema map[string]any
			if err := json.Unmarshal(d.Parameters, &schema); err != nil {
				return nil, fmt.Errorf("%w: tools[%d] (%s): parameters are not a JSON object: give a JSON Schema object", ErrInvalidRequest, i, d.Name)
			}
			fd.ParametersJsonSchema = schema
		}
		decls = append(decls, fd)
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}, nil
}

func convertToolChoice(tc *model.ToolChoice) (*genai.ToolConfig, error) {
	fc := &genai.FunctionCallingConfig{}
	switch {
	case tc.Function != "":
		fc.Mode = genai.FunctionCallingConfigModeAny
		fc.AllowedFunctionNames = []string{tc.Function}
	case tc.Mode == "auto":
		fc.Mode = genai.FunctionCallingConfigModeAuto
	case tc.Mode == "none":
		fc.Mode = genai.FunctionCallingConfigModeNone
	case tc.Mode == "required", tc.Mode == "any":
		fc.Mode = genai.FunctionCallingConfigModeAny
	case tc.Mode == "validated":
		fc.Mode = genai.FunctionCallingConfigModeValidated
	default:
		return nil, fmt.Errorf("%w: tool_choice mode %q: use none, auto, required, validated or name a function", ErrInvalidRequest, tc.Mode)
	}
	return &genai.ToolConfig{FunctionCallingConfig: fc}, nil
}

// opaqueKeys hold free-form values (schemas, labels) whose keys are not
// converted from snake_case.
var opaqueKeys = map[string]bool{
	"responseJsonSchema": true, "responseSchema": true, "parametersJsonSchema": true,
	"parameters": true, "labels": true, "response": true, "args": true,
}

// mergeExtra lays request_params over the generation config, as agno
// merges generation_config and request_params (tables merged key by key,
// the request's values winning): keys are the config's
// fields in snake_case (thinking_config, response_modalities) or the API's
// camelCase; a "generation_config" or "config" table is merged the same
// way. An unknown key is an error naming it.
func mergeExtra(cfg *genai.GenerateContentConfig, extra map[string]any) (*genai.GenerateContentConfig, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("gemini: encoding the generation config: %w", err)
	}
	var base map[string]any
	if err := json.Unmarshal(raw, &base); err != nil {
		return nil, fmt.Errorf("gemini: encoding the generation config: %w", err)
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := extra[k]
		if k == "stream" {
			continue // decided by Request.Stream
		}
		if k == "generation_config" || k == "config" || k == "generationConfig" {
			table, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%w: request_params.%s is %T: give a table of generation config fields", ErrInvalidRequest, k, v)
			}
			for kk, vv := range table {
				ck := camel(kk)
				base[ck] = overlay(base, ck, vv)
			}
			continue
		}
		ck := camel(k)
		base[ck] = overlay(base, ck, v)
	}
	raw, err = json.Marshal(base)
	if err != nil {
		return nil, fmt.Errorf("%w: request_params: %v", ErrInvalidRequest, err)
	}
	out := &genai.GenerateContentConfig{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return nil, fmt.Errorf("%w: request_params: %v: use fields of Gemini's GenerateContentConfig (https://ai.google.dev/api/generate-content#generationconfig), e.g. top_k, response_modalities, thinking_config", ErrInvalidRequest, err)
	}
	return out, nil
}

// overlay is base[key] with v laid over it; a schema or other free-form
// value replaces the old one whole.
func overlay(base map[string]any, key string, v any) any {
	if opaqueKeys[key] {
		return v
	}
	return mergeValue(base[key], camelKeys(key, v))
}

// mergeValue lays v over old: tables are merged key by key (a
// thinking_config table keeps the budget the model set), anything else
// replaces.
func mergeValue(old, v any) any {
	om, ok1 := old.(map[string]any)
	vm, ok2 := v.(map[string]any)
	if !ok1 || !ok2 {
		return v
	}
	for k, x := range vm {
		om[k] = mergeValue(om[k], x)
	}
	return om
}

// camel turns snake_case into camelCase; camelCase is kept.
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func camelKeys(key string, v any) any {
	if opaqueKeys[key] {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			ck := camel(k)
			out[ck] = camelKeys(ck, vv)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			out[i] = camelKeys(key, vv)
		}
		return out
	}
	return v
}
