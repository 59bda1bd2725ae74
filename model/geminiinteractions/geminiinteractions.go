// Package geminiinteractions is the model.Model for Gemini through Google's
// Interactions API (agno's GeminiInteractions), on the official
// google.golang.org/genai client's Interactions service.
//
// The server keeps the conversation: each answer's interaction id is kept
// in the assistant message's ProviderData ("interaction_id", as agno
// does), and the next call sends it as previous_interaction_id with only
// the messages after that turn. With store = false the whole history is
// sent instead. SDK types never leave this package.
package geminiinteractions

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"
	gi "google.golang.org/genai/interactions"
	"google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
	"google.golang.org/genai/interactions/retry"

	"github.com/agno-go/agno/internal/httpretry"
	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/gemini"
)

// Defaults, as agno's GeminiInteractions has them.
const (
	DefaultID         = "gemini-3-flash-preview"
	DefaultAPIKeyEnv  = "GOOGLE_API_KEY"
	DefaultMaxRetries = 2
)

// ProviderName is the model_provider agno reports; Name its model name.
const (
	ProviderName = "Google"
	Name         = "GeminiInteractions"
)

// InteractionIDKey is the ProviderData key of an answer's interaction id.
const InteractionIDKey = "interaction_id"

// ErrMissingAPIKey is returned by New without a key: the Interactions API
// takes a Gemini API key only (it is not on Vertex AI).
var ErrMissingAPIKey = errors.New("google-interactions: no API key")

// ErrInvalidRequest wraps every request that cannot be sent; the message
// names the offending field.
var ErrInvalidRequest = errors.New("google-interactions: invalid request")

// Config configures a Model.
type Config struct {
	// ID is the model id. Default DefaultID.
	ID string
	// BaseURL overrides https://generativelanguage.googleapis.com.
	BaseURL string
	// APIKey is the Gemini API key; default GOOGLE_API_KEY.
	APIKey string
	// Store is agno's store: false keeps nothing on the server, so the
	// whole history is sent each turn. nil is the API's default (true).
	Store *bool
	// ThinkingLevel is minimal, low, medium or high.
	ThinkingLevel string
	// Search, URLContext and CodeExecution add Google's built-in tools.
	Search, URLContext, CodeExecution bool
	// ServiceTier is flex, standard or priority.
	ServiceTier string

	HTTPClient *http.Client
	// MaxRetries: retries of connection errors, 408, 409, 429 and 5xx
	// (package httpretry; a google.rpc.RetryInfo delay in the error body
	// counts as Retry-After). 0 means DefaultMaxRetries; negative none.
	MaxRetries int
	Headers    map[string]string
	Logger     *slog.Logger
}

// Model is a Gemini model behind the Interactions API. It is safe for
// concurrent use.
type Model struct {
	id      string
	cfg     Config
	service *gi.Interactions
}

var _ model.Model = (*Model)(nil)

var thinkingLevels = map[string]interactions.ThinkingLevel{
	"minimal": interactions.ThinkingLevelMinimal,
	"low":     interactions.ThinkingLevelLow,
	"medium":  interactions.ThinkingLevelMedium,
	"high":    interactions.ThinkingLevelHigh,
}

var serviceTiers = map[string]interactions.ServiceTier{
	"flex":     interactions.ServiceTierFlex,
	"standard": interactions.ServiceTierStandard,
	"priority": interactions.ServiceTierPriority,
}

// New validates cfg and returns the model.
func New(cfg Config) (*Model, error) {
	id := strings.TrimSpace(cfg.ID)
	if id == "" {
		id = DefaultID
	}
	cfg.ThinkingLevel = strings.ToLower(strings.TrimSpace(cfg.ThinkingLevel))
	if _, ok := thinkingLevels[cfg.ThinkingLevel]; cfg.ThinkingLevel != "" && !ok {
		return nil, fmt.Errorf("google-interactions: thinking_level is %q: use minimal, low, medium or high", cfg.ThinkingLevel)
	}
	cfg.ServiceTier = strings.ToLower(strings.TrimSpace(cfg.ServiceTier))
	if _, ok := serviceTiers[cfg.ServiceTier]; cfg.ServiceTier != "" && !ok {
		return nil, fmt.Errorf("google-interactions: service_tier is %q: use flex, standard or priority", cfg.ServiceTier)
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		key = os.Getenv(DefaultAPIKeyEnv)
	}
	if key == "" {
		return nil, fmt.Errorf("%w: set the %s environment variable (the Interactions API takes a Gemini API key; it is not on Vertex AI)", ErrMissingAPIKey, DefaultAPIKeyEnv)
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	cfg.Logger = logger
	retries := cfg.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	base := cfg.HTTPClient
	if base == nil {
		base = sharedHTTPClient()
	}
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	policy := httpretry.Policy{MaxRetries: retries, Logger: logger, LogAttrs: []any{"provider", ProviderName, "model", id}}
	hc := &http.Client{
		Transport:     gemini.RetryTransport(rt, policy),
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
		Timeout:       base.Timeout,
	}
	cc := genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: key, HTTPClient: hc, HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL}}
	if len(cfg.Headers) > 0 {
		cc.HTTPOptions.Headers = http.Header{}
		for k, v := range cfg.Headers {
			cc.HTTPOptions.Headers.Set(k, v)
		}
	}
	client, err := genai.NewClient(context.Background(), &cc)
	if err != nil {
		return nil, fmt.Errorf("google-interactions: %w", err)
	}
	return &Model{id: id, cfg: cfg, service: client.Interactions}, nil
}

var sharedHTTPClient = sync.OnceValue(func() *http.Client {
	hc, _ := httptransport.Client(0, httptransport.Limits{})
	return hc
})

// Info implements model.Model. The API enforces a JSON schema given in
// Request.ResponseFormat (response_format).
func (m *Model) Info() model.Info {
	return model.Info{ID: m.id, Provider: ProviderName, Name: Name, NativeStructuredOutputs: true, JSONMode: true}
}

// noSDKRetries leaves retrying to httpretry in the HTTP client; the
// SDK's own retry loop would multiply the attempts.
var noSDKRetries = operations.WithRetries(retry.Config{Strategy: "none"})

// Generate implements model.Model: one interactions.create call, streamed
// when req.Stream is set.
func (m *Model) Generate(ctx context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		if req == nil {
			yield(nil, fmt.Errorf("%w: request is nil", ErrInvalidRequest))
			return
		}
		body, err := m.newRequest(req)
		if err != nil {
			yield(nil, err)
			return
		}
		start := time.Now()
		if req.Stream {
			body.Stream = ptr(true)
		}
		res, err := m.service.Create(ctx, operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(*body)}, noSDKRetries)
		if err != nil {
			yield(nil, m.convertError(ctx, err))
			return
		}
		if req.Stream {
			m.stream(ctx, res, start, yield)
			return
		}
		if res.Interaction == nil {
			yield(nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "the response carries no interaction"})
			return
		}
		c, err := m.chunkOf(res.Interaction)
		if err != nil {
			yield(nil, err)
			return
		}
		if c.Usage != nil {
			c.Usage.TimeToFirstToken = time.Since(start)
		}
		yield(c, nil)
	}
}

func ptr[T any](v T) *T { return &v }

// newRequest maps req onto a model interaction, as agno's
// _get_request_kwargs does.
func (m *Model) newRequest(req *model.Request) (*interactions.CreateModelInteraction, error) {
	body := &interactions.CreateModelInteraction{Model: interactions.Model(m.id), Store: m.cfg.Store}
	var system string
	for _, msg := range req.Messages {
		if msg.Role == model.RoleSystem && msg.Content != "" {
			system = msg.Content // the last one, as agno takes it
		}
	}
	if system != "" {
		body.SystemInstruction = &system
	}
	msgs := req.Messages
	if m.cfg.Store == nil || *m.cfg.Store {
		if id, i := previousInteraction(msgs); id != "" {
			body.PreviousInteractionID = &id
			msgs = msgs[i+1:]
		}
	}
	steps, err := inputSteps(msgs)
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%w: no user message or tool result after the last interaction to send", ErrInvalidRequest)
	}
	in := interactions.NewInteractionsInput(steps)
	body.Input = &in

	gc := interactions.GenerationConfig{MaxOutputTokens: req.MaxTokens, StopSequences: req.Stop}
	set := req.MaxTokens != nil || len(req.Stop) > 0
	if req.Temperature != nil {
		//lint:ignore SA1019 agno sends temperature and top_p; the API still takes them
		gc.Temperature, set = ptr(float32(*req.Temperature)), true
	}
	if req.TopP != nil {
		//lint:ignore SA1019 as temperature
		gc.TopP, set = ptr(float32(*req.TopP)), true
	}
	if req.Seed != nil {
		gc.Seed, set = ptr(int(*req.Seed)), true
	}
	if l := m.cfg.ThinkingLevel; l != "" {
		gc.ThinkingLevel, set = ptr(thinkingLevels[l]), true
	}
	if len(req.Extra) > 0 {
		// request_params are laid over the generation config, as agno's
		// generation_config dict is.
		raw, err := json.Marshal(gc)
		if err != nil {
			return nil, fmt.Errorf("%w: generation config: %v", ErrInvalidRequest, err)
		}
		merged := map[string]any{}
		_ = json.Unmarshal(raw, &merged)
		for k, v := range req.Extra {
			merged[k] = v
		}
		raw, _ = json.Marshal(merged)
		gc = interactions.GenerationConfig{}
		if err := json.Unmarshal(raw, &gc); err != nil {
			return nil, fmt.Errorf("%w: request_params do not fit the Interactions generation_config: %v", ErrInvalidRequest, err)
		}
		set = true
	}
	if set {
		body.GenerationConfig = &gc
	}

	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_schema":
			var schema map[string]any
			if err := json.Unmarshal(rf.Schema, &schema); err != nil {
				return nil, fmt.Errorf("%w: response_format schema is not a JSON object: %v", ErrInvalidRequest, err)
			}
			f := interactions.NewCreateModelInteractionResponseFormat(interactions.NewResponseFormat(interactions.TextResponseFormat{
				MimeType: ptr(interactions.TextResponseFormatMimeTypeApplicationJSON), Schema: schema}))
			body.ResponseFormat = &f
		case "json_object":
			f := interactions.NewCreateModelInteractionResponseFormat(interactions.NewResponseFormat(interactions.TextResponseFormat{
				MimeType: ptr(interactions.TextResponseFormatMimeTypeApplicationJSON)}))
			body.ResponseFormat = &f
		case "", "text":
		default:
			return nil, fmt.Errorf("%w: response_format type %q: use json_schema, json_object or text", ErrInvalidRequest, rf.Type)
		}
	}

	for i, t := range req.Tools {
		fn := interactions.Function{Name: ptr(t.Name)}
		if t.Name == "" {
			return nil, fmt.Errorf("%w: tools[%d] has no name", ErrInvalidRequest, i)
		}
		if t.Description != "" {
			fn.Description = ptr(t.Description)
		}
		if len(t.Parameters) > 0 {
			var params map[string]any
			if err := json.Unmarshal(t.Parameters, &params); err != nil {
				return nil, fmt.Errorf("%w: tools[%d] (%s) parameters are not a JSON object: %v", ErrInvalidRequest, i, t.Name, err)
			}
			fn.Parameters = params
		}
		body.Tools = append(body.Tools, interactions.NewTool(fn))
	}
	if m.cfg.Search {
		body.Tools = append(body.Tools, interactions.NewTool(interactions.GoogleSearch{}))
	}
	if m.cfg.URLContext {
		body.Tools = append(body.Tools, interactions.NewTool(interactions.URLContext{}))
	}
	if m.cfg.CodeExecution {
		body.Tools = append(body.Tools, interactions.NewTool(interactions.CodeExecution{}))
	}
	if t := m.cfg.ServiceTier; t != "" {
		body.ServiceTier = ptr(serviceTiers[t])
	}
	return body, nil
}

// previousInteraction finds the latest assistant message with an
// interaction id: the server holds everything up to it.
func previousInteraction(msgs []model.Message) (string, int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != model.RoleAssistant {
			continue
		}
		if id, _ := msgs[i].ProviderData[InteractionIDKey].(string); id != "" {
			return id, i
		}
	}
	return "", -1
}

// inputSteps writes messages as the API's input steps: user_input for a
// user message, model_output for assistant text, function_call for its
// calls, function_result for a tool message.
func inputSteps(msgs []model.Message) ([]interactions.Step, error) {
	var steps []interactions.Step
	for i, msg := range msgs {
		switch msg.Role {
		case model.RoleSystem:
		case model.RoleUser:
			var content []interactions.Content
			if msg.Content != "" {
				content = append(content, interactions.NewContent(interactions.TextContent{Text: msg.Content}))
			}
			for j, img := range msg.Images {
				c, err := imageContent(img)
				if err != nil {
					return nil, fmt.Errorf("%w: messages[%d].images[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				content = append(content, c)
			}
			for j, f := range msg.Files {
				c, err := documentContent(f)
				if err != nil {
					return nil, fmt.Errorf("%w: messages[%d].files[%d]: %v", ErrInvalidRequest, i, j, err)
				}
				content = append(content, c)
			}
			if len(content) > 0 {
				steps = append(steps, interactions.NewStep(interactions.UserInputStep{Content: content}))
			}
		case model.RoleAssistant:
			if msg.Content != "" {
				steps = append(steps, interactions.NewStep(interactions.ModelOutputStep{
					Content: []interactions.Content{interactions.NewContent(interactions.TextContent{Text: msg.Content})}}))
			}
			for j, tc := range msg.ToolCalls {
				args := map[string]any{}
				if s := strings.TrimSpace(tc.Function.Arguments); s != "" {
					if err := json.Unmarshal([]byte(s), &args); err != nil {
						return nil, fmt.Errorf("%w: messages[%d].tool_calls[%d] (%s) arguments are not a JSON object: %v", ErrInvalidRequest, i, j, tc.Function.Name, err)
					}
				}
				steps = append(steps, interactions.NewStep(interactions.FunctionCallStep{ID: tc.ID, Name: tc.Function.Name, Arguments: args}))
			}
		case model.RoleTool:
			if msg.ToolCallID == "" {
				return nil, fmt.Errorf("%w: messages[%d] is a tool result without tool_call_id", ErrInvalidRequest, i)
			}
			st := interactions.FunctionResultStep{CallID: msg.ToolCallID, Result: interactions.NewFunctionResultStepResultUnion(msg.Content)}
			if msg.ToolName != "" {
				st.Name = ptr(msg.ToolName)
			}
			if msg.ToolCallError {
				st.IsError = ptr(true)
			}
			steps = append(steps, interactions.NewStep(st))
		default:
			return nil, fmt.Errorf("%w: messages[%d] has role %q: use system, user, assistant or tool", ErrInvalidRequest, i, msg.Role)
		}
	}
	return steps, nil
}

// maxMediaBytes bounds what is read from an image's or file's Source.
const maxMediaBytes = 20 << 20

// mediaBytes is the inline content of an image or file, read from its
// Source when it has no Content.
func mediaBytes(content []byte, source func() (io.ReadCloser, error)) ([]byte, error) {
	if len(content) > 0 || source == nil {
		return content, nil
	}
	rc, err := source()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxMediaBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxMediaBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxMediaBytes)
	}
	return data, nil
}

func imageContent(img model.Image) (interactions.Content, error) {
	data, err := mediaBytes(img.Content, img.Source)
	if err != nil {
		return interactions.Content{}, err
	}
	ic := interactions.ImageContent{}
	switch {
	case len(data) > 0:
		mt := img.MimeType
		if mt == "" {
			mt = http.DetectContentType(data)
		}
		ic.Data = ptr(base64.StdEncoding.EncodeToString(data))
		ic.MimeType = ptr(interactions.ImageContentMimeType(mt))
	case img.URL != "":
		ic.URI = ptr(img.URL)
		if img.MimeType != "" {
			ic.MimeType = ptr(interactions.ImageContentMimeType(img.MimeType))
		}
	default:
		return interactions.Content{}, errors.New("an image needs a url or content")
	}
	return interactions.NewContent(ic), nil
}

// documentContent sends a file as a document item, application/pdf when
// it names no type, as agno does.
func documentContent(f model.File) (interactions.Content, error) {
	data, err := mediaBytes(f.Content, f.Source)
	if err != nil {
		return interactions.Content{}, err
	}
	if len(data) == 0 {
		return interactions.Content{}, errors.New("a file needs content")
	}
	mt := cmpOr(f.MimeType, "application/pdf")
	return interactions.NewContent(interactions.DocumentContent{
		Data:     ptr(base64.StdEncoding.EncodeToString(data)),
		MimeType: ptr(interactions.DocumentContentMimeType(mt)),
	}), nil
}

func cmpOr(a, b string) string {
	if a = strings.TrimSpace(a); a != "" {
		return a
	}
	return b
}

// chunkOf reads a whole interaction, as agno's _parse_provider_response.
func (m *Model) chunkOf(in *interactions.Interaction) (*model.Chunk, error) {
	switch in.Status {
	case "failed", "cancelled", "incomplete":
		msg := fmt.Sprintf("interaction ended with status %q", in.Status)
		for _, e := range in.Errors {
			if e.Message != nil {
				msg += ": " + *e.Message
			}
		}
		return nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: msg}
	}
	c := &model.Chunk{}
	var text, reasoning strings.Builder
	for _, st := range in.Steps {
		switch {
		case st.ModelOutputStep != nil:
			for _, ct := range st.ModelOutputStep.Content {
				if ct.TextContent != nil {
					text.WriteString(ct.TextContent.Text)
				}
			}
		case st.ThoughtStep != nil:
			for _, s := range st.ThoughtStep.Summary {
				if s.TextContent != nil {
					reasoning.WriteString(s.TextContent.Text)
				}
			}
			if s := st.ThoughtStep.Signature; s != nil && *s != "" {
				setData(c, "thought_signature", *s)
			}
		case st.FunctionCallStep != nil:
			fc := st.FunctionCallStep
			args := "{}"
			if fc.Arguments != nil {
				b, err := json.Marshal(fc.Arguments)
				if err != nil {
					return nil, &model.ProviderError{Provider: ProviderName, Model: m.id, Message: "function call arguments: " + err.Error()}
				}
				args = string(b)
			}
			c.ToolCalls = append(c.ToolCalls, model.NewToolCall(fc.ID, fc.Name, args))
		}
	}
	c.Content, c.ReasoningContent = text.String(), reasoning.String()
	c.Usage = usageOf(in.Usage)
	if in.ID != nil && *in.ID != "" {
		setData(c, InteractionIDKey, *in.ID)
	}
	c.FinishReason = finishReason(c.ToolCalls)
	return c, nil
}

func finishReason(calls []model.ToolCall) string {
	if len(calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func setData(c *model.Chunk, k string, v any) {
	if c.ProviderData == nil {
		c.ProviderData = map[string]any{}
	}
	c.ProviderData[k] = v
}

func usageOf(u *interactions.Usage) *model.Usage {
	if u == nil {
		return nil
	}
	n := func(p *int) int {
		if p == nil {
			return 0
		}
		return *p
	}
	out := &model.Usage{
		InputTokens: n(u.TotalInputTokens), OutputTokens: n(u.TotalOutputTokens), TotalTokens: n(u.TotalTokens),
		CacheReadTokens: n(u.TotalCachedTokens), ReasoningTokens: n(u.TotalThoughtTokens),
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}
