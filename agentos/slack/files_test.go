package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

const fakeToken = "xoxb-fake"

// fakeSlack is the part of Slack's Web API these features use, speaking
// its JSON. Files are served at /files-pri/{team}-{id}/{name} to the bot
// token only; any other token is redirected to the sign-in page, as
// files.slack.com does.
type fakeSlack struct {
	*httptest.Server
	t *testing.T

	mu        sync.Mutex
	files     map[string][]byte // path → bytes to serve
	served    map[string]int64  // path → bytes actually written
	uploads   map[string]upload // file id → upload
	completed []url.Values      // files.completeUploadExternal forms
	prompts   []url.Values      // assistant.threads.setSuggestedPrompts forms
	posted    []url.Values      // chat.postMessage forms
	nextID    int
}

type upload struct {
	filename string
	length   int
	data     []byte
}

func newFakeSlack(t *testing.T) *fakeSlack {
	f := &fakeSlack{t: t, files: map[string][]byte{}, served: map[string]int64{}, uploads: map[string]upload{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /files-pri/", f.serveFile)
	mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>Sign in to your workspace</html>")
	})
	mux.HandleFunc("POST /api/files.getUploadURLExternal", f.api(func(v url.Values) any {
		n, err := strconv.Atoi(v.Get("length"))
		if err != nil || n <= 0 || v.Get("filename") == "" {
			return map[string]any{"ok": false, "error": "invalid_arguments"}
		}
		f.nextID++
		id := "F" + strconv.Itoa(f.nextID)
		f.uploads[id] = upload{filename: v.Get("filename"), length: n}
		return map[string]any{"ok": true, "upload_url": f.URL + "/upload/" + id, "file_id": id}
	}))
	mux.HandleFunc("POST /upload/{id}", f.receiveUpload)
	mux.HandleFunc("POST /api/files.completeUploadExternal", f.api(func(v url.Values) any {
		var files []struct{ ID, Title string }
		if json.Unmarshal([]byte(v.Get("files")), &files) != nil || len(files) == 0 {
			return map[string]any{"ok": false, "error": "invalid_arguments"}
		}
		out := []map[string]string{}
		for _, fs := range files {
			up, ok := f.uploads[fs.ID]
			if !ok || up.data == nil {
				return map[string]any{"ok": false, "error": "file_not_found"}
			}
			out = append(out, map[string]string{"id": fs.ID, "title": up.filename})
		}
		f.completed = append(f.completed, v)
		return map[string]any{"ok": true, "files": out}
	}))
	mux.HandleFunc("POST /api/assistant.threads.setSuggestedPrompts", f.api(func(v url.Values) any {
		var ps []map[string]string
		if v.Get("channel_id") == "" || json.Unmarshal([]byte(v.Get("prompts")), &ps) != nil || len(ps) == 0 || len(ps) > 4 {
			return map[string]any{"ok": false, "error": "invalid_arguments"}
		}
		f.prompts = append(f.prompts, v)
		return map[string]any{"ok": true}
	}))
	mux.HandleFunc("POST /api/chat.postMessage", f.api(func(v url.Values) any {
		f.posted = append(f.posted, v)
		return map[string]any{"ok": true, "channel": v.Get("channel"), "ts": "9.0"}
	}))
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// api wraps a Web API method: the bot token, a form, a JSON answer.
func (f *fakeSlack) api(h func(url.Values) any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		tok := r.PostForm.Get("token")
		if tok == "" {
			tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		if tok != fakeToken {
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		f.mu.Lock()
		out := h(r.PostForm)
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(out)
	}
}

func (f *fakeSlack) serveFile(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		http.Redirect(w, r, "/signin?redir="+url.QueryEscape(r.URL.Path), http.StatusFound)
		return
	}
	f.mu.Lock()
	data, ok := f.files[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	n, _ := io.Copy(w, bytes.NewReader(data))
	f.mu.Lock()
	f.served[r.URL.Path] = n
	f.mu.Unlock()
}

func (f *fakeSlack) receiveUpload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	defer file.Close()
	data, _ := io.ReadAll(file)
	f.mu.Lock()
	defer f.mu.Unlock()
	up, ok := f.uploads[id]
	if !ok || len(data) != up.length || hdr.Filename != up.filename {
		http.Error(w, "upload does not match getUploadURLExternal", http.StatusBadRequest)
		return
	}
	up.data = data
	f.uploads[id] = up
	_, _ = io.WriteString(w, "OK - "+strconv.Itoa(len(data)))
}

// share serves data as a file of the workspace and returns its URL.
func (f *fakeSlack) share(id, name string, data []byte) string {
	p := "/files-pri/T1-" + id + "/" + name
	f.mu.Lock()
	f.files[p] = data
	f.mu.Unlock()
	return f.URL + p + "?origin_team=T1"
}

func (f *fakeSlack) client(token string) *slackapi.Client {
	return slackapi.New(token, slackapi.OptionAPIURL(f.URL+"/api/"))
}

// signedEvent answers body, signed as Slack does, with e.
func signedEvent(t *testing.T, e *Events, body string) *httptest.ResponseRecorder {
	t.Helper()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	r := httptest.NewRequest("POST", "/slack/events", strings.NewReader(body))
	r.Header.Set("X-Slack-Request-Timestamp", ts)
	r.Header.Set("X-Slack-Signature", Sign(e.Config.SigningSecret, []byte(body), ts))
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("events answered %d: %s", w.Code, w.Body)
	}
	return w
}

// A signed message with files: the files reach Message.Files, are
// downloaded with the bot token and sorted into the run's media.
func TestEventFilesDownloaded(t *testing.T) {
	f := newFakeSlack(t)
	png := []byte("\x89PNG\r\n\x1a\nfake image")
	pdf := []byte("%PDF-1.7 fake")
	mp3 := []byte("ID3 fake audio")
	body, _ := json.Marshal(map[string]any{
		"type": "event_callback", "team_id": "T1",
		"event": map[string]any{
			"type": "app_mention", "user": "U1", "text": "<@B1> look", "ts": "1.0", "channel": "C1",
			"files": []map[string]any{
				{"id": "F1", "name": "chart.png", "mimetype": "image/png", "size": len(png), "url_private": f.share("F1", "chart.png", png), "url_private_download": f.share("F1", "download/chart.png", png)},
				{"id": "F2", "name": "report.pdf", "mimetype": "application/pdf", "size": len(pdf), "url_private_download": f.share("F2", "report.pdf", pdf)},
				{"id": "F3", "name": "note.mp3", "mimetype": "audio/mpeg", "size": len(mp3), "url_private": f.share("F3", "note.mp3", mp3)},
				{"id": "F4", "name": "data.json", "mimetype": "", "size": 2, "url_private": f.share("F4", "data.json", []byte("{}"))},
			},
		},
	})
	c := &Config{AgentID: "a", SigningSecret: "s", ReplyToMentionsOnly: true, Streaming: true}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	var got []Message
	signedEvent(t, &Events{Config: c, Start: func(m Message) error { got = append(got, m); return nil }}, string(body))
	if len(got) != 1 {
		t.Fatalf("started %d", len(got))
	}
	files := got[0].Files
	if len(files) != 4 || files[0].ID != "F1" || files[0].Name != "chart.png" || files[0].MimeType != "image/png" || files[0].Size != int64(len(png)) {
		t.Fatalf("files %+v", files)
	}
	if !strings.Contains(files[0].URL, "/download/") {
		t.Fatalf("url_private_download not preferred: %s", files[0].URL)
	}

	in, err := Download(context.Background(), f.client(fakeToken), files, c.FileLimit())
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Skipped) != 0 {
		t.Fatalf("skipped %v", in.Skipped)
	}
	if len(in.Images) != 1 || !bytes.Equal(in.Images[0].Content, png) || in.Images[0].MimeType != "image/png" || in.Images[0].Size != int64(len(png)) {
		t.Fatalf("images %+v", in.Images)
	}
	want := []model.File{
		{Filename: "report.pdf", Content: pdf, MimeType: "application/pdf", Size: int64(len(pdf))},
		{Filename: "note.mp3", Content: mp3, MimeType: "audio/mpeg", Size: int64(len(mp3))},
		{Filename: "data.json", Content: []byte("{}"), MimeType: "application/json", Size: 2}, // guessed from the name
	}
	if len(in.Files) != len(want) {
		t.Fatalf("files %+v", in.Files)
	}
	for i, w := range want {
		g := in.Files[i]
		if g.Filename != w.Filename || !bytes.Equal(g.Content, w.Content) || !strings.HasPrefix(g.MimeType, w.MimeType) || g.Size != w.Size {
			t.Errorf("file %d: got %+v, want %+v", i, g, w)
		}
	}
	if in.Notice("hi") != "hi" {
		t.Fatal(in.Notice("hi"))
	}
}

func TestDownloadSkips(t *testing.T) {
	f := newFakeSlack(t)
	big := bytes.Repeat([]byte("x"), 1<<20)
	files := []File{
		// Reported as too large: never fetched.
		{ID: "F1", Name: "huge.bin", Size: 5 << 20, URL: f.share("F1", "huge.bin", big)},
		// Reported small, but larger than the limit when it arrives.
		{ID: "F2", Name: "liar.bin", Size: 10, URL: f.share("F2", "liar.bin", big)},
		{ID: "F3", Name: "gone.txt", Size: 3, URL: f.URL + "/files-pri/T1-F3/gone.txt"},
		{ID: "F4", Name: "nourl.txt", Size: 3},
		{ID: "F5", Name: "ok.txt", MimeType: "text/plain", Size: 2, URL: f.share("F5", "ok.txt", []byte("ok"))},
	}
	const limit = 64 << 10
	in, err := Download(context.Background(), f.client(fakeToken), files, limit)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 1 || string(in.Files[0].Content) != "ok" || len(in.Images) != 0 {
		t.Fatalf("kept %+v %+v", in.Files, in.Images)
	}
	if len(in.Skipped) != 4 {
		t.Fatalf("skipped %q", in.Skipped)
	}
	for i, part := range []string{"huge.bin (5.0MB — exceeds 0.1MB limit)", "liar.bin (exceeds", "gone.txt (download failed", "nourl.txt (no download URL)"} {
		if !strings.Contains(in.Skipped[i], part) {
			t.Errorf("skipped[%d] = %q, want %q", i, in.Skipped[i], part)
		}
	}
	f.mu.Lock()
	_, fetched := f.served["/files-pri/T1-F1/huge.bin"]
	f.mu.Unlock()
	if fetched {
		t.Error("a file reported too large was downloaded")
	}
	if n := in.Notice("look"); !strings.HasPrefix(n, "[Skipped files: huge.bin (") || !strings.HasSuffix(n, "]\nlook") {
		t.Errorf("notice %q", n)
	}

	// The cut: no more than limit+1 bytes kept, and an error, not data.
	b := &boundedBuffer{max: 10}
	if _, err := b.ReadFrom(bytes.NewReader(big)); err != errTooLarge || b.Len() != 11 {
		t.Fatalf("ReadFrom: %v, %d bytes", err, b.Len())
	}
	b = &boundedBuffer{max: 10}
	if _, err := b.ReadFrom(bytes.NewReader(big[:10])); err != nil || b.Len() != 10 {
		t.Fatalf("ReadFrom at the limit: %v, %d bytes", err, b.Len())
	}
}

// Another token than the bot's gets the sign-in page, which must not be
// taken for the file.
func TestDownloadWrongToken(t *testing.T) {
	f := newFakeSlack(t)
	files := []File{{ID: "F1", Name: "secret.txt", MimeType: "text/plain", Size: 6, URL: f.share("F1", "secret.txt", []byte("secret"))}}
	in, err := Download(context.Background(), f.client("xoxb-other"), files, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Files) != 0 || len(in.Skipped) != 1 || !strings.Contains(in.Skipped[0], "secret.txt (download failed") {
		t.Fatalf("got %+v", in)
	}
	// The token is not sent to a host that is neither Slack nor the API.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("token sent to %s: %q", r.Host, r.Header.Get("Authorization"))
	}))
	defer other.Close()
	in, _ = Download(context.Background(), f.client(fakeToken), []File{{Name: "x.txt", Size: 1, URL: other.URL + "/x.txt"}}, 0)
	if len(in.Skipped) != 1 {
		t.Fatalf("got %+v", in)
	}
}

func TestDownloadCancelled(t *testing.T) {
	f := newFakeSlack(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files := []File{{Name: "a.txt", Size: 1, URL: f.share("F1", "a.txt", []byte("a"))}}
	if _, err := Download(ctx, f.client(fakeToken), files, 0); err != context.Canceled {
		t.Fatalf("got %v", err)
	}
}

func TestFileLimit(t *testing.T) {
	if got := (&Config{}).FileLimit(); got != 32<<20 { // agentos.DefaultMaxUploadBytes
		t.Fatal(got)
	}
	if got := (&Config{MaxFileSize: 7}).FileLimit(); got != 7 {
		t.Fatal(got)
	}
}

// The run's images reach the thread: bytes and data URLs uploaded with
// files.uploadV2's three steps, remote URLs posted as links.
func TestUploadOutputs(t *testing.T) {
	f := newFakeSlack(t)
	png := []byte("\x89PNG fake")
	out := &run.Output{Images: []model.Image{
		{Content: png, MimeType: "image/png"},
		{URL: "data:image/gif;base64,R0lGODlhIGZha2U=", MimeType: "image/gif"},
		{URL: "https://cdn.example.com/cat.jpg"},
		{ID: "blob-only"},
	}}
	m := Message{Channel: "C1", ThreadTS: "1.0"}
	if err := UploadOutputs(context.Background(), f.client(fakeToken), m, out); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.completed) != 2 {
		t.Fatalf("completed %d uploads", len(f.completed))
	}
	for _, v := range f.completed {
		if v.Get("channel_id") != "C1" || v.Get("thread_ts") != "1.0" {
			t.Errorf("shared to %v", v)
		}
	}
	if up := f.uploads["F1"]; up.filename != "image.png" || !bytes.Equal(up.data, png) {
		t.Errorf("first upload %q %q", up.filename, up.data)
	}
	if up := f.uploads["F2"]; up.filename != "image-2.gif" || string(up.data) != "GIF89a fake" {
		t.Errorf("second upload %q %q", up.filename, up.data)
	}
	if len(f.posted) != 1 || f.posted[0].Get("text") != "<https://cdn.example.com/cat.jpg>" || f.posted[0].Get("thread_ts") != "1.0" {
		t.Fatalf("posted %v", f.posted)
	}
}

func TestUploadOutputsErrors(t *testing.T) {
	f := newFakeSlack(t)
	out := &run.Output{Images: []model.Image{{Content: []byte("a")}, {URL: "data:image/png;base64,!!"}, {Content: []byte("b")}}}
	err := UploadOutputs(context.Background(), f.client("xoxb-other"), Message{Channel: "C1", ThreadTS: "1.0"}, out)
	if err == nil || !strings.Contains(err.Error(), "upload image.png") || !strings.Contains(err.Error(), "invalid_auth") ||
		!strings.Contains(err.Error(), "image 2") || !strings.Contains(err.Error(), "upload image-2.png") {
		t.Fatalf("got %v", err)
	}
	if err := UploadOutputs(context.Background(), f.client(fakeToken), Message{}, nil); err != nil {
		t.Fatal(err)
	}
}
