package model

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"time"
)

// Model is a language model. Generate sends one request and yields the
// response as chunks: many for a streamed request, one for a non-streamed
// one. Tool calls arrive complete (deltas already merged) in the last chunk
// that carries them; usage arrives in the final chunk.
//
// Implementations must be safe for concurrent use: one Model value serves
// every run of every agent that holds it.
type Model interface {
	Info() Info
	Generate(ctx context.Context, req *Request) iter.Seq2[*Chunk, error]
}

// Info describes a model: its id at the provider, the provider's name (as
// agno reports it in model_provider) and what structured output it supports.
type Info struct {
	ID       string
	Provider string
	Name     string
	// NativeStructuredOutputs: the provider enforces a JSON schema given in
	// Request.ResponseFormat.
	NativeStructuredOutputs bool
	// JSONMode: the provider accepts {"type":"json_object"}.
	JSONMode bool
	// NativeReasoning says whether and how the model reasons natively, by
	// agno's reasoning modules' rules for its class and id: a reasoning
	// agent or team then uses its thinking directly, not agno's
	// chain-of-thought loop.
	NativeReasoning NativeReasoning
}

// NativeReasoning is how a native reasoning model gives its reasoning.
type NativeReasoning string

// Native reasoning kinds.
const (
	// ReasoningNone: not a native reasoning model.
	ReasoningNone NativeReasoning = ""
	// ReasoningThinking: the thinking comes apart from the answer, in
	// reasoning_content (DeepSeek's reasoner, Claude and Gemini thinking).
	ReasoningThinking NativeReasoning = "thinking"
	// ReasoningContent: the answer is the reasoning, <think> tags
	// stripped (OpenAI's o-series, Groq and Ollama reasoning models).
	ReasoningContent NativeReasoning = "content"
)

// Request is one call to a model.
type Request struct {
	Messages       []Message
	Tools          []ToolDefinition
	ToolChoice     *ToolChoice
	ResponseFormat *ResponseFormat
	Stream         bool

	Temperature      *float64
	TopP             *float64
	MaxTokens        *int
	Stop             []string
	Seed             *int64
	FrequencyPenalty *float64
	PresencePenalty  *float64
	User             string
	ReasoningEffort  string
	// Extra is merged into the provider request body (agno's request_params).
	Extra map[string]any
}

// ToolDefinition is what the model sees of a tool. Only these four fields
// are sent, as agno's Function.to_dict() does for OpenAI-like providers.
type ToolDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

// ToolChoice is "none", "auto", "required", or a named function.
type ToolChoice struct {
	Mode     string // none | auto | required; empty when Function is set
	Function string
}

// ResponseFormat asks for structured output.
type ResponseFormat struct {
	// Type is "json_schema" or "json_object".
	Type   string
	Name   string
	Schema json.RawMessage
	Strict bool
}

// Chunk is one piece of a model response.
type Chunk struct {
	Content          string
	ReasoningContent string
	// ToolCalls are complete calls; set at most once per response.
	ToolCalls    []ToolCall
	FinishReason string
	Usage        *Usage
	// ProviderData carries provider-specific fields (e.g. the response id).
	ProviderData map[string]any
}

// Usage counts tokens of one model response. JSON names follow agno's
// metrics.
type Usage struct {
	InputTokens      int           `json:"input_tokens,omitempty"`
	OutputTokens     int           `json:"output_tokens,omitempty"`
	TotalTokens      int           `json:"total_tokens,omitempty"`
	ReasoningTokens  int           `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int           `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int           `json:"cache_write_tokens,omitempty"`
	TimeToFirstToken time.Duration `json:"-"`
}

// Add accumulates o into u.
func (u *Usage) Add(o *Usage) {
	if o == nil {
		return
	}
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.TotalTokens += o.TotalTokens
	u.ReasoningTokens += o.ReasoningTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
	if u.TimeToFirstToken == 0 {
		u.TimeToFirstToken = o.TimeToFirstToken
	}
}

// Response is a whole model response, collected from its chunks. Do not
// copy a Response that is still being appended to.
type Response struct {
	Content          string
	ReasoningContent string
	ToolCalls        []ToolCall
	FinishReason     string
	Usage            Usage
	ProviderData     map[string]any

	// Builders keep Append linear in the response size.
	content, reasoning strings.Builder
}

// Collect drains a chunk stream into one Response.
func Collect(seq iter.Seq2[*Chunk, error]) (*Response, error) {
	r := &Response{}
	for c, err := range seq {
		if err != nil {
			return r, err
		}
		r.Append(c)
	}
	return r, nil
}

// Append folds one chunk into the response.
func (r *Response) Append(c *Chunk) {
	if c.Content != "" {
		if r.content.Len() == 0 && r.Content != "" {
			r.content.WriteString(r.Content)
		}
		r.content.WriteString(c.Content)
		r.Content = r.content.String()
	}
	if c.ReasoningContent != "" {
		if r.reasoning.Len() == 0 && r.ReasoningContent != "" {
			r.reasoning.WriteString(r.ReasoningContent)
		}
		r.reasoning.WriteString(c.ReasoningContent)
		r.ReasoningContent = r.reasoning.String()
	}
	r.ToolCalls = append(r.ToolCalls, c.ToolCalls...)
	if c.FinishReason != "" {
		r.FinishReason = c.FinishReason
	}
	r.Usage.Add(c.Usage)
	for k, v := range c.ProviderData {
		if r.ProviderData == nil {
			r.ProviderData = map[string]any{}
		}
		r.ProviderData[k] = v
	}
}
