package slack

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

type searchWorkspaceArgs struct {
	Query                  string   `json:"query" description:"(str) Natural language question or keywords. Supports filters:\nin:<#channel>, from:<@user>, has:link, before:YYYY-MM-DD, after:YYYY-MM-DD."`
	ContentTypes           []string `json:"content_types,omitempty" enum:"messages,files,channels,users" description:"(list) What to search for. Defaults to [\"messages\"]."`
	ChannelTypes           []string `json:"channel_types,omitempty" enum:"public_channel,private_channel,mpim,im" description:"(list) Channel scopes to include. Defaults to [\"public_channel\"]."`
	Limit                  *int     `json:"limit,omitempty" description:"(int) Results per content type, max 20."`
	IncludeContextMessages *bool    `json:"include_context_messages,omitempty" description:"(bool) Include surrounding messages for each result."`
}

// searchWorkspace is agno's search_workspace over
// assistant.search.context, with the action_token the Slack interface
// puts in the run's metadata. slack-go has no call for this method, so
// it is posted through the same guarded client.
func (t *tools) searchWorkspace(ctx context.Context, a searchWorkspaceArgs) (string, error) {
	var actionToken string
	if rc := run.FromContext(ctx); rc != nil && rc.Metadata != nil {
		actionToken, _ = rc.Metadata["action_token"].(string)
	}
	if actionToken == "" {
		return t.dumps(errObject("No action_token available. This tool only works when invoked through the Slack interface.")), nil
	}
	contentTypes, channelTypes := a.ContentTypes, a.ChannelTypes
	if len(contentTypes) == 0 {
		contentTypes = []string{"messages"}
	}
	if len(channelTypes) == 0 {
		channelTypes = []string{"public_channel"}
	}
	include := a.IncludeContextMessages == nil || *a.IncludeContextMessages
	limit := 10
	if a.Limit != nil {
		limit = *a.Limit
	}
	form := url.Values{
		"query": {a.Query}, "action_token": {actionToken}, "content_types": {strings.Join(contentTypes, ",")},
		"channel_types": {strings.Join(channelTypes, ",")}, "limit": {strconv.Itoa(min(limit, 20))},
		// slack_sdk sends booleans as 1 and 0.
		"include_context_messages": {map[bool]string{true: "1", false: "0"}[include]},
	}
	ans, aerr := t.call(ctx, "assistant.search.context", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint+"assistant.search.context", strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+t.token)
		resp, err := t.rec.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	})
	if aerr != nil {
		return t.dumps(errObject(aerr.String())), nil
	}
	if ok, _ := ans.GetOr("ok", false).(bool); !ok {
		code := ans.GetOr("error", "unknown_error")
		t.log.Error("assistant.search.context failed: " + str(code))
		return t.dumps(errObject(code)), nil
	}
	return t.dumps(formatSearch(obj(ans.GetOr("results", nil)), include)), nil
}

// formatSearch is agno's _format_search_results.
func formatSearch(results *serviceapi.Object, include bool) *serviceapi.Object {
	out := serviceapi.NewObject()
	count := 0
	if ms := list(results.GetOr("messages", nil)); len(ms) > 0 {
		var msgs []any
		for _, m := range ms {
			msgs = append(msgs, formatMessage(obj(m), include))
		}
		out.Set("messages", msgs)
		count += len(msgs)
	}
	pick := func(key string, fields [][2]string) {
		items := list(results.GetOr(key, nil))
		if len(items) == 0 {
			return
		}
		var outItems []any
		for _, it := range items {
			o := serviceapi.NewObject()
			for _, f := range fields {
				o.Set(f[0], obj(it).GetOr(f[1], ""))
			}
			outItems = append(outItems, o)
		}
		out.Set(key, outItems)
		count += len(outItems)
	}
	pick("files", [][2]string{{"title", "title"}, {"file_type", "file_type"}, {"author", "author_name"}, {"permalink", "permalink"}})
	pick("channels", [][2]string{{"name", "name"}, {"topic", "topic"}, {"purpose", "purpose"}, {"permalink", "permalink"}})
	pick("users", [][2]string{{"user_id", "user_id"}, {"full_name", "full_name"}, {"title", "title"}, {"email", "email"}, {"permalink", "permalink"}})
	out.Set("result_count", count)
	return out
}

// formatMessage is agno's _format_message.
func formatMessage(m *serviceapi.Object, include bool) *serviceapi.Object {
	e := serviceapi.NewObject()
	for _, f := range [][3]any{
		{"content", "content", ""}, {"author", "author_name", ""}, {"author_user_id", "author_user_id", ""},
		{"is_bot", "is_author_bot", false}, {"channel_id", "channel_id", ""}, {"channel_name", "channel_name", ""},
		{"ts", "message_ts", ""}, {"permalink", "permalink", ""},
	} {
		e.Set(f[0].(string), m.GetOr(f[1].(string), f[2]))
	}
	if include {
		ctxMsgs := obj(m.GetOr("context_messages", nil))
		for _, side := range [][2]string{{"before", "context_before"}, {"after", "context_after"}} {
			var items []any
			for _, cm := range list(ctxMsgs.GetOr(side[0], nil)) {
				o := serviceapi.NewObject()
				o.Set("text", obj(cm).GetOr("text", ""))
				o.Set("user_id", obj(cm).GetOr("user_id", ""))
				items = append(items, o)
			}
			if len(items) > 0 {
				e.Set(side[1], items)
			}
		}
	}
	return e
}
