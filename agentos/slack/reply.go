package slack

import (
	"context"
	"strconv"
	"strings"

	slackapi "github.com/slack-go/slack"
)

// agno's router texts.
const (
	ErrorText      = "Sorry, there was an error processing your message."
	RunErrorText   = ErrorText + " Please try again later."
	loadingText    = "Thinking..."
	maxMessageRune = 39900 // under Slack's 40K limit, room for the [i/n] prefix
)

// Client is the Web API client of c: its token, at its APIURL.
func (c *Config) Client() *slackapi.Client {
	u := c.APIURL
	if u == "" {
		u = DefaultAPIURL
	}
	if !strings.HasSuffix(u, "/") {
		u += "/" // slack-go appends method names
	}
	return slackapi.New(c.Token, slackapi.OptionAPIURL(u))
}

// SetStatus shows (or, with "", clears) the thread's "Thinking..."
// status; agno ignores its failures (it needs the assistant scope).
func SetStatus(ctx context.Context, api *slackapi.Client, m Message, thinking bool) {
	status := ""
	if thinking {
		status = loadingText
	}
	_ = api.SetAssistantThreadsStatusContext(ctx, slackapi.AssistantThreadsSetStatusParameters{ChannelID: m.Channel, ThreadTS: m.ThreadTS, Status: status})
}

// Post is agno's send_slack_message: text in m's thread, split into
// "[i/n] " batches past Slack's limit; blank text posts nothing.
func Post(ctx context.Context, api *slackapi.Client, m Message, text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	r := []rune(text)
	if len(r) <= maxMessageRune {
		return post(ctx, api, m, text)
	}
	n := (len(r) + maxMessageRune - 1) / maxMessageRune
	for i := range n {
		part := r[i*maxMessageRune : min((i+1)*maxMessageRune, len(r))]
		if err := post(ctx, api, m, "["+strconv.Itoa(i+1)+"/"+strconv.Itoa(n)+"] "+string(part)); err != nil {
			return err
		}
	}
	return nil
}

func post(ctx context.Context, api *slackapi.Client, m Message, text string) error {
	_, _, err := api.PostMessageContext(ctx, m.Channel, slackapi.MsgOptionText(text, false), slackapi.MsgOptionTS(m.ThreadTS))
	return err
}

// Reasoning is agno's reasoning message: a quoted block.
func Reasoning(rc string) string {
	return "*Reasoning:*\n> " + strings.ReplaceAll(rc, "\n", "\n> ")
}
