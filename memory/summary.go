package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Texts of agno v2.6.13's SessionSummaryManager (session/summary.py).
const (
	// DefaultSummaryRequest is the user message asking for the summary.
	DefaultSummaryRequest = "Provide the summary of the conversation."
	// DefaultSummaryPrompt precedes the <conversation> block (a dedented
	// block, so it ends with a newline).
	DefaultSummaryPrompt = "Analyze the following conversation between a user and an assistant, and extract the following details:\n" +
		"- Summary (str): Provide a concise summary of the session, focusing on important information that would be helpful for future interactions.\n" +
		"- Topics (Optional[List[str]]): List the topics discussed in the session.\n" +
		"Keep the summary concise and to the point. Only include relevant information.\n"

	summarySchemaName = "SessionSummaryResponse"

	// summarySchema is SessionSummaryResponse.model_json_schema() (pydantic
	// v2, keys sorted) made strict the way the OpenAI SDK does for a
	// pydantic response_format: every property required, no extra
	// properties, null defaults dropped.
	summarySchema = `{"description":"Model for Session Summary.","properties":{` +
		`"summary":{"description":"Summary of the session. Be concise and focus on only important information. Do not make anything up.","title":"Summary","type":"string"},` +
		`"topics":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}],"description":"Topics discussed in the session.","title":"Topics"}` +
		`},"required":["summary","topics"],"title":"SessionSummaryResponse","type":"object","additionalProperties":false}`

	// summaryJSONPrompt is agno's get_json_output_prompt(SessionSummaryResponse),
	// appended after a newline when the model has no native structured output.
	summaryJSONPrompt = "Provide your output as a JSON containing the following fields:\n" +
		"<json_fields>\n" +
		`["summary", "topics"]` + "\n" +
		"</json_fields>\n" +
		"\n" +
		"Here are the properties for each field:\n" +
		"<json_field_properties>\n" +
		"{\n" +
		"  \"summary\": {\n" +
		"    \"description\": \"Summary of the session. Be concise and focus on only important information. Do not make anything up.\",\n" +
		"    \"type\": \"string\"\n" +
		"  },\n" +
		"  \"topics\": {\n" +
		"    \"anyOf\": [\n" +
		"      {\n" +
		"        \"items\": {\n" +
		"          \"type\": \"string\"\n" +
		"        },\n" +
		"        \"type\": \"array\"\n" +
		"      },\n" +
		"      {\n" +
		"        \"type\": \"null\"\n" +
		"      }\n" +
		"    ],\n" +
		"    \"default\": null,\n" +
		"    \"description\": \"Topics discussed in the session.\"\n" +
		"  }\n" +
		"}\n" +
		"</json_field_properties>\n" +
		"Start your response with `{` and end it with `}`.\n" +
		"Your output will be passed to json.loads() to convert it to a Python object.\n" +
		"Make sure it only contains valid JSON."
)

// SummaryConfig configures a SummaryManager.
type SummaryConfig struct {
	// Model writes the summary; usually the agent's model.
	Model model.Model
	// Prompt replaces DefaultSummaryPrompt; the conversation block follows
	// it directly.
	Prompt string
	// RequestMessage replaces DefaultSummaryRequest.
	RequestMessage string
	// LastNRuns limits Conversation to the latest runs; 0 means all.
	LastNRuns int
	// ConversationLimit limits Conversation to the latest messages (and
	// then LastNRuns is not applied, as in agno); 0 means no limit.
	ConversationLimit int
	// Logger receives debug traces. Default slog.Default().
	Logger *slog.Logger
}

// SummaryManager writes session summaries with a model (agno's
// SessionSummaryManager). It is safe for concurrent use.
type SummaryManager struct {
	model     model.Model
	prompt    string
	request   string
	lastNRuns int
	limit     int
	log       *slog.Logger
}

// NewSummaryManager checks cfg and returns a SummaryManager.
func NewSummaryManager(cfg SummaryConfig) (*SummaryManager, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("%w: SummaryConfig.Model is nil: set the model that writes session summaries (usually the agent's model)", ErrConfig)
	}
	if cfg.LastNRuns < 0 {
		return nil, fmt.Errorf("%w: SummaryConfig.LastNRuns must be a positive integer (or 0 for all runs), got %d", ErrConfig, cfg.LastNRuns)
	}
	if cfg.ConversationLimit < 0 {
		return nil, fmt.Errorf("%w: SummaryConfig.ConversationLimit must be a positive integer (or 0 for no limit), got %d", ErrConfig, cfg.ConversationLimit)
	}
	s := &SummaryManager{
		model:     cfg.Model,
		prompt:    cfg.Prompt,
		request:   cfg.RequestMessage,
		lastNRuns: cfg.LastNRuns,
		limit:     cfg.ConversationLimit,
		log:       cfg.Logger,
	}
	if s.prompt == "" {
		s.prompt = DefaultSummaryPrompt
	}
	if s.request == "" {
		s.request = DefaultSummaryRequest
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// Conversation picks the messages to summarise from a session's runs,
// oldest first — the caller passes the top-level runs that completed (agno
// skips paused, cancelled and failed ones). It follows agno's
// session.get_messages(last_n_runs, limit): messages replayed from history
// are skipped and the system message kept once; with ConversationLimit the
// system message plus the latest limit-1 others are kept and leading tool
// results dropped, else the messages of the last LastNRuns runs.
func (s *SummaryManager) Conversation(runs [][]model.Message) []model.Message {
	var out []model.Message
	var system *model.Message
	if s.limit > 0 {
		for _, msgs := range runs {
			for i := range msgs {
				msg := msgs[i]
				switch {
				case msg.FromHistory:
				case msg.Role == model.RoleSystem:
					if system == nil {
						system = &msg
					}
				default:
					out = append(out, msg)
				}
			}
		}
		keep := s.limit
		if system != nil {
			keep--
		}
		out = out[max(0, len(out)-keep):]
		for len(out) > 0 && out[0].Role == model.RoleTool {
			out = out[1:]
		}
		if system != nil {
			out = append([]model.Message{*system}, out...)
		}
		return out
	}
	if s.lastNRuns > 0 && len(runs) > s.lastNRuns {
		runs = runs[len(runs)-s.lastNRuns:]
	}
	for _, msgs := range runs {
		for _, msg := range msgs {
			switch {
			case msg.FromHistory:
			case msg.Role == model.RoleSystem:
				if system == nil {
					system = &msg
					out = append(out, msg)
				}
			default:
				out = append(out, msg)
			}
		}
	}
	return out
}

// Summarize asks the model for a summary of the conversation: a system
// prompt holding it as <conversation>User: …\nAssistant: …</conversation>
// and the request message. A model with native structured outputs gets
// SessionSummaryResponse as a strict json_schema response format; others
// get JSON mode (when they have it) and the schema in the prompt. The
// answer is parsed tolerantly (code fences, <think> blocks, prose around
// the JSON, several objects merged).
func (s *SummaryManager) Summarize(ctx context.Context, messages []model.Message) (*storage.Summary, error) {
	info := s.model.Info()
	req := &model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: s.systemPrompt(messages, !info.NativeStructuredOutputs), CreatedAt: run.Now()},
		{Role: model.RoleUser, Content: s.request, CreatedAt: run.Now()},
	}}
	switch {
	case info.NativeStructuredOutputs:
		req.ResponseFormat = &model.ResponseFormat{Type: "json_schema", Name: summarySchemaName, Schema: json.RawMessage(summarySchema), Strict: true}
	case info.JSONMode:
		req.ResponseFormat = &model.ResponseFormat{Type: "json_object"}
	}
	s.log.Debug("memory: creating session summary", "messages", len(messages))
	resp, err := model.Collect(s.model.Generate(ctx, req))
	if err != nil {
		return nil, fmt.Errorf("memory: session summary model call: %w", err)
	}
	parsed, err := parseSummary(resp.Content)
	if err != nil {
		return nil, err
	}
	s.log.Debug("memory: session summary created")
	return &storage.Summary{Summary: parsed.Summary, Topics: parsed.Topics, UpdatedAt: pyISOTime(time.Now())}, nil
}

// systemPrompt renders the prompt and the conversation: user turns as
// "User: …" (an empty one with images as "[Provided N image(s)]"),
// assistant turns as "Assistant: …\n", lines joined by "\n". Assistant
// turns without text (tool-call turns) are left out; agno renders them as
// "Assistant: None".
func (s *SummaryManager) systemPrompt(conversation []model.Message, jsonPrompt bool) string {
	var b strings.Builder
	b.WriteString(s.prompt)
	b.WriteString("<conversation>")
	first := true
	line := func(text string) {
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(text)
	}
	for _, msg := range conversation {
		switch msg.Role {
		case model.RoleUser:
			switch {
			case strings.TrimSpace(msg.Content) != "":
				line("User: " + msg.Content)
			case len(msg.Images) > 0:
				line("User: [Provided " + strconv.Itoa(len(msg.Images)) + " image(s)]")
			}
		case model.RoleAssistant, "model":
			if msg.Content != "" {
				line("Assistant: " + msg.Content + "\n")
			}
		}
	}
	b.WriteString("</conversation>")
	if jsonPrompt {
		b.WriteString("\n" + summaryJSONPrompt)
	}
	return b.String()
}

// pyISOTime renders a local time as Python's naive datetime.now().isoformat().
func pyISOTime(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}
