package watsonx

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// clock is a settable time for the token cache and the fake IAM.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testModel builds a model against chat, exchanging key with iam.
func testModel(t *testing.T, iam *fakeIAM, chat *fakeChat, key string) *Model {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	m, err := New(Config{
		ID: "ibm/granite-3-8b-instruct", APIKey: key, ProjectID: testProject, URL: chat.URL(), IAMURL: iam.url(),
		HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ask(m *Model, text string) (*model.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return model.Collect(m.Generate(ctx, &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: text}}}))
}

func authOf(r providertest.Request) string {
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func TestIAMTokenCachedUntilRefresh(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)}
	iam := newFakeIAM("key-1")
	defer iam.srv.Close()
	iam.now = c.now
	chat := startFakeChat(t, iam, testProject, providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	m := testModel(t, iam, chat, "key-1")
	m.iam.now = c.now

	for i := range 3 {
		if _, err := ask(m, "hi"); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := iam.count(); n != 1 {
		t.Fatalf("%d token exchanges for 3 calls within the token's life, want 1", n)
	}
	// Tokens live an hour; at 47 minutes one is still used, past 80% of
	// its life it is replaced before it can expire in flight.
	c.advance(47 * time.Minute)
	if _, err := ask(m, "hi"); err != nil {
		t.Fatal(err)
	}
	if n := iam.count(); n != 1 {
		t.Fatalf("%d exchanges at 47 minutes, want 1", n)
	}
	c.advance(2 * time.Minute)
	if _, err := ask(m, "hi"); err != nil {
		t.Fatal(err)
	}
	if n := iam.count(); n != 2 {
		t.Fatalf("%d exchanges at 49 minutes, want 2 (refresh at 48)", n)
	}
	reqs := chat.Requests()
	if got, first, last := len(reqs), authOf(reqs[0]), authOf(reqs[len(reqs)-1]); got != 5 || first == last || authOf(reqs[3]) != first {
		t.Errorf("bearer tokens of %d requests: first %q, fourth %q, last %q; want the first token until the refresh, then a new one", got, first, authOf(reqs[3]), last)
	}
}

func TestIAMConcurrentCallsShareOneExchange(t *testing.T) {
	iam := newFakeIAM("key-1")
	defer iam.srv.Close()
	chat := startFakeChat(t, iam, testProject, providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	m := testModel(t, iam, chat, "key-1")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := ask(m, "hi"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := iam.count(); n != 1 {
		t.Errorf("%d exchanges for 8 concurrent calls, want 1", n)
	}
}

func TestIAMRefusedKey(t *testing.T) {
	iam := newFakeIAM("key-1")
	defer iam.srv.Close()
	chat := startFakeChat(t, iam, testProject, providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	m := testModel(t, iam, chat, "wrong-key")
	_, err := ask(m, "hi")
	pe, ok := model.AsProviderError(err)
	if !ok {
		t.Fatalf("err = %v (%T), want a *model.ProviderError", err, err)
	}
	if pe.StatusCode != http.StatusBadRequest || !strings.Contains(pe.Message, "Provided API key could not be found") ||
		pe.Retryable() || pe.Provider != ProviderName || pe.Model != "ibm/granite-3-8b-instruct" {
		t.Errorf("ProviderError = %+v (retryable %v): want IAM's 400 and message, not retryable, naming IBM and the model", pe, pe.Retryable())
	}
	if n := len(chat.Requests()); n != 0 {
		t.Errorf("%d chat requests without a token, want none", n)
	}
}

func TestIAMUnavailableIsRetryable(t *testing.T) {
	iam := newFakeIAM("key-1")
	defer iam.srv.Close()
	iam.status = http.StatusServiceUnavailable
	chat := startFakeChat(t, iam, testProject, providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	_, err := ask(testModel(t, iam, chat, "key-1"), "hi")
	if pe, ok := model.AsProviderError(err); !ok || pe.StatusCode != http.StatusServiceUnavailable || !pe.Retryable() {
		t.Errorf("err = %v: want a retryable ProviderError with IAM's 503", err)
	}
}

func TestRefusedTokenIsExchangedAgain(t *testing.T) {
	iam := newFakeIAM("key-1")
	defer iam.srv.Close()
	chat := startFakeChat(t, iam, testProject,
		providertest.Turn{Status: http.StatusUnauthorized, ErrorMessage: "token expired"},
		providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	m := testModel(t, iam, chat, "key-1")
	_, err := ask(m, "hi")
	if pe, ok := model.AsProviderError(err); !ok || pe.StatusCode != http.StatusUnauthorized || pe.Message != "token expired" {
		t.Fatalf("err = %v: want the 401 with watsonx.ai's message", err)
	}
	if _, err := ask(m, "hi"); err != nil {
		t.Fatal(err)
	}
	if n := iam.count(); n != 2 {
		t.Errorf("%d exchanges, want 2: a refused token is not used again", n)
	}
}

// TestConversationOnTheWire sends a system message, parallel tool calls
// and their results, and checks watsonx.ai's fields; the fake checks the
// tool results answer the calls.
func TestConversationOnTheWire(t *testing.T) {
	chat := startFakeChat(t, sharedIAM, testProject, providertest.Turn{Text: []string{"Sunny in both."}, InputTokens: 50, OutputTokens: 4})
	defer chat.Close()
	m := testModel(t, sharedIAM, chat, providertest.APIKey)
	temp, topP, maxTok, fp := 0.2, 0.9, 300, 0.5
	tools := []model.ToolDefinition{{Name: "get_weather", Description: "Weather of a city", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}}
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "You are terse."},
		{Role: model.RoleUser, Content: "Weather in Paris and Rome?"},
		{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
			model.NewToolCall("chatcmpl-tool-1", "get_weather", `{"city":"Paris"}`),
			model.NewToolCall("chatcmpl-tool-2", "get_weather", `{"city":"Rome"}`),
		}},
		{Role: model.RoleTool, ToolCallID: "chatcmpl-tool-1", Content: "sunny"},
		{Role: model.RoleTool, ToolCallID: "chatcmpl-tool-2", Content: "sunny"},
	}
	for _, tc := range []struct {
		choice *model.ToolChoice
		want   map[string]string
	}{
		{&model.ToolChoice{Mode: "auto"}, map[string]string{"tool_choice_option": `"auto"`}},
		{&model.ToolChoice{Function: "get_weather"}, map[string]string{"tool_choice": `{"function":{"name":"get_weather"},"type":"function"}`}},
	} {
		for _, stream := range []bool{false, true} {
			n := len(chat.Requests())
			r, err := model.Collect(m.Generate(context.Background(), &model.Request{
				Messages: msgs, Tools: tools, ToolChoice: tc.choice, Stream: stream,
				Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, FrequencyPenalty: &fp, Stop: []string{"END"},
			}))
			if err != nil {
				t.Fatal(err)
			}
			if r.Content != "Sunny in both." || r.Usage.InputTokens != 50 || r.Usage.OutputTokens != 4 {
				t.Errorf("stream=%v: response %q usage %+v", stream, r.Content, r.Usage)
			}
			req := chat.Requests()[n]
			var body map[string]json.RawMessage
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"model_id": `"ibm/granite-3-8b-instruct"`, "project_id": `"` + testProject + `"`,
				"temperature": "0.2", "top_p": "0.9", "max_tokens": "300", "frequency_penalty": "0.5", "stop": `["END"]`,
			}
			for k, v := range tc.want {
				want[k] = v
			}
			for k, v := range want {
				if got := string(body[k]); !jsonSame(got, v) {
					t.Errorf("stream=%v: %s = %s, want %s", stream, k, got, v)
				}
			}
			var sent []struct {
				Role      string `json:"role"`
				ToolCalls []any  `json:"tool_calls"`
			}
			_ = json.Unmarshal(body["messages"], &sent)
			var roles []string
			for _, s := range sent {
				roles = append(roles, s.Role)
			}
			if strings.Join(roles, ",") != "system,user,assistant,tool,tool" || len(sent[2].ToolCalls) != 2 {
				t.Errorf("stream=%v: messages %s", stream, body["messages"])
			}
		}
	}
}

func jsonSame(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

func TestOptions(t *testing.T) {
	p, ok := model.LookupProvider(ProviderIBM)
	if !ok {
		t.Fatal(`provider "ibm" is not registered`)
	}
	t.Setenv(KeyEnv, "")
	t.Setenv(ProjectIDEnv, "")
	t.Setenv(URLEnv, "")
	for _, tc := range []struct {
		name string
		s    model.ProviderSettings
		o    *Options
		want []string
	}{
		{"no key", model.ProviderSettings{}, &Options{ProjectID: "p"}, []string{KeyEnv}},
		{"no project", model.ProviderSettings{APIKey: "k"}, &Options{}, []string{"project_id", ProjectIDEnv}},
		{"bad url", model.ProviderSettings{APIKey: "k"}, &Options{ProjectID: "p", URL: "eu-de.ml.cloud.ibm.com"}, []string{"url", "not an http(s) URL"}},
		{"url with query", model.ProviderSettings{APIKey: "k"}, &Options{ProjectID: "p", URL: "https://eu-de.ml.cloud.ibm.com?x=1"}, []string{"url", "without credentials or query"}},
		{"base_url and url disagree", model.ProviderSettings{APIKey: "k", BaseURL: "https://us-south.ml.cloud.ibm.com"}, &Options{ProjectID: "p", URL: DefaultURL}, []string{"base_url", "url"}},
		{"authorization header", model.ProviderSettings{APIKey: "k", Headers: map[string]string{"authorization": "Bearer x"}}, &Options{ProjectID: "p"}, []string{"authorization", KeyEnv}},
	} {
		_, err := p.New(tc.s, tc.o)
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %q", tc.name, err, w)
			}
		}
	}

	t.Setenv(URLEnv, "not a url")
	if _, err := p.New(model.ProviderSettings{APIKey: "k"}, &Options{ProjectID: "p"}); err == nil || !strings.Contains(err.Error(), URLEnv) {
		t.Errorf("a bad %s: err = %v, want it named", URLEnv, err)
	}

	// The variables fill what the table leaves out, as in agno.
	chat := startFakeChat(t, sharedIAM, "env-project", providertest.Turn{Text: []string{"ok"}})
	defer chat.Close()
	t.Setenv(ProjectIDEnv, "env-project")
	t.Setenv(URLEnv, chat.URL())
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	m, err := p.New(model.ProviderSettings{APIKey: providertest.APIKey, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info := m.Info(); info.ID != DefaultID || info.Provider != ProviderName || info.Name != Name {
		t.Errorf("Info() = %+v", info)
	}
	if _, err := model.Collect(m.Generate(context.Background(), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatal(err)
	}
	if got := chat.Requests()[0].Model; got != DefaultID {
		t.Errorf("model_id = %q, want agno's default %q", got, DefaultID)
	}
}

// A caller waiting behind a slow token exchange gives up with its context.
func TestIAMWaitEndsWithContext(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer slow.Close()
	defer close(release)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	s := newIAMTokens(slow.URL, "k", &http.Client{Transport: tr})

	first := make(chan error, 1)
	go func() { _, err := s.get(context.Background()); first <- err }()
	// Wait until the first caller holds the exchange.
	for len(s.lock) == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.get(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting caller: err = %v, want its context's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("waiting caller returned after %v", d)
	}
	release <- struct{}{}
	var ie *iamError
	if err := <-first; !errors.As(err, &ie) || ie.status != http.StatusServiceUnavailable {
		t.Errorf("first caller: err = %v, want IAM's 503", err)
	}
}
