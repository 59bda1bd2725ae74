package toolkits_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/netguard"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/dalle"
	"github.com/agno-go/agno/tool/email"
	"github.com/agno-go/agno/tool/giphy"
	"github.com/agno-go/agno/tool/github"
	"github.com/agno-go/agno/tool/openweather"
	"github.com/agno-go/agno/tool/slack"
	_ "github.com/agno-go/agno/tool/toolkits"
)

// servicesFake answers the services' documented shapes on one loopback
// server: GitHub's Get a repository (docs.github.com/en/rest/repos/repos#get-a-repository),
// Slack's chat.postMessage (api.slack.com/methods/chat.postMessage),
// GIPHY search (developers.giphy.com/docs/api/endpoint#search),
// OpenWeatherMap geocoding and current weather (openweathermap.org/api/geocoding-api,
// openweathermap.org/current) and OpenAI's Create image
// (platform.openai.com/docs/api-reference/images/create).
func servicesFake(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/giphy/v1/gifs/search":
			_, _ = w.Write([]byte(`{"data": [{"type": "gif", "id": "g1", "alt_text": "a cat", "images": {"original": {"url": "https://media.giphy.com/media/g1/giphy.gif"}}}], "meta": {"status": 200, "msg": "OK"}}`))
		case "/geo/1.0/direct":
			_, _ = w.Write([]byte(`[{"name": "Paris", "lat": 48.8588897, "lon": 2.3200410, "country": "FR"}]`))
		case "/data/2.5/weather":
			_, _ = w.Write([]byte(`{"weather": [{"id": 800, "main": "Clear", "description": "clear sky"}], "main": {"temp": 21.5}, "name": "Paris", "cod": 200}`))
		case "/api/v3/repos/octocat/Hello-World":
			_, _ = w.Write([]byte(`{"id": 1296269, "full_name": "octocat/Hello-World", "html_url": "https://github.com/octocat/Hello-World", "description": "My first repo", "stargazers_count": 80, "forks_count": 9, "open_issues_count": 0, "language": "Go", "license": null, "default_branch": "main"}`))
		case "/slack/api/chat.postMessage":
			_ = r.ParseForm()
			_, _ = w.Write([]byte(`{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247", "message": {"text": "` + r.Form.Get("text") + `", "type": "message"}}`))
		case "/openai/v1/images/generations":
			_, _ = w.Write([]byte(`{"created": 1713833628, "data": [{"url": "https://images.example/fox.png", "revised_prompt": "a fox"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// smtpSink is a plain SMTP server after RFC 5321 that accepts every
// command (AUTH PLAIN included) and records the DATA it is sent.
func smtpSink(t *testing.T) (port int, messages func() []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				say := func(s string) { _, _ = c.Write([]byte(s + "\r\n")) }
				say("220 sink ESMTP")
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					switch cmd := strings.ToUpper(strings.Fields(line + " x")[0]); cmd {
					case "EHLO":
						say("250-sink")
						say("250 AUTH PLAIN")
					case "AUTH":
						say("235 2.7.0 Accepted")
					case "DATA":
						say("354 Go ahead")
						var b strings.Builder
						for {
							l, err := r.ReadString('\n')
							if err != nil || l == ".\r\n" {
								break
							}
							b.WriteString(l)
						}
						mu.Lock()
						got = append(got, b.String())
						mu.Unlock()
						say("250 OK")
					case "QUIT":
						say("221 Bye")
						return
					default:
						say("250 OK")
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().(*net.TCPAddr).Port, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// build makes a toolkit the way a config does: the registered defaults,
// changed by edit, checked, then New.
func buildTyped[O any](t *testing.T, env tool.ToolkitEnv, name string, edit func(*O)) tool.Provider {
	t.Helper()
	tk, ok := tool.LookupToolkit(name)
	if !ok {
		t.Fatalf("toolkit %q is not registered", name)
	}
	opts := tk.DefaultOptions(env)
	edit(opts.(*O))
	if err := tk.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// An agent served by AgentOS calls the messaging and services toolkits
// (github, slack, email, openweather, dalle, giphy) built from the
// registry: the tools reach the (fake) services through
// the guarded client, their results reach the model, and the images they
// return are the run's images.
func TestMessagingToolkitsThroughAgentOS(t *testing.T) {
	// Registered first, checked last: after the fakes and AgentOS closed.
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	fake := servicesFake(t)
	g, err := netguard.New(netguard.Policy{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	hc := g.Client(0)
	t.Cleanup(hc.CloseIdleConnections)
	env := tool.ToolkitEnv{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), HTTPClient: hc}
	smtpPort, mails := smtpSink(t)

	tools := []tool.Provider{
		buildTyped(t, env, "giphy", func(o *giphy.Options) { o.APIKey = "gk"; o.BaseURL = fake.URL + "/giphy/v1/gifs/search" }),
		buildTyped(t, env, "openweather", func(o *openweather.Options) {
			o.APIKey = "ok"
			o.BaseURL = fake.URL + "/data/2.5"
			o.GeoURL = fake.URL + "/geo/1.0"
		}),
		buildTyped(t, env, "dalle", func(o *dalle.Options) { o.APIKey = "sk-e2e"; o.BaseURL = fake.URL + "/openai/v1" }),
		buildTyped(t, env, "github", func(o *github.Options) { o.AccessToken = "ghp_e2e"; o.BaseURL = fake.URL + "/api/v3" }),
		buildTyped(t, env, "slack", func(o *slack.Options) { o.Token = "xoxb-e2e"; o.APIURL = fake.URL + "/slack/api/" }),
		buildTyped(t, env, "email", func(o *email.Options) {
			o.ReceiverEmail, o.SenderName, o.SenderEmail, o.SenderPasskey = "user@example.com", "Concierge", "bot@example.com", "app-pass"
			o.SMTPHost, o.SMTPPort, o.Security = "127.0.0.1", smtpPort, "none"
		}),
	}
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{
			model.NewToolCall("c1", "search_gifs", `{"query": "cat"}`),
			model.NewToolCall("c2", "get_current_weather", `{"location": "Paris"}`),
			model.NewToolCall("c3", "create_image", `{"prompt": "a fox"}`),
			model.NewToolCall("c4", "get_repository", `{"repo_name": "octocat/Hello-World"}`),
			model.NewToolCall("c5", "send_message", `{"channel": "#general", "text": "Report ready"}`),
			model.NewToolCall("c6", "email_user", `{"subject": "Your report", "body": "Sunny in Paris."}`),
		}},
		modeltest.Response{Content: "Sunny in Paris; here are a cat GIF and a fox."},
	)
	a, err := agent.New(agent.Config{ID: "concierge", Name: "Concierge", Model: m, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	o, err := agentos.New(agentos.Config{Agents: []*agent.Agent{a}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(o.Handler())
	t.Cleanup(func() {
		srv.Close()
		_ = o.Close()
	})

	resp, err := srv.Client().PostForm(srv.URL+"/agents/concierge/runs", url.Values{"message": {"Weather in Paris, a cat gif and a fox picture"}, "stream": {"false"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("run: %d %s", resp.StatusCode, raw)
	}
	var out struct {
		Content string `json:"content"`
		Images  []struct {
			URL string `json:"url"`
		} `json:"images"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Content != "Sunny in Paris; here are a cat GIF and a fox." {
		t.Errorf("content = %q", out.Content)
	}
	var urls []string
	for _, im := range out.Images {
		urls = append(urls, im.URL)
	}
	if got := strings.Join(urls, " "); !strings.Contains(got, "https://media.giphy.com/media/g1/giphy.gif") || !strings.Contains(got, "https://images.example/fox.png") {
		t.Errorf("run images = %q, want the GIF and the generated image (%s)", urls, raw)
	}

	// The second model request carries the three tool results.
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	results := map[string]string{}
	for _, msg := range reqs[1].Messages {
		if msg.Role == model.RoleTool {
			results[msg.ToolName] = msg.Content
		}
	}
	for name, want := range map[string]string{
		"search_gifs":         "Found 1 GIF(s): ['https://media.giphy.com/media/g1/giphy.gif']",
		"get_current_weather": "\"location_name\": \"Paris\",\n  \"country\": \"FR\"\n}",
		"create_image":        "Image has been generated at the URL https://images.example/fox.png\n",
		"get_repository":      "{\n  \"name\": \"octocat/Hello-World\",\n  \"description\": \"My first repo\",",
		"email_user":          "email sent successfully",
		"send_message":        `{"ok": true, "channel": "C123ABC456", "ts": "1503435956.000247", "message": {"text": "Report ready", "type": "message"}}`,
	} {
		if !strings.Contains(results[name], want) {
			t.Errorf("%s result = %q, want it to contain %q", name, results[name], want)
		}
	}
	if m := mails(); len(m) != 1 || !strings.Contains(m[0], "Subject: Your report\r\n") || !strings.Contains(m[0], "\r\n\r\nSunny in Paris.\r\n") {
		t.Errorf("mail received: %q", m)
	}
}
