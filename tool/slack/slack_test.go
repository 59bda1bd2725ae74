package slack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
)

const testToken = "xoxb-test-token"

// fakeSlack answers the Web API methods the toolkit calls with the
// response examples of Slack's method pages:
// https://api.slack.com/methods/chat.postMessage,
// https://api.slack.com/methods/conversations.list,
// https://api.slack.com/methods/conversations.history,
// https://api.slack.com/methods/conversations.replies,
// https://api.slack.com/methods/conversations.info,
// https://api.slack.com/methods/users.info,
// https://api.slack.com/methods/users.list,
// https://api.slack.com/methods/search.messages,
// https://api.slack.com/methods/files.getUploadURLExternal,
// https://api.slack.com/methods/files.completeUploadExternal and
// https://api.slack.com/methods/assistant.search.context,
// https://api.slack.com/methods/files.info (url_private fetched with the
// token as a bearer, https://api.slack.com/types/file#auth); errors as
// https://api.slack.com/web#evaluating_responses ({"ok": false, "error": …}).
type fakeSlack struct {
	srv   *httptest.Server
	mu    sync.Mutex
	calls []string // method plus the form, for the assertions
	forms map[string]url.Values
	// missingScope makes conversations.list refuse private channels.
	missingScope bool
	uploaded     []string
}

func newFake(t *testing.T) *fakeSlack {
	f := &fakeSlack{forms: map[string]url.Values{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		method := strings.TrimPrefix(r.URL.Path, "/api/")
		f.mu.Lock()
		f.calls = append(f.calls, method)
		f.forms[method] = r.Form
		f.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/upload/") {
			f.mu.Lock()
			f.uploaded = append(f.uploaded, r.Form.Get("filename"))
			f.mu.Unlock()
			_, _ = w.Write([]byte("OK - 42"))
			return
		}
		if strings.HasPrefix(r.URL.Path, "/files-pri/") {
			if r.Header.Get("Authorization") != "Bearer "+testToken {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			if strings.HasSuffix(r.URL.Path, "/gone.txt") {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			_, _ = w.Write([]byte("hello from slack"))
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		if r.Form.Get("token") != testToken && r.Header.Get("Authorization") != "Bearer "+testToken {
			_, _ = w.Write([]byte(`{"ok": false, "error": "invalid_auth"}`))
			return
		}
		_, _ = w.Write([]byte(f.answer(method, r.Form)))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSlack) answer(method string, v url.Values) string {
	switch method {
	case "chat.postMessage":
		if v.Get("channel") == "C0GONE" {
			return `{"ok": false, "error": "channel_not_found"}`
		}
		if v.Get("text") == "huge" {
			return `{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247", "message": {"text": "` + strings.Repeat("x", 9000) + `"}}`
		}
		return `{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247", "message": {"text": "` + v.Get("text") + `", "username": "ecto1", "bot_id": "B123ABC456", "type": "message", "subtype": "bot_message", "ts": "1503435956.000247"}}`
	case "conversations.list":
		if f.missingScope && strings.Contains(v.Get("types"), "private") {
			return `{"ok": false, "error": "missing_scope", "needed": "groups:read", "provided": "channels:read"}`
		}
		if v.Get("cursor") == "" {
			return `{"ok": true, "channels": [{"id": "C012AB3CD", "name": "general", "is_channel": true, "is_private": false, "is_archived": false}, {"id": "C061EG9T2", "name": "random", "is_private": false}], "response_metadata": {"next_cursor": "dGVhbTpDMDYxRkE1UEI="}}`
		}
		return `{"ok": true, "channels": [{"id": "G0PRIV", "name": "secret-ops", "is_private": true}, {"id": "", "name": "broken"}], "response_metadata": {"next_cursor": ""}}`
	case "conversations.history":
		if v.Get("channel") == "C0NOTIN" {
			return `{"ok": false, "error": "not_in_channel"}`
		}
		return `{"ok": true, "messages": [
			{"type": "message", "user": "U012AB3CDE", "text": "I find you punny and would like to smell your nose letter", "ts": "1512085950.000216", "thread_ts": "1512085950.000216", "reply_count": 3},
			{"type": "message", "subtype": "bot_message", "username": "deploybot", "text": "Deployed", "ts": "1512104434.000490", "attachments": [{"fallback": "ok", "color": "good"}]},
			{"type": "message", "user": "U061F7AUR", "text": "What, you want to smell my shoes better?", "ts": "1512104434.000491"}
		], "has_more": false}`
	case "conversations.replies":
		return `{"ok": true, "messages": [
			{"type": "message", "user": "U012AB3CDE", "text": "island", "thread_ts": "1482960137.003543", "reply_count": 1, "ts": "1482960137.003543"},
			{"type": "message", "user": "U061F7AUR", "text": "one island", "thread_ts": "1482960137.003543", "parent_user_id": "U012AB3CDE", "ts": "1483037603.017503"}
		], "has_more": false}`
	case "users.info":
		switch v.Get("user") {
		case "U012AB3CDE":
			return `{"ok": true, "user": {"id": "U012AB3CDE", "name": "spengler", "deleted": false, "tz": "America/Los_Angeles", "is_bot": false, "profile": {"title": "Ghostbuster", "real_name": "Egon Spengler", "display_name": "spengler", "email": "spengler@ghostbusters.example.com"}}}`
		case "U061F7AUR":
			return `{"ok": true, "user": {"id": "U061F7AUR", "name": "raymond", "profile": {"real_name": "Ray Stantz", "display_name": ""}}}`
		}
		return `{"ok": false, "error": "user_not_found"}`
	case "users.list":
		return `{"ok": true, "members": [
			{"id": "W012A3CDE", "name": "spengler", "deleted": false, "is_bot": false, "profile": {"real_name": "Egon Spengler", "title": "Ghostbuster"}},
			{"id": "W07QCRPA4", "name": "glinda", "deleted": true, "profile": {"real_name": "Glinda"}},
			{"id": "B0BOT", "name": "helper", "is_bot": true, "profile": {}}
		], "response_metadata": {"next_cursor": ""}}`
	case "conversations.info":
		return `{"ok": true, "channel": {"id": "C012AB3CD", "name": "general", "is_channel": true, "created": 1449252889, "creator": "W012A3BCD", "is_archived": false, "is_private": false, "topic": {"value": "For public discussion of generalities", "creator": "W012A3BCD", "last_set": 1449709364}, "purpose": {"value": "This part of the workspace is for fun.", "creator": "", "last_set": 0}, "num_members": 23}}`
	case "files.getUploadURLExternal":
		return `{"ok": true, "upload_url": "` + f.srv.URL + `/upload/v1/ABC123", "file_id": "F123ABC456"}`
	case "files.completeUploadExternal":
		if strings.Contains(v.Get("channel_id"), "GONE") || strings.Contains(v.Get("channel_id"), "C0GONE") {
			return `{"ok": false, "error": "channel_not_found"}`
		}
		var files []map[string]any
		_ = json.Unmarshal([]byte(v.Get("files")), &files)
		title := ""
		if len(files) == 1 {
			title, _ = files[0]["title"].(string)
		}
		return `{"ok": true, "files": [{"id": "F123ABC456", "title": "` + title + `"}]}`
	case "files.info":
		switch v.Get("file") {
		case "F0NOURL":
			return `{"ok": true, "file": {"id": "F0NOURL", "name": "x.txt", "size": 3}}`
		case "F0GONE":
			return `{"ok": true, "file": {"id": "F0GONE", "name": "gone.txt", "size": 3, "url_private": "` + f.srv.URL + `/files-pri/T1-F0GONE/gone.txt"}}`
		case "F0BIG":
			return `{"ok": true, "file": {"id": "F0BIG", "name": "big.bin", "size": 2147483648, "url_private": "` + f.srv.URL + `/files-pri/T1-F0BIG/big.bin"}}`
		}
		return `{"ok": true, "file": {"id": "F2147483862", "created": 1524162343, "name": "hello.txt", "title": "hello.txt", "mimetype": "text/plain", "filetype": "text", "size": 16, "url_private": "` + f.srv.URL + `/files-pri/T1-F2147483862/hello.txt"}}`
	case "assistant.search.context":
		if v.Get("action_token") != "act-1" {
			return `{"ok": false, "error": "invalid_action_token"}`
		}
		return `{"ok": true, "results": {"messages": [{"author_name": "Egon", "author_user_id": "U012AB3CDE", "team_id": "T1", "channel_id": "C012AB3CD", "channel_name": "general", "message_ts": "1729010000.000100", "content": "The deploy is at noon", "is_author_bot": false, "permalink": "https://example.slack.com/archives/C012AB3CD/p1729010000000100", "context_messages": {"before": [{"user_id": "U061F7AUR", "text": "When is the deploy?", "ts": "1729009990.000100"}], "after": []}}], "files": [{"title": "plan.pdf", "file_type": "pdf", "author_name": "Egon", "permalink": "https://example.slack.com/files/plan.pdf", "uploader_user_id": "U012AB3CDE"}]}}`
	case "search.messages":
		return `{"ok": true, "query": "The meaning of life the universe and everything", "messages": {"matches": [{"channel": {"id": "C12345678", "name": "general"}, "iid": "cb64bdaa", "permalink": "https://example.slack.com/archives/C12345678/p1508284197000015", "team": "T12345678", "text": "The meaning of life the universe and everything is 42.", "ts": "1508284197.000015", "type": "message", "user": "U2U85N1RV", "username": "roach"}], "pagination": {"first": 1, "last": 1, "page": 1, "page_count": 1, "per_page": 20, "total_count": 1}, "total": 1}}`
	}
	return `{"ok": false, "error": "unknown_method"}`
}

func (f *fakeSlack) form(method string) url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.forms[method]
}

func (f *fakeSlack) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == method {
			n++
		}
	}
	return n
}

func localClient(t *testing.T) *http.Client {
	t.Helper()
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Client(0)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: ToolkitName,
		Name:    "slack",
		Functions: []tooltest.Function{
			{Name: "send_message", Args: []string{"channel", "text"}},
			{Name: "send_message_thread", Args: []string{"channel", "text", "thread_ts"}},
			{Name: "list_channels", Args: []string{"include_private"}},
			{Name: "get_channel_history", Args: []string{"channel", "limit"}},
			{Name: "upload_file", Args: []string{"channel", "content", "filename", "title", "initial_comment", "thread_ts"}},
			{Name: "download_file", Args: []string{"file_id", "dest_path"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFake(t)
			// A bot without groups:read: list_channels(include_private) fails.
			f.missingScope = true
			env.HTTPClient = localClient(t)
			t.Setenv(TokenEnv, testToken)
			return `api_url = "` + f.srv.URL + `/api/"` + "\nmax_response_bytes = 4096"
		},
		Failures: map[string][]tooltest.Call{
			"send_message":        {{Args: `{"channel": "C0GONE", "text": "hi"}`, Want: `{"error": "The request to the Slack API failed. (url: http://127.0.0.1:`}},
			"send_message_thread": {{Args: `{"channel": "C0GONE", "text": "hi", "thread_ts": "1.2"}`, Want: `The server responded with: {'ok': False, 'error': 'channel_not_found'}`}},
			"list_channels":       {{Args: `{"include_private": true}`, Want: `{"error": "missing_scope", "operation": "conversations.list"}`}},
			"upload_file":         {{Args: `{"channel": "C0GONE", "content": "hi", "filename": "a.txt"}`, Want: `'error': 'channel_not_found'`}, {Args: `{"channel": "C1", "content": "hi", "filename": "../etc/passwd"}`, Want: `{"error": "Invalid filename: `}},
			"download_file":       {{Args: `{"file_id": "F0NOURL"}`, Want: `{"error": "File URL not available"}`}, {Args: `{"file_id": "F0GONE"}`, Want: `{"error": "HTTP error: `}, {Args: `{"file_id": "F0BIG"}`, Want: `{"error": "File big.bin (2048.0MB) exceeds 1024MB download limit"}`}},
			"get_channel_history": {
				{Args: `{"channel": "#nowhere"}`, Want: `{"error": "channel_not_found", "channel": "#nowhere", "hint": "If this is a private channel`},
				{Args: `{"channel": "C0NOTIN"}`, Want: `{"error": "not_in_channel", "operation": "conversations.history", "channel": "C0NOTIN", "hint": "Invite the bot`},
			},
		},
		Oversized: &tooltest.Oversized{Function: "send_message", Call: tooltest.Call{Args: `{"channel": "C1", "text": "huge"}`, Want: "max_response_bytes"}, Option: "max_response_bytes", Limit: 4096},
		BadOptions: []tooltest.BadOption{
			{Table: "max_file_size = 0", Key: "max_file_size"},
			{Table: "thread_message_limit = 0", Key: "thread_message_limit"},
			{Table: `api_url = "slack.com/api"`, Key: "api_url"},
			{Table: "timeout_seconds = -1", Key: "timeout_seconds"},
		},
	})
}

func build(t *testing.T, f *fakeSlack, cfg Config) map[string]*tool.Function {
	t.Helper()
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	cfg.APIURL = f.srv.URL + "/api/"
	cfg.HTTPClient = localClient(t)
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	m := map[string]*tool.Function{}
	for _, fn := range fns {
		m[fn.Name] = fn
	}
	return m
}

func call(t *testing.T, fn *tool.Function, args string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	res, err := fn.Invoke(context.Background(), nil, m)
	if err != nil {
		t.Fatalf("%s: %v", fn.Name, err)
	}
	return res.Content
}

func TestSendMessages(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, Config{All: true})
	out := call(t, fns["send_message"], `{"channel": "#general", "text": "Hello ☕"}`)
	// json.dumps(response.data): Slack's answer in its order, non-ASCII escaped.
	want := `{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247", "message": {"text": "Hello \u2615", "username": "ecto1", "bot_id": "B123ABC456", "type": "message", "subtype": "bot_message", "ts": "1503435956.000247"}}`
	if out != want {
		t.Errorf("send_message:\n got  %s\n want %s", out, want)
	}
	if v := f.form("chat.postMessage"); v.Get("channel") != "#general" || v.Get("thread_ts") != "" || v.Get("mrkdwn") == "false" {
		t.Errorf("chat.postMessage form = %v", v)
	}
	call(t, fns["send_message_thread"], `{"channel": "C123ABC456", "text": "reply", "thread_ts": "1503435956.000247"}`)
	if v := f.form("chat.postMessage"); v.Get("thread_ts") != "1503435956.000247" || v.Get("text") != "reply" {
		t.Errorf("thread reply form = %v", v)
	}
	off := false
	call(t, build(t, f, Config{EnableSendMessage: true, Markdown: &off})["send_message"], `{"channel": "C1", "text": "plain"}`)
	if v := f.form("chat.postMessage"); v.Get("mrkdwn") != "false" {
		t.Errorf("markdown = false: form = %v", v)
	}
}

func TestChannelsHistoryAndThread(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, Config{All: true})
	out := call(t, fns["list_channels"], `{}`)
	if want := `[{"id": "C012AB3CD", "name": "general", "is_private": false}, {"id": "C061EG9T2", "name": "random", "is_private": false}, {"id": "G0PRIV", "name": "secret-ops", "is_private": true}]`; out != want {
		t.Errorf("list_channels:\n got  %s\n want %s", out, want)
	}
	if v := f.form("conversations.list"); v.Get("types") != "public_channel" || v.Get("exclude_archived") != "true" || v.Get("limit") != "1000" {
		t.Errorf("conversations.list form = %v", v)
	}
	// #random is cached by list_channels: no second conversations.list.
	before := f.count("conversations.list")
	out = call(t, fns["get_channel_history"], `{"channel": "#random", "limit": 10}`)
	if f.count("conversations.list") != before {
		t.Errorf("a cached channel was looked up again")
	}
	want := `[{"text": "I find you punny and would like to smell your nose letter", "user": "spengler", "ts": "1512085950.000216", "channel_id": "C061EG9T2", "channel_name": "random", "thread_ts": "1512085950.000216", "reply_count": 3}, ` +
		`{"text": "Deployed", "user": "deploybot", "ts": "1512104434.000490", "channel_id": "C061EG9T2", "channel_name": "random", "attachments": [{"fallback": "ok", "color": "good"}]}, ` +
		`{"text": "What, you want to smell my shoes better?", "user": "Ray Stantz", "ts": "1512104434.000491", "channel_id": "C061EG9T2", "channel_name": "random"}]`
	if out != want {
		t.Errorf("get_channel_history:\n got  %s\n want %s", out, want)
	}
	if v := f.form("conversations.history"); v.Get("channel") != "C061EG9T2" || v.Get("limit") != "10" {
		t.Errorf("conversations.history form = %v", v)
	}
	out = call(t, fns["get_thread"], `{"channel": "C012AB3CD", "thread_ts": "1482960137.003543", "limit": 50}`)
	if !strings.HasPrefix(out, `{"channel_id": "C012AB3CD", "channel_name": "general", "thread_ts": "1482960137.003543", "reply_count": 1, "messages": [{"text": "island", "user": "spengler"`) {
		t.Errorf("get_thread: %s", out)
	}
	if v := f.form("conversations.replies"); v.Get("limit") != "20" || v.Get("ts") != "1482960137.003543" {
		t.Errorf("conversations.replies form = %v: want the limit capped by thread_message_limit", v)
	}
}

func TestResolveFallsBackToPublicChannels(t *testing.T) {
	f := newFake(t)
	f.missingScope = true
	out := call(t, build(t, f, Config{EnableGetChannelHistory: true})["get_channel_history"], `{"channel": "general"}`)
	if !strings.Contains(out, `"channel_id": "C012AB3CD"`) {
		t.Errorf("without groups:read: %s", out)
	}
	if v := f.form("conversations.list"); v.Get("types") != "public_channel" {
		t.Errorf("the retry asked for %q", v.Get("types"))
	}
}

func TestUsersSearchAndChannelInfo(t *testing.T) {
	f := newFake(t)
	fns := build(t, f, Config{All: true})
	for _, c := range []struct{ fn, args, want string }{
		{"list_users", `{"limit": 5}`, `{"count": 2, "users": [{"id": "W012A3CDE", "name": "spengler", "real_name": "Egon Spengler", "title": "Ghostbuster", "is_bot": false}, {"id": "B0BOT", "name": "helper", "real_name": "", "title": "", "is_bot": true}]}`},
		{"get_user_info", `{"user_id": "U012AB3CDE"}`, `{"id": "U012AB3CDE", "name": "spengler", "real_name": "Egon Spengler", "email": "spengler@ghostbusters.example.com", "title": "Ghostbuster", "tz": "America/Los_Angeles", "is_bot": false}`},
		{"get_user_info", `{"user_id": "U0NONE"}`, `{"error": "The request to the Slack API failed. (url: ` + f.srv.URL + `/api/users.info)\nThe server responded with: {'ok': False, 'error': 'user_not_found'}"}`},
		{"get_channel_info", `{"channel": "C012AB3CD"}`, `{"id": "C012AB3CD", "name": "general", "topic": "For public discussion of generalities", "purpose": "This part of the workspace is for fun.", "num_members": 23, "is_private": false, "is_archived": false, "created": 1449252889, "creator": "W012A3BCD"}`},
		{"search_messages", `{"query": "meaning", "limit": 500}`, `{"count": 1, "messages": [{"text": "The meaning of life the universe and everything is 42.", "user": "U2U85N1RV", "channel_id": "C12345678", "channel_name": "general", "ts": "1508284197.000015", "permalink": "https://example.slack.com/archives/C12345678/p1508284197000015"}]}`},
	} {
		if out := call(t, fns[c.fn], c.args); out != c.want {
			t.Errorf("%s(%s):\n got  %s\n want %s", c.fn, c.args, out, c.want)
		}
	}
	if v := f.form("search.messages"); v.Get("count") != "100" {
		t.Errorf("search.messages count = %q, want the limit capped at 100", v.Get("count"))
	}
	if v := f.form("users.list"); v.Get("limit") != "5" {
		t.Errorf("users.list limit = %q", v.Get("limit"))
	}
}

func TestInstructionsFollowEnabledTools(t *testing.T) {
	tk, err := New(Config{Token: "x", EnableSendMessage: true, EnableSendMessageThread: true, EnableGetChannelHistory: true, EnableGetThread: true})
	if err != nil {
		t.Fatal(err)
	}
	in := tk.Instructions()
	for _, want := range []string{"## Slack Tool Selection\n\n**get_channel_history**", "Look for thread_ts and reply_count, then use get_thread to expand.", "Chain after get_channel_history for complete context.", "- New top-level channel message → send_message"} {
		if !strings.Contains(in, want) {
			t.Errorf("instructions lack %q:\n%s", want, in)
		}
	}
	if strings.Contains(in, "search_workspace") {
		t.Errorf("instructions name a disabled tool:\n%s", in)
	}
	one, _ := New(Config{Token: "x", EnableSendMessage: true})
	if one.Instructions() != "" {
		t.Errorf("one section: %q, want none (agno adds guidance only with two)", one.Instructions())
	}
	t.Setenv(TokenEnv, "")
	if _, err := New(Config{}); err != ErrMissingToken {
		t.Errorf("no token: %v", err)
	}
}

// TestConformanceAll runs the suite with every tool on (all = true),
// pinning the opt-in tools' schemas and the instructions built for them.
func TestConformanceAll(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: ToolkitName,
		Name:    "slack",
		Golden:  "testdata/tooltest/slack_all.golden.json",
		Functions: []tooltest.Function{
			{Name: "send_message", Args: []string{"channel", "text"}},
			{Name: "send_message_thread", Args: []string{"channel", "text", "thread_ts"}},
			{Name: "list_channels", Args: []string{"include_private"}},
			{Name: "get_channel_history", Args: []string{"channel", "limit"}},
			{Name: "upload_file", Args: []string{"channel", "content", "filename", "title", "initial_comment", "thread_ts"}},
			{Name: "download_file", Args: []string{"file_id", "dest_path"}},
			{Name: "search_messages", Args: []string{"query", "limit"}},
			{Name: "search_workspace", Args: []string{"query", "content_types", "channel_types", "limit", "include_context_messages"}},
			{Name: "get_thread", Args: []string{"channel", "thread_ts", "limit"}},
			{Name: "list_users", Args: []string{"limit"}},
			{Name: "get_user_info", Args: []string{"user_id"}},
			{Name: "get_channel_info", Args: []string{"channel"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			f := newFake(t)
			f.missingScope = true
			env.HTTPClient = localClient(t)
			t.Setenv(TokenEnv, testToken)
			return `api_url = "` + f.srv.URL + `/api/"` + "\nmax_response_bytes = 4096\nall = true"
		},
		Failures: map[string][]tooltest.Call{
			"send_message":        {{Args: `{"channel": "C0GONE", "text": "hi"}`, Want: `'error': 'channel_not_found'`}},
			"send_message_thread": {{Args: `{"channel": "C0GONE", "text": "hi", "thread_ts": "1.2"}`, Want: `'error': 'channel_not_found'`}},
			"list_channels":       {{Args: `{"include_private": true}`, Want: `"missing_scope"`}},
			"get_channel_history": {{Args: `{"channel": "C0NOTIN"}`, Want: `"not_in_channel"`}},
			"upload_file":         {{Args: `{"channel": "C0GONE", "content": "hi", "filename": "a.txt"}`, Want: `'error': 'channel_not_found'`}, {Args: `{"channel": "C1", "content": "hi", "filename": "../etc/passwd"}`, Want: `{"error": "Invalid filename: `}},
			"download_file":       {{Args: `{"file_id": "F0NOURL"}`, Want: `{"error": "File URL not available"}`}, {Args: `{"file_id": "F0GONE"}`, Want: `{"error": "HTTP error: `}, {Args: `{"file_id": "F0BIG"}`, Want: `{"error": "File big.bin (2048.0MB) exceeds 1024MB download limit"}`}},

			"search_messages":  {{Args: `{"query": "x"}`, Want: `{"count": 1`}},
			"search_workspace": {{Args: `{"query": "x"}`, Want: `{"error": "No action_token available. This tool only works when invoked through the Slack interface."}`}},
			"get_thread":       {{Args: `{"channel": "#nowhere", "thread_ts": "1.2"}`, Want: `"channel_not_found"`}},
			"list_users":       {{Args: `{}`, Want: `{"count": 2`}},
			"get_user_info":    {{Args: `{"user_id": "U0NONE"}`, Want: `'error': 'user_not_found'`}},
			"get_channel_info": {{Args: `{"channel": "#nowhere"}`, Want: `"channel_not_found"`}},
		},
		Oversized: &tooltest.Oversized{Function: "send_message", Call: tooltest.Call{Args: `{"channel": "C1", "text": "huge"}`, Want: "max_response_bytes"}, Option: "max_response_bytes", Limit: 4096},
	})
}

func TestUploadAndDownload(t *testing.T) {
	f := newFake(t)
	dir := t.TempDir()
	fns := build(t, f, Config{EnableUploadFile: true, EnableDownloadFile: true})
	out := call(t, fns["upload_file"], `{"channel": "C123ABC456", "content": "hello", "filename": "notes.txt", "title": "Notes", "initial_comment": "here", "thread_ts": "1.2"}`)
	if !strings.HasPrefix(out, `{"ok": true, "files": [{"id": "F123ABC456"`) {
		t.Errorf("upload_file: %s", out)
	}
	if v := f.form("files.getUploadURLExternal"); v.Get("filename") != "notes.txt" || v.Get("length") != "5" {
		t.Errorf("files.getUploadURLExternal form = %v", v)
	}
	if v := f.form("files.completeUploadExternal"); v.Get("channel_id") != "C123ABC456" || v.Get("initial_comment") != "here" || v.Get("thread_ts") != "1.2" || !strings.Contains(v.Get("files"), `"Notes"`) {
		t.Errorf("files.completeUploadExternal form = %v", v)
	}
	out = call(t, fns["download_file"], `{"file_id": "F2147483862"}`)
	if want := `{"file_id": "F2147483862", "filename": "hello.txt", "size": 16, "content_base64": "aGVsbG8gZnJvbSBzbGFjaw=="}`; out != want {
		t.Errorf("download_file:\n got  %s\n want %s", out, want)
	}
	small := build(t, f, Config{EnableUploadFile: true, MaxFileSize: 4})
	if out := call(t, small["upload_file"], `{"channel": "C1", "content": "hello", "filename": "a.txt"}`); out != `{"error": "File a.txt (0.0MB) exceeds 0MB upload limit"}` {
		t.Errorf("upload over max_file_size: %s", out)
	}
	saving := build(t, f, Config{EnableDownloadFile: true, OutputDirectory: dir})
	out = call(t, saving["download_file"], `{"file_id": "F2147483862", "dest_path": "sub/hello.txt"}`)
	path := dir + "/sub/hello.txt"
	if b, err := os.ReadFile(path); err != nil || string(b) != "hello from slack" || !strings.Contains(out, `"path": "`+path+`"`) {
		t.Errorf("saved download: %s (%q, %v)", out, b, err)
	}
	out = call(t, saving["download_file"], `{"file_id": "F2147483862", "dest_path": "../escape.txt"}`)
	if !strings.Contains(out, `"save_error": "dest_path \"../escape.txt\" leaves output_directory"`) || !strings.Contains(out, `"content_base64"`) {
		t.Errorf("a dest_path leaving output_directory: %s", out)
	}
}

func TestSearchWorkspace(t *testing.T) {
	f := newFake(t)
	fn := build(t, f, Config{EnableSearchWorkspace: true})["search_workspace"]
	rc := run.NewContext(nil)
	rc.Metadata = map[string]any{"action_token": "act-1"}
	res, err := fn.Invoke(run.WithContext(context.Background(), rc), nil, map[string]any{"query": "deploy", "content_types": []any{"messages", "files"}, "limit": 50})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"messages": [{"content": "The deploy is at noon", "author": "Egon", "author_user_id": "U012AB3CDE", "is_bot": false, "channel_id": "C012AB3CD", "channel_name": "general", "ts": "1729010000.000100", "permalink": "https://example.slack.com/archives/C012AB3CD/p1729010000000100", "context_before": [{"text": "When is the deploy?", "user_id": "U061F7AUR"}]}], ` +
		`"files": [{"title": "plan.pdf", "file_type": "pdf", "author": "Egon", "permalink": "https://example.slack.com/files/plan.pdf"}], "result_count": 2}`
	if res.Content != want {
		t.Errorf("search_workspace:\n got  %s\n want %s", res.Content, want)
	}
	if v := f.form("assistant.search.context"); v.Get("content_types") != "messages,files" || v.Get("channel_types") != "public_channel" || v.Get("limit") != "20" || v.Get("include_context_messages") != "1" {
		t.Errorf("assistant.search.context form = %v", v)
	}
	rc.Metadata = map[string]any{"action_token": "stale"}
	res, _ = fn.Invoke(run.WithContext(context.Background(), rc), nil, map[string]any{"query": "deploy"})
	if res.Content != `{"error": "invalid_action_token"}` {
		t.Errorf("a refused token: %s", res.Content)
	}
}
