package slack

import (
	"context"

	slackapi "github.com/slack-go/slack"

	"github.com/agno-go/agno/tool/internal/serviceapi"
)

type sendArgs struct {
	Channel string `json:"channel" description:"(str) The channel ID or name to send the message to."`
	Text    string `json:"text" description:"(str) The text of the message to send. Supports Slack mrkdwn formatting."`
}

type threadArgs struct {
	Channel  string `json:"channel" description:"(str) The channel ID or name where the thread exists."`
	Text     string `json:"text" description:"(str) The text of the reply. Supports Slack mrkdwn formatting."`
	ThreadTS string `json:"thread_ts" description:"(str) The timestamp of the parent message to reply to."`
}

type listChannelsArgs struct {
	IncludePrivate *bool `json:"include_private,omitempty" description:"Whether to include private channels visible to the bot."`
}

type historyArgs struct {
	Channel string `json:"channel" description:"(str) The channel ID or name (for example, C123... or #general)."`
	Limit   *int   `json:"limit,omitempty" description:"(int) The maximum number of messages to fetch. Defaults to 100."`
}

type searchArgs struct {
	Query string `json:"query" description:"(str) The search query. Supports modifiers like from:@user, in:#channel, has:link, before:date, after:date."`
	Limit *int   `json:"limit,omitempty" description:"(int) The maximum number of results to return. Defaults to 20, max 100."`
}

type getThreadArgs struct {
	Channel  string `json:"channel" description:"(str) The channel ID or name where the thread exists."`
	ThreadTS string `json:"thread_ts" description:"(str) The timestamp of the parent message."`
	Limit    *int   `json:"limit,omitempty" description:"(int) The maximum number of replies to fetch. Defaults to 20. Capped by thread_message_limit."`
}

type listUsersArgs struct {
	Limit *int `json:"limit,omitempty" description:"(int) The maximum number of users to fetch. Defaults to 100."`
}

type userInfoArgs struct {
	UserID string `json:"user_id" description:"(str) The Slack user ID to look up."`
}

type channelInfoArgs struct {
	Channel string `json:"channel" description:"(str) The Slack channel ID or name to look up."`
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func (t *tools) post(ctx context.Context, channel, text, threadTS string) string {
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false)}
	if threadTS != "" {
		opts = append(opts, slackapi.MsgOptionTS(threadTS))
	}
	if !t.markdown {
		opts = append(opts, slackapi.MsgOptionDisableMarkdown())
	}
	ans, aerr := t.call(ctx, "chat.postMessage", func(ctx context.Context) error {
		_, _, err := t.api.PostMessageContext(ctx, channel, opts...)
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String()))
	}
	return t.dumps(ans)
}

func (t *tools) sendMessage(ctx context.Context, a sendArgs) (string, error) {
	return t.post(ctx, a.Channel, a.Text, ""), nil
}

func (t *tools) sendMessageThread(ctx context.Context, a threadArgs) (string, error) {
	return t.post(ctx, a.Channel, a.Text, a.ThreadTS), nil
}

func (t *tools) listChannels(ctx context.Context, a listChannelsArgs) (string, error) {
	types := []string{"public_channel"}
	if a.IncludePrivate != nil && *a.IncludePrivate {
		types = []string{"public_channel", "private_channel"}
	}
	channels := []any{}
	cursor := ""
	for {
		page, aerr := t.conversations(ctx, types, cursor)
		if aerr != nil {
			return t.dumps(aerr.payload("conversations.list", "", "")), nil
		}
		for _, c := range list(page.GetOr("channels", nil)) {
			ch := obj(c)
			id, name := str(ch.GetOr("id", nil)), str(ch.GetOr("name", nil))
			if id == "" || name == "" {
				continue
			}
			t.remember(resolved{id: id, name: name})
			e := serviceapi.NewObject()
			e.Set("id", id)
			e.Set("name", name)
			e.Set("is_private", ch.GetOr("is_private", false))
			channels = append(channels, e)
		}
		if cursor = nextCursor(page); cursor == "" {
			break
		}
	}
	return t.dumps(channels), nil
}

func (t *tools) getChannelHistory(ctx context.Context, a historyArgs) (string, error) {
	ch, errObj := t.resolve(ctx, a.Channel)
	if errObj != nil {
		return t.dumps(errObj), nil
	}
	ans, aerr := t.call(ctx, "conversations.history", func(ctx context.Context) error {
		_, err := t.api.GetConversationHistoryContext(ctx, &slackapi.GetConversationHistoryParameters{ChannelID: ch.id, Limit: intOr(a.Limit, 100)})
		return err
	})
	if aerr != nil {
		return t.dumps(aerr.payload("conversations.history", a.Channel, inviteHint)), nil
	}
	raw := list(ans.GetOr("messages", nil))
	names := t.userNames(ctx, raw)
	messages := []any{}
	for _, m := range raw {
		msg := obj(m)
		e := entry(msg, names, ch)
		// Thread metadata lets the agent find and expand threads.
		if ts := msg.GetOr("thread_ts", nil); truthy(ts) {
			e.Set("thread_ts", ts)
			e.Set("reply_count", msg.GetOr("reply_count", 0))
		}
		messages = append(messages, e)
	}
	return t.dumps(messages), nil
}

func (t *tools) searchMessages(ctx context.Context, a searchArgs) (string, error) {
	ans, aerr := t.call(ctx, "search.messages", func(ctx context.Context) error {
		p := slackapi.NewSearchParameters()
		p.Count = min(intOr(a.Limit, 20), 100)
		_, err := t.api.SearchMessagesContext(ctx, a.Query, p)
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	messages := []any{}
	for _, m := range list(obj(ans.GetOr("messages", nil)).GetOr("matches", nil)) {
		msg := obj(m)
		ch := obj(msg.GetOr("channel", nil))
		e := serviceapi.NewObject()
		e.Set("text", msg.GetOr("text", ""))
		e.Set("user", msg.GetOr("user", "unknown"))
		e.Set("channel_id", ch.GetOr("id", ""))
		e.Set("channel_name", ch.GetOr("name", ""))
		e.Set("ts", msg.GetOr("ts", ""))
		e.Set("permalink", msg.GetOr("permalink", ""))
		messages = append(messages, e)
	}
	out := serviceapi.NewObject()
	out.Set("count", len(messages))
	out.Set("messages", messages)
	return t.dumps(out), nil
}

func (t *tools) getThread(ctx context.Context, a getThreadArgs) (string, error) {
	ch, errObj := t.resolve(ctx, a.Channel)
	if errObj != nil {
		return t.dumps(errObj), nil
	}
	ans, aerr := t.call(ctx, "conversations.replies", func(ctx context.Context) error {
		_, _, _, err := t.api.GetConversationRepliesContext(ctx, &slackapi.GetConversationRepliesParameters{
			ChannelID: ch.id, Timestamp: a.ThreadTS, Limit: min(intOr(a.Limit, 20), t.threadLimit),
		})
		return err
	})
	if aerr != nil {
		return t.dumps(aerr.payload("conversations.replies", a.Channel, inviteHint)), nil
	}
	raw := list(ans.GetOr("messages", nil))
	names := t.userNames(ctx, raw)
	messages := []any{}
	for _, m := range raw {
		messages = append(messages, entry(obj(m), names, ch))
	}
	out := serviceapi.NewObject()
	out.Set("channel_id", ch.id)
	if ch.name != "" {
		out.Set("channel_name", ch.name)
	} else {
		out.Set("channel_name", nil)
	}
	out.Set("thread_ts", a.ThreadTS)
	out.Set("reply_count", len(messages)-1)
	out.Set("messages", messages)
	return t.dumps(out), nil
}

func (t *tools) listUsers(ctx context.Context, a listUsersArgs) (string, error) {
	ans, aerr := t.call(ctx, "users.list", func(ctx context.Context) error {
		_, err := t.api.GetUsersPaginated(slackapi.GetUsersOptionLimit(intOr(a.Limit, 100))).Next(ctx)
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	users := []any{}
	for _, m := range list(ans.GetOr("members", nil)) {
		member := obj(m)
		if truthy(member.GetOr("deleted", false)) {
			continue
		}
		profile := obj(member.GetOr("profile", nil))
		u := serviceapi.NewObject()
		u.Set("id", member.GetOr("id", ""))
		u.Set("name", member.GetOr("name", ""))
		u.Set("real_name", profile.GetOr("real_name", ""))
		u.Set("title", profile.GetOr("title", ""))
		u.Set("is_bot", member.GetOr("is_bot", false))
		users = append(users, u)
	}
	out := serviceapi.NewObject()
	out.Set("count", len(users))
	out.Set("users", users)
	return t.dumps(out), nil
}

func (t *tools) getUserInfo(ctx context.Context, a userInfoArgs) (string, error) {
	ans, aerr := t.call(ctx, "users.info", func(ctx context.Context) error {
		_, err := t.api.GetUserInfoContext(ctx, a.UserID)
		return err
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	user := obj(ans.GetOr("user", nil))
	profile := obj(user.GetOr("profile", nil))
	out := serviceapi.NewObject()
	out.Set("id", user.GetOr("id", ""))
	out.Set("name", user.GetOr("name", ""))
	out.Set("real_name", profile.GetOr("real_name", ""))
	out.Set("email", profile.GetOr("email", ""))
	out.Set("title", profile.GetOr("title", ""))
	out.Set("tz", user.GetOr("tz", ""))
	out.Set("is_bot", user.GetOr("is_bot", false))
	return t.dumps(out), nil
}

func (t *tools) getChannelInfo(ctx context.Context, a channelInfoArgs) (string, error) {
	ch, errObj := t.resolve(ctx, a.Channel)
	if errObj != nil {
		return t.dumps(errObj), nil
	}
	ans, aerr := t.call(ctx, "conversations.info", func(ctx context.Context) error {
		_, err := t.api.GetConversationInfoContext(ctx, &slackapi.GetConversationInfoInput{ChannelID: ch.id, IncludeNumMembers: true})
		return err
	})
	if aerr != nil {
		return t.dumps(aerr.payload("conversations.info", a.Channel, inviteHint)), nil
	}
	c := obj(ans.GetOr("channel", nil))
	if id, name := str(c.GetOr("id", nil)), str(c.GetOr("name", nil)); id != "" && name != "" {
		t.remember(resolved{id: id, name: name})
	}
	out := serviceapi.NewObject()
	out.Set("id", c.GetOr("id", ""))
	out.Set("name", c.GetOr("name", ""))
	out.Set("topic", obj(c.GetOr("topic", nil)).GetOr("value", ""))
	out.Set("purpose", obj(c.GetOr("purpose", nil)).GetOr("value", ""))
	out.Set("num_members", c.GetOr("num_members", 0))
	out.Set("is_private", c.GetOr("is_private", false))
	out.Set("is_archived", c.GetOr("is_archived", false))
	out.Set("created", c.GetOr("created", 0))
	out.Set("creator", c.GetOr("creator", ""))
	return t.dumps(out), nil
}
