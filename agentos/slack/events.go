package slack

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
)

const (
	// signatureWindow is agno's tolerance of X-Slack-Request-Timestamp
	// skew, either way (replays are refused after it).
	signatureWindow = 5 * time.Minute
	// maxEventBytes bounds an event body; Slack's are a few KB.
	maxEventBytes = 1 << 20
	// ReplayWindow is how long after a signed request first arrives the
	// same request still passes the signature check: its timestamp may be
	// up to signatureWindow ahead of the clock, and is accepted until
	// signatureWindow after it.
	ReplayWindow = 2 * signatureWindow
)

// agno's ignored subtypes (router._IGNORED_SUBTYPES): without them the
// bot would answer its own and edited messages.
var ignoredSubtypes = map[string]bool{
	"bot_message": true, "bot_add": true, "bot_remove": true, "bot_enable": true,
	"bot_disable": true, "message_changed": true, "message_deleted": true,
}

// Message is an event to answer: agno's extract_event_context plus the
// session id it derives.
type Message struct {
	Text      string
	Channel   string
	User      string
	ThreadTS  string // the thread, or the message's ts for a new one
	SessionID string // {entity_id}:{ThreadTS}
	Team      string // the workspace (recipient_team_id when streaming)
	// Files are the files shared with the message (event.files), not yet
	// downloaded: see Download.
	Files []File
}

// ErrBusy from a Start func answers 503: the server is shutting down.
var ErrBusy = errors.New("slack: the server is shutting down")

// EventsRoute is the pattern of the events route under c.Prefix.
func (c *Config) EventsRoute() string { return "POST " + c.Prefix + eventsPath }

// EventsPath is the events URL path, which AgentOS leaves to the
// signature check instead of its own key.
func (c *Config) EventsPath() string { return c.Prefix + eventsPath }

// EventsRouteSummary documents EventsRoute.
const EventsRouteSummary = "Process incoming Slack events"

// Events answers POST {prefix}/events as agno's router: it checks the
// signature, acknowledges at once and hands the messages to answer to
// start, which must not block (Slack retries after 3 s).
type Events struct {
	Config *Config
	Start  func(Message) error
	// ThreadStarted, when set, receives assistant_thread_started events
	// (streaming only, as agno: suggested prompts need the assistant
	// UX); like Start it must not block. Nil: they are ignored.
	ThreadStarted func(ThreadStart) error
	// Now is the clock of the timestamp window (default time.Now).
	Now func() time.Time
	// Claim, when set, is asked before an event starts anything: false
	// means a delivery of the same event_id was already claimed (the
	// signed request replayed, to this replica or another), and it is
	// acknowledged without running. An error answers 500. Events
	// without an event_id are not claimed.
	Claim func(ctx context.Context, eventID string) (bool, error)
}

func (e *Events) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, ok := signedBody(w, r, e.Config.SigningSecret, e.Now, "event")
	if !ok {
		return
	}
	// The first delivery was acknowledged and is being answered: a retry
	// is always a duplicate (agno's trade-off).
	if r.Header.Get("X-Slack-Retry-Num") != "" {
		writeOK(w)
		return
	}
	var data struct {
		Type      string          `json:"type"`
		Challenge string          `json:"challenge"`
		TeamID    string          `json:"team_id"`
		EventID   string          `json:"event_id"`
		Event     json.RawMessage `json:"event"`
	}
	if err := json.Unmarshal(body, &data); err != nil {
		writeDetail(w, http.StatusBadRequest, "Invalid JSON body")
		return
	}
	if data.Type == "url_verification" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": data.Challenge})
		return
	}
	if len(data.Event) > 0 {
		var err error
		if t, started := threadStarted(data.Event); started {
			// agno ignores a thread it cannot address.
			if t.Channel != "" && t.ThreadTS != "" && e.ThreadStarted != nil && e.Config.Streaming {
				if data.TeamID != "" {
					t.Team = data.TeamID
				}
				if first, cerr := e.claim(r.Context(), data.EventID); cerr != nil || !first {
					err = cerr
				} else {
					err = e.ThreadStarted(t)
				}
			}
		} else if m, ok := e.Config.answerable(data.Event); ok {
			if data.TeamID != "" {
				m.Team = data.TeamID // agno: data.team_id or event.team
			}
			if first, cerr := e.claim(r.Context(), data.EventID); cerr != nil || !first {
				err = cerr
			} else {
				err = e.Start(m)
			}
		}
		if err != nil {
			writeHandoffError(w, err)
			return
		}
	}
	writeOK(w)
}

// claim reports whether this delivery of eventID is the first (see
// Events.Claim).
func (e *Events) claim(ctx context.Context, eventID string) (bool, error) {
	if e.Claim == nil || eventID == "" {
		return true, nil
	}
	return e.Claim(ctx, eventID)
}

// threadStarted reports whether raw is an assistant_thread_started event,
// and reads its thread.
func threadStarted(raw json.RawMessage) (ThreadStart, bool) {
	var ev struct {
		Type   string `json:"type"`
		Thread struct {
			UserID    string `json:"user_id"`
			ChannelID string `json:"channel_id"`
			ThreadTS  string `json:"thread_ts"`
			Context   struct {
				TeamID string `json:"team_id"`
			} `json:"context"`
		} `json:"assistant_thread"`
	}
	if json.Unmarshal(raw, &ev) != nil || ev.Type != "assistant_thread_started" {
		return ThreadStart{}, false
	}
	th := ev.Thread
	return ThreadStart{Channel: th.ChannelID, ThreadTS: th.ThreadTS, User: th.UserID, Team: th.Context.TeamID}, true
}

// signedBody reads a request Slack signed, or answers agno's error:
// 413 past the bound, 400 without the headers, 403 for a bad or stale
// signature. now is the clock of the window (nil: time.Now).
func signedBody(w http.ResponseWriter, r *http.Request, secret string, now func() time.Time, what string) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBytes))
	if err != nil {
		writeDetail(w, http.StatusRequestEntityTooLarge, "Slack "+what+" body too large")
		return nil, false
	}
	ts := r.Header.Get("X-Slack-Request-Timestamp")
	sig := r.Header.Get("X-Slack-Signature")
	if ts == "" || sig == "" {
		writeDetail(w, http.StatusBadRequest, "Missing Slack headers")
		return nil, false
	}
	if now == nil {
		now = time.Now
	}
	if !Verify(secret, body, ts, sig, now()) {
		writeDetail(w, http.StatusForbidden, "Invalid signature")
		return nil, false
	}
	return body, true
}

// writeHandoffError answers a callback that could not take the work:
// 503 while the server shuts down, else 500.
func writeHandoffError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if errors.Is(err, ErrBusy) {
		status = http.StatusServiceUnavailable
	}
	writeDetail(w, status, err.Error())
}

// answerable applies agno's filters (bots, ignored subtypes,
// should_respond) and returns the message to answer.
func (c *Config) answerable(raw json.RawMessage) (Message, bool) {
	var ev struct {
		Type        string `json:"type"`
		Subtype     string `json:"subtype"`
		BotID       string `json:"bot_id"`
		ChannelType string `json:"channel_type"`
		Text        string `json:"text"`
		Channel     string `json:"channel"`
		User        string `json:"user"`
		TS          string `json:"ts"`
		ThreadTS    string `json:"thread_ts"`
		Team        string `json:"team"`
		Message     *struct {
			BotID string `json:"bot_id"`
		} `json:"message"`
		Files []struct {
			ID                 string `json:"id"`
			Name               string `json:"name"`
			Mimetype           string `json:"mimetype"`
			Size               int64  `json:"size"`
			URLPrivate         string `json:"url_private"`
			URLPrivateDownload string `json:"url_private_download"`
		} `json:"files"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return Message{}, false
	}
	if ev.BotID != "" || (ev.Message != nil && ev.Message.BotID != "") || ignoredSubtypes[ev.Subtype] {
		return Message{}, false
	}
	if !shouldRespond(ev.Type, ev.ChannelType, c.ReplyToMentionsOnly) {
		return Message{}, false
	}
	thread := ev.ThreadTS
	if thread == "" {
		thread = ev.TS
	}
	var files []File
	for _, f := range ev.Files {
		// Both serve the bytes to the bot token; agno reads url_private,
		// url_private_download is Slack's explicit download link.
		u := f.URLPrivateDownload
		if u == "" {
			u = f.URLPrivate
		}
		files = append(files, File{ID: f.ID, Name: f.Name, MimeType: f.Mimetype, Size: f.Size, URL: u})
	}
	_, id := c.Entity()
	return Message{Text: ev.Text, Channel: ev.Channel, User: ev.User, ThreadTS: thread, SessionID: id + ":" + thread, Team: ev.Team, Files: files}, true
}

// shouldRespond is agno's helpers.should_respond.
func shouldRespond(typ, channelType string, mentionsOnly bool) bool {
	if typ != "app_mention" && typ != "message" {
		return false
	}
	dm := channelType == "im"
	if mentionsOnly && typ == "message" && !dm {
		return false
	}
	// Slack sends both app_mention and message for one @mention: when
	// every message is answered, the message event covers it.
	if !mentionsOnly && typ == "app_mention" && !dm {
		return false
	}
	return true
}

// Verify checks a Slack v0 signature: HMAC-SHA256 of v0:{ts}:{body}
// with the signing secret, ts within 5 minutes of now.
func Verify(secret string, body []byte, ts, sig string, now time.Time) bool {
	if secret == "" {
		return false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(sec, 0)); d > signatureWindow || d < -signatureWindow {
		return false
	}
	return hmac.Equal([]byte(Sign(secret, body, ts)), []byte(sig))
}

// Sign is the X-Slack-Signature of body sent at ts.
func Sign(secret string, body []byte, ts string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + ts + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

func writeOK(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"status":"ok"}`)
}

func writeDetail(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail})
}
