package slack

import (
	"context"
	"errors"

	slackapi "github.com/slack-go/slack"
)

// Prompt is one suggested prompt of an assistant thread: the short title
// Slack shows and the message sent when it is picked.
type Prompt struct {
	Title   string
	Message string
}

// MaxPrompts is how many suggested prompts Slack shows.
const MaxPrompts = 4

// DefaultPrompts are agno's prompts when Slack(suggested_prompts=) is not
// given (router._handle_thread_started).
var DefaultPrompts = []Prompt{
	{Title: "Help", Message: "What can you help me with?"},
	{Title: "Search", Message: "Search the web for..."},
}

// ThreadStart is an assistant_thread_started event: a user opened a new
// assistant thread (the app's Messages tab or the side panel).
type ThreadStart struct {
	Channel  string // event.assistant_thread.channel_id
	ThreadTS string // event.assistant_thread.thread_ts
	User     string // event.assistant_thread.user_id
	Team     string // the workspace: team_id, or the thread context's
}

// Prompts is c's suggested prompts: SuggestedPrompts, or agno's
// DefaultPrompts when none are set (agno: suggested_prompts or default).
func (c *Config) Prompts() []Prompt {
	if len(c.SuggestedPrompts) == 0 {
		return DefaultPrompts
	}
	return c.SuggestedPrompts
}

// SetSuggestedPrompts sets prompts on the thread t started
// (assistant.threads.setSuggestedPrompts, which needs the app's
// assistant:write scope). No prompts: DefaultPrompts. agno sets no title,
// so none is sent; a prompt without a title shows its message.
func SetSuggestedPrompts(ctx context.Context, api *slackapi.Client, t ThreadStart, prompts []Prompt) error {
	if t.Channel == "" || t.ThreadTS == "" {
		return errors.New("slack: setSuggestedPrompts needs the thread's channel id and thread_ts (event.assistant_thread)")
	}
	if len(prompts) == 0 {
		prompts = DefaultPrompts
	}
	params := slackapi.AssistantThreadsSetSuggestedPromptsParameters{ChannelID: t.Channel, ThreadTS: t.ThreadTS}
	for _, p := range prompts[:min(len(prompts), MaxPrompts)] {
		title := p.Title
		if title == "" {
			title = p.Message
		}
		params.AddPrompt(title, p.Message)
	}
	return api.SetAssistantThreadsSuggestedPromptsContext(ctx, params)
}
