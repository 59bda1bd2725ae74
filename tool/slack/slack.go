// Package slack is agno's SlackTools: send messages and thread replies,
// list channels and read history, threads, users and channel details,
// over the Slack Web API through slack-go.
//
// The answers agno passes on whole (chat.postMessage's) are kept as
// Slack wrote them: the client records each response body and the tools
// read their fields from it, so keys keep Slack's order.
//
// Differences from agno v2.6.13:
// every call has a timeout and every answer and result a size bound
// (timeout_seconds, max_response_bytes).
package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/serviceapi"
)

// TokenEnv is the variable the token is read from, as in agno.
const TokenEnv = "SLACK_TOKEN"

// DefaultAPIURL is Slack's Web API.
const DefaultAPIURL = "https://slack.com/api/"

// ErrMissingToken is agno's refusal to build without a token.
var ErrMissingToken = errors.New("SLACK_TOKEN is not set")

// Config configures the toolkit; the fields are agno's SlackTools
// arguments.
type Config struct {
	// Token authenticates; empty reads SLACK_TOKEN.
	Token string
	// Markdown sends messages with mrkdwn (agno's default true); nil is
	// true.
	Markdown *bool

	EnableSendMessage, EnableSendMessageThread, EnableListChannels, EnableGetChannelHistory bool
	EnableUploadFile, EnableDownloadFile                                                    bool
	EnableSearchMessages, EnableSearchWorkspace, EnableGetThread, EnableListUsers           bool
	EnableGetUserInfo, EnableGetChannelInfo                                                 bool
	All                                                                                     bool
	// ThreadMessageLimit caps get_thread's limit (0: 20).
	ThreadMessageLimit int
	// MaxFileSize bounds uploads and downloads in bytes (0: 1 GiB).
	MaxFileSize int64
	// OutputDirectory, when set, is where download_file saves files
	// (agno's save_downloads); empty returns them as base64.
	OutputDirectory string

	// APIURL is the Web API base; empty is DefaultAPIURL.
	APIURL string
	// HTTPClient sends the requests; nil is a guarded client reaching
	// public addresses only.
	HTTPClient *http.Client
	// Timeout bounds one call (0: 30s); MaxResponseBytes bounds an
	// answer and a result (0: 1 MiB).
	Timeout          time.Duration
	MaxResponseBytes int

	// Instructions replaces agno's, built from the enabled tools.
	Instructions string
	// AddInstructions: nil adds agno's built instructions when there are
	// any, as agno's setdefault does.
	AddInstructions      *bool
	Include, Exclude     []string
	RequiresConfirmation []string
	Logger               *slog.Logger
}

var channelIDRE = regexp.MustCompile(`^[CGD][A-Z0-9]+$`)

type resolved struct{ id, name string }

type tools struct {
	api         *slackapi.Client
	rec         *recorder
	token       string
	endpoint    string
	markdown    bool
	threadLimit int
	maxFileSize int64
	outputDir   string
	timeout     time.Duration
	max         int
	log         *slog.Logger

	mu    sync.Mutex
	cache map[string]resolved
}

// New returns agno's "slack" toolkit.
func New(cfg Config) (*tool.Toolkit, error) {
	token := cfg.Token
	if token == "" {
		token = os.Getenv(TokenEnv)
	}
	if token == "" {
		return nil, ErrMissingToken
	}
	t := &tools{
		endpoint: cfg.APIURL, markdown: cfg.Markdown == nil || *cfg.Markdown, threadLimit: cfg.ThreadMessageLimit,
		timeout: cfg.Timeout, max: cfg.MaxResponseBytes, log: cfg.Logger, cache: map[string]resolved{},
		maxFileSize: cfg.MaxFileSize, outputDir: cfg.OutputDirectory,
	}
	if t.maxFileSize <= 0 {
		t.maxFileSize = 1 << 30
	}
	if t.outputDir != "" {
		if err := os.MkdirAll(t.outputDir, 0o755); err != nil {
			return nil, fmt.Errorf("slack: output_directory: %w", err)
		}
	}
	if t.endpoint == "" {
		t.endpoint = DefaultAPIURL
	}
	if !strings.HasSuffix(t.endpoint, "/") {
		t.endpoint += "/"
	}
	if t.threadLimit <= 0 {
		t.threadLimit = 20
	}
	if t.timeout <= 0 {
		t.timeout = serviceapi.DefaultTimeout
	}
	if t.max <= 0 {
		t.max = serviceapi.DefaultMaxResponseBytes
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	t.token = token
	t.rec = &recorder{c: serviceapi.Client(cfg.HTTPClient), max: t.max}
	t.api = slackapi.New(token, slackapi.OptionAPIURL(t.endpoint), slackapi.OptionHTTPClient(t.rec))

	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableSendMessage)(tool.New("send_message", "Send a message to a Slack channel.", t.sendMessage))
	e.If(cfg.EnableSendMessageThread)(tool.New("send_message_thread", "Reply to a message thread in a Slack channel.", t.sendMessageThread))
	e.If(cfg.EnableListChannels)(tool.New("list_channels", "List all channels in the Slack workspace.", t.listChannels))
	e.If(cfg.EnableGetChannelHistory)(tool.New("get_channel_history", "Get the message history of a Slack channel.", t.getChannelHistory))
	e.If(cfg.EnableUploadFile)(tool.New("upload_file", "Upload a file to a Slack channel.", t.uploadFile))
	e.If(cfg.EnableDownloadFile)(tool.New("download_file", "Download a file from Slack by its file ID.", t.downloadFile))
	e.If(cfg.EnableSearchMessages)(tool.New("search_messages", "Search messages across the Slack workspace.", t.searchMessages))
	e.If(cfg.EnableSearchWorkspace)(tool.New("search_workspace", "Search messages, files, and channels across the Slack workspace.", t.searchWorkspace))
	e.If(cfg.EnableGetThread)(tool.New("get_thread", "Get all messages in a thread by the parent message's timestamp.", t.getThread))
	e.If(cfg.EnableListUsers)(tool.New("list_users", "List all users in the Slack workspace.", t.listUsers))
	e.If(cfg.EnableGetUserInfo)(tool.New("get_user_info", "Get detailed information about a Slack user by their user ID.", t.getUserInfo))
	e.If(cfg.EnableGetChannelInfo)(tool.New("get_channel_info", "Get detailed information about a Slack channel by its ID or name.", t.getChannelInfo))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	instructions, add := cfg.Instructions, cfg.AddInstructions != nil && *cfg.AddInstructions
	if instructions == "" {
		var names []string
		for _, f := range fns {
			names = append(names, f.Name)
		}
		if built := buildInstructions(names); built != "" {
			instructions = built
			add = cfg.AddInstructions == nil || *cfg.AddInstructions
		}
	}
	return tool.NewToolkit(tool.ToolkitConfig{
		Name: "slack", Functions: fns, Instructions: instructions, AddInstructions: add,
		Include: cfg.Include, Exclude: cfg.Exclude, RequiresConfirmation: cfg.RequiresConfirmation, Logger: t.log,
	})
}

// recorder sends slack-go's requests and keeps each answer's body in the
// call's record, read once and bounded.
type recorder struct {
	c   *http.Client
	max int
}

type recordKey struct{}

// record is one Web API call's answer.
type record struct {
	method string
	body   []byte
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := r.c.Do(req)
	if err != nil {
		return nil, err
	}
	rec, recorded := req.Context().Value(recordKey{}).(*record)
	if !recorded {
		// A file download: download_file bounds it by max_file_size.
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(r.max)+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > r.max {
		return nil, &serviceapi.TooLargeError{Limit: r.max}
	}
	rec.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// call runs one Web API method through slack-go and returns its answer
// as an object, or the error agno's except branch sees.
func (t *tools) call(ctx context.Context, method string, do func(ctx context.Context) error) (*serviceapi.Object, *apiError) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	rec := &record{method: method}
	err := do(context.WithValue(ctx, recordKey{}, rec))
	var obj *serviceapi.Object
	if len(rec.body) > 0 {
		obj, _ = serviceapi.DecodeObject(rec.body)
	}
	if err == nil && obj != nil {
		return obj, nil
	}
	if err == nil {
		err = fmt.Errorf("%s: the answer is not a JSON object", method)
	}
	t.log.Error("slack: "+method+" failed", "error", err)
	return nil, &apiError{url: t.endpoint + method, data: obj, err: err}
}

// apiError is slack_sdk's SlackApiError: the answer, when there was one.
type apiError struct {
	url  string
	data *serviceapi.Object
	err  error
}

// String is str(SlackApiError), or the error's text when Slack did not
// answer.
func (e *apiError) String() string {
	if e.data == nil {
		return e.err.Error()
	}
	return fmt.Sprintf("The request to the Slack API failed. (url: %s)\nThe server responded with: %s", e.url, pyrepr.Repr(e.data))
}

// code is exc.response.get("error", str(exc)).
func (e *apiError) code() any {
	if e.data != nil {
		if v, ok := e.data.Get("error"); ok {
			return v
		}
	}
	return e.String()
}

// payload is agno's _slack_error_payload.
func (e *apiError) payload(operation, channel, hint string) *serviceapi.Object {
	o := serviceapi.NewObject()
	o.Set("error", e.code())
	o.Set("operation", operation)
	if channel != "" {
		o.Set("channel", channel)
	}
	if hint != "" {
		o.Set("hint", hint)
	}
	return o
}

func errObject(msg any) *serviceapi.Object {
	o := serviceapi.NewObject()
	o.Set("error", msg)
	return o
}

// dumps is json.dumps(v), refused past max_response_bytes.
func (t *tools) dumps(v any) string {
	s, err := pyjson.Dumps(v)
	if err != nil {
		s, _ = pyjson.Dumps(errObject(err.Error()))
		return s
	}
	if len(s) > t.max {
		s, _ = pyjson.Dumps(errObject((&serviceapi.TooLargeError{Limit: t.max}).Error()))
	}
	return s
}

func list(v any) []any { l, _ := v.([]any); return l }

func obj(v any) *serviceapi.Object { o, _ := v.(*serviceapi.Object); return o }

func str(v any) string { s, _ := v.(string); return s }

// truthy is Python's bool() of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case *serviceapi.Object:
		return len(x.Keys()) > 0
	default:
		return fmt.Sprint(x) != "0"
	}
}

func cacheKey(channel string) string {
	raw := strings.TrimSpace(channel)
	if channelIDRE.MatchString(raw) {
		return raw
	}
	return strings.ToLower(strings.TrimPrefix(raw, "#"))
}

func (t *tools) remember(r resolved) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cache[r.id] = r
	if r.name != "" {
		t.cache[strings.ToLower(r.name)] = r
		t.cache["#"+strings.ToLower(r.name)] = r
	}
}

// conversations is one conversations.list page.
func (t *tools) conversations(ctx context.Context, types []string, cursor string) (*serviceapi.Object, *apiError) {
	return t.call(ctx, "conversations.list", func(ctx context.Context) error {
		_, _, err := t.api.GetConversationsContext(ctx, &slackapi.GetConversationsParameters{Types: types, Limit: 1000, Cursor: cursor, ExcludeArchived: true})
		return err
	})
}

func nextCursor(page *serviceapi.Object) string {
	return str(obj(page.GetOr("response_metadata", nil)).GetOr("next_cursor", ""))
}

// resolve is agno's _resolve_channel: a channel ID or name to its ID.
func (t *tools) resolve(ctx context.Context, channel string) (resolved, *serviceapi.Object) {
	raw := strings.TrimSpace(channel)
	if raw == "" {
		o := errObject("channel_required")
		o.Set("channel", channel)
		return resolved{}, o
	}
	t.mu.Lock()
	hit, ok := t.cache[cacheKey(raw)]
	t.mu.Unlock()
	if ok {
		return hit, nil
	}
	if channelIDRE.MatchString(raw) {
		r := resolved{id: raw}
		t.remember(r)
		return r, nil
	}
	name := strings.ToLower(strings.TrimPrefix(raw, "#"))
	// Public and private first; public only when groups:read is missing.
	types := []string{"public_channel", "private_channel"}
	cursor := ""
	for {
		page, aerr := t.conversations(ctx, types, cursor)
		if aerr != nil {
			if aerr.code() == "missing_scope" && len(types) == 2 {
				types, cursor = []string{"public_channel"}, ""
				continue
			}
			return resolved{}, aerr.payload("conversations.list", channel, privateHint)
		}
		for _, c := range list(page.GetOr("channels", nil)) {
			ch := obj(c)
			id, nm := str(ch.GetOr("id", nil)), str(ch.GetOr("name", nil))
			if id == "" || nm == "" {
				continue
			}
			r := resolved{id: id, name: nm}
			t.remember(r)
			if strings.ToLower(nm) == name {
				return r, nil
			}
		}
		if cursor = nextCursor(page); cursor == "" {
			break
		}
	}
	o := errObject("channel_not_found")
	o.Set("channel", channel)
	o.Set("hint", privateHint)
	return resolved{}, o
}

// userNames is agno's _resolve_user_names: display name, else real
// name, else the ID.
func (t *tools) userNames(ctx context.Context, msgs []any) map[string]string {
	names := map[string]string{}
	for _, m := range msgs {
		msg := obj(m)
		uid := str(msg.GetOr("user", nil))
		if msg.GetOr("subtype", nil) == "bot_message" || uid == "" {
			continue
		}
		if _, done := names[uid]; done {
			continue
		}
		names[uid] = uid
		ans, aerr := t.call(ctx, "users.info", func(ctx context.Context) error {
			_, err := t.api.GetUserInfoContext(ctx, uid)
			return err
		})
		if aerr != nil {
			continue
		}
		profile := obj(obj(ans.GetOr("user", nil)).GetOr("profile", nil))
		for _, k := range []string{"display_name", "real_name"} {
			if s := str(profile.GetOr(k, nil)); s != "" {
				names[uid] = s
				break
			}
		}
	}
	return names
}

// entry is agno's _build_message_entry.
func entry(msg *serviceapi.Object, names map[string]string, ch resolved) *serviceapi.Object {
	uid := str(msg.GetOr("user", ""))
	label := str(msg.GetOr("username", nil))
	if label == "" {
		label = uid
		if n, ok := names[uid]; ok {
			label = n
		}
	}
	if label == "" {
		label = "unknown"
	}
	e := serviceapi.NewObject()
	e.Set("text", msg.GetOr("text", ""))
	e.Set("user", label)
	e.Set("ts", msg.GetOr("ts", ""))
	e.Set("channel_id", ch.id)
	if ch.name != "" {
		e.Set("channel_name", ch.name)
	}
	if a := msg.GetOr("attachments", nil); truthy(a) {
		e.Set("attachments", a)
	}
	return e
}
