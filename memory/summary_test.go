package memory

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

// plainModel is a provider with neither structured outputs nor JSON mode.
type plainModel struct{ *modeltest.Fake }

func (p plainModel) Info() model.Info {
	i := p.Fake.Info()
	i.NativeStructuredOutputs, i.JSONMode = false, false
	return i
}

func newSummary(t *testing.T, cfg SummaryConfig) *SummaryManager {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	s, err := NewSummaryManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var conversation = []model.Message{
	{Role: model.RoleSystem, Content: "You are helpful."},
	{Role: model.RoleUser, Content: "Hi, I'm Ana"},
	{Role: model.RoleAssistant, Content: "Hello Ana!"},
	{Role: model.RoleUser, Content: "What's the weather in Lisbon?"},
	{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "weather", `{"city":"Lisbon"}`)}},
	{Role: model.RoleTool, ToolCallID: "c1", Content: "sunny"},
	{Role: model.RoleAssistant, Content: "It is sunny."},
	{Role: model.RoleUser, Images: []model.Image{{URL: "https://example.com/a.png"}, {URL: "https://example.com/b.png"}}},
	{Role: model.RoleUser, Content: "  "},
}

const conversationPrompt = "Analyze the following conversation between a user and an assistant, and extract the following details:\n" +
	"- Summary (str): Provide a concise summary of the session, focusing on important information that would be helpful for future interactions.\n" +
	"- Topics (Optional[List[str]]): List the topics discussed in the session.\n" +
	"Keep the summary concise and to the point. Only include relevant information.\n" +
	"<conversation>User: Hi, I'm Ana\nAssistant: Hello Ana!\n\nUser: What's the weather in Lisbon?\nAssistant: It is sunny.\n\nUser: [Provided 2 image(s)]</conversation>"

var isoRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?$`)

func TestSummarizeNativeStructuredOutput(t *testing.T) {
	fake := modeltest.New(modeltest.Response{Content: `{"summary":"Ana asked about the weather in Lisbon.","topics":["weather","Lisbon"]}`})
	fake.Structured = true
	s := newSummary(t, SummaryConfig{Model: fake})
	sum, err := s.Summarize(context.Background(), conversation)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Summary != "Ana asked about the weather in Lisbon." || !slices.Equal(sum.Topics, []string{"weather", "Lisbon"}) || !isoRE.MatchString(sum.UpdatedAt) {
		t.Errorf("summary = %+v", sum)
	}
	req := fake.Requests()[0]
	if len(req.Messages) != 2 || req.Messages[0].Role != model.RoleSystem || req.Messages[1].Role != model.RoleUser {
		t.Fatalf("messages = %+v", req.Messages)
	}
	if req.Messages[0].Content != conversationPrompt {
		t.Errorf("system prompt:\n%q\nwant\n%q", req.Messages[0].Content, conversationPrompt)
	}
	if req.Messages[1].Content != "Provide the summary of the conversation." {
		t.Errorf("request message = %q", req.Messages[1].Content)
	}
	if len(req.Tools) != 0 {
		t.Errorf("tools sent: %v", toolNames(req))
	}
	rf := req.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.Name != "SessionSummaryResponse" || !rf.Strict {
		t.Fatalf("response format = %+v", rf)
	}
	const wantSchema = `{"description":"Model for Session Summary.","properties":{"summary":{"description":"Summary of the session. Be concise and focus on only important information. Do not make anything up.","title":"Summary","type":"string"},"topics":{"anyOf":[{"items":{"type":"string"},"type":"array"},{"type":"null"}],"description":"Topics discussed in the session.","title":"Topics"}},"required":["summary","topics"],"title":"SessionSummaryResponse","type":"object","additionalProperties":false}`
	if string(rf.Schema) != wantSchema || !json.Valid(rf.Schema) {
		t.Errorf("schema = %s", rf.Schema)
	}
}

func TestSummarizeJSONModeFallback(t *testing.T) {
	fake := modeltest.New(modeltest.Response{Content: "Here you go:\n```json\n{\n  \"summary\": \"Ana asked about Lisbon.\",\n  \"topics\": null\n}\n```"})
	s := newSummary(t, SummaryConfig{Model: fake})
	sum, err := s.Summarize(context.Background(), conversation)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Summary != "Ana asked about Lisbon." || sum.Topics != nil {
		t.Errorf("summary = %+v", sum)
	}
	req := fake.Requests()[0]
	if rf := req.ResponseFormat; rf == nil || rf.Type != "json_object" || rf.Schema != nil {
		t.Errorf("response format = %+v", rf)
	}
	want := conversationPrompt + "\n" + golden(t, "summary_json_prompt.golden")
	if req.Messages[0].Content != want {
		t.Errorf("system prompt:\n%s", req.Messages[0].Content)
	}

	// Without JSON mode the prompt alone asks for JSON.
	plain := plainModel{modeltest.New(modeltest.Response{Content: `{"summary":"s"}`})}
	s = newSummary(t, SummaryConfig{Model: plain})
	if _, err := s.Summarize(context.Background(), conversation); err != nil {
		t.Fatal(err)
	}
	req = plain.Requests()[0]
	if req.ResponseFormat != nil || req.Messages[0].Content != want {
		t.Errorf("plain model: format %+v, prompt ok %v", req.ResponseFormat, req.Messages[0].Content == want)
	}
}

func TestSummarizeCustomTexts(t *testing.T) {
	fake := modeltest.New(modeltest.Response{Content: `{"summary":"short"}`})
	fake.Structured = true
	s := newSummary(t, SummaryConfig{Model: fake, Prompt: "Summarise this chat.", RequestMessage: "Summary please."})
	if _, err := s.Summarize(context.Background(), conversation[1:3]); err != nil {
		t.Fatal(err)
	}
	req := fake.Requests()[0]
	if got := req.Messages[0].Content; got != "Summarise this chat.<conversation>User: Hi, I'm Ana\nAssistant: Hello Ana!\n</conversation>" {
		t.Errorf("system prompt = %q", got)
	}
	if req.Messages[1].Content != "Summary please." {
		t.Errorf("request = %q", req.Messages[1].Content)
	}
}

func TestSummarizeErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("upstream down")
	s := newSummary(t, SummaryConfig{Model: modeltest.New(modeltest.Response{Err: boom})})
	if _, err := s.Summarize(ctx, conversation); !errors.Is(err, boom) {
		t.Errorf("model error: %v", err)
	}
	s = newSummary(t, SummaryConfig{Model: modeltest.New(modeltest.Response{Status: 429})})
	if _, err := s.Summarize(ctx, conversation); err == nil {
		t.Error("rate limit not returned")
	} else if pe, ok := model.AsProviderError(err); !ok || !pe.RateLimited() {
		t.Errorf("rate limit error = %v", err)
	}
	s = newSummary(t, SummaryConfig{Model: modeltest.New(modeltest.Response{Content: "I cannot summarise this."})})
	if _, err := s.Summarize(ctx, conversation); !errors.Is(err, ErrSummaryFormat) {
		t.Errorf("prose answer: %v", err)
	}
}

func TestParseSummaryTolerance(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		summary  string
		topics   []string
		bad      bool
	}{
		{name: "plain", in: `{"summary":"a","topics":["x"]}`, summary: "a", topics: []string{"x"}},
		{name: "fenced json", in: "```json\n{\"summary\": \"a\", \"topics\": [\"x\", \"y\"]}\n```", summary: "a", topics: []string{"x", "y"}},
		{name: "fenced bare", in: "```\n{\"summary\": \"a\"}\n```", summary: "a"},
		{name: "fence on one line", in: "```json {\"summary\": \"a\"} ```", summary: "a"},
		{name: "prose around", in: "Sure! {\"summary\": \"a {b}\", \"topics\": []} Hope this helps.", summary: "a {b}", topics: []string{}},
		{name: "think block", in: "<think>{\"summary\": \"draft\"}</think>\n{\"summary\": \"final\"}", summary: "final"},
		{name: "raw newline in string", in: "{\"summary\": \"line one\nline two\"}", summary: "line one line two"},
		{name: "objects merged", in: `{"summary":"first"} and {"topics":["a"]} then {"summary":"last","topics":["b"]}`, summary: "last", topics: []string{"a", "b"}},
		{name: "escaped quote", in: `{"summary":"she said \"hi\" }"}`, summary: `she said "hi" }`},
		{name: "missing summary", in: `{"topics":["a"]}`, bad: true},
		{name: "summary not a string", in: `{"summary":42}`, bad: true},
		{name: "summary null", in: `{"summary":null}`, bad: true},
		{name: "topics not a list", in: `{"summary":"a","topics":"x"}`, bad: true},
		{name: "no json", in: "no summary here", bad: true},
		{name: "broken json", in: `{"summary": "a",`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSummary(tc.in)
			if tc.bad {
				if !errors.Is(err, ErrSummaryFormat) {
					t.Fatalf("got %+v, %v; want ErrSummaryFormat", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Summary != tc.summary || !slices.Equal(got.Topics, tc.topics) || (tc.topics != nil) != (got.Topics != nil) {
				t.Errorf("got %+v, want %q %v", got, tc.summary, tc.topics)
			}
		})
	}
}

func TestConversationSelection(t *testing.T) {
	sys := model.Message{Role: model.RoleSystem, Content: "sys"}
	runOf := func(n string) []model.Message {
		return []model.Message{
			sys,
			{Role: model.RoleUser, Content: "old " + n, FromHistory: true},
			{Role: model.RoleUser, Content: "q" + n},
			{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{modeltest.ToolCall("c"+n, "f", "{}")}},
			{Role: model.RoleTool, ToolCallID: "c" + n, Content: "r" + n},
			{Role: model.RoleAssistant, Content: "a" + n},
		}
	}
	runs := [][]model.Message{runOf("1"), runOf("2"), runOf("3")}
	texts := func(msgs []model.Message) string {
		var out []string
		for _, m := range msgs {
			out = append(out, string(m.Role)+":"+m.Content)
		}
		return strings.Join(out, "|")
	}
	for _, tc := range []struct {
		name string
		cfg  SummaryConfig
		want string
	}{
		{"all runs", SummaryConfig{}, "system:sys|user:q1|assistant:|tool:r1|assistant:a1|user:q2|assistant:|tool:r2|assistant:a2|user:q3|assistant:|tool:r3|assistant:a3"},
		{"last run", SummaryConfig{LastNRuns: 1}, "system:sys|user:q3|assistant:|tool:r3|assistant:a3"},
		{"more runs than there are", SummaryConfig{LastNRuns: 5}, "system:sys|user:q1|assistant:|tool:r1|assistant:a1|user:q2|assistant:|tool:r2|assistant:a2|user:q3|assistant:|tool:r3|assistant:a3"},
		{"limit keeps system plus latest", SummaryConfig{ConversationLimit: 4}, "system:sys|assistant:|tool:r3|assistant:a3"},
		{"limit drops leading tool result", SummaryConfig{ConversationLimit: 3}, "system:sys|assistant:a3"},
		{"limit wins over last runs", SummaryConfig{ConversationLimit: 6, LastNRuns: 1}, "system:sys|assistant:a2|user:q3|assistant:|tool:r3|assistant:a3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Model = modeltest.New()
			if got := texts(newSummary(t, tc.cfg).Conversation(runs)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestNewSummaryManagerValidates(t *testing.T) {
	for _, tc := range []struct {
		cfg   SummaryConfig
		field string
	}{
		{SummaryConfig{}, "SummaryConfig.Model"},
		{SummaryConfig{Model: modeltest.New(), LastNRuns: -1}, "SummaryConfig.LastNRuns"},
		{SummaryConfig{Model: modeltest.New(), ConversationLimit: -2}, "SummaryConfig.ConversationLimit"},
	} {
		if _, err := NewSummaryManager(tc.cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err = %v", tc.field, err)
		}
	}
}
