package watsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/option"
)

// watsonx.ai's chat API (https://cloud.ibm.com/apidocs/watsonx-ai#text-chat,
// #text-chat-stream) takes Chat Completions' messages, tools and sampling
// fields and answers in Chat Completions' shape, so the openai-go client
// does the encoding and decoding. What differs is adapted here: the
// routes and version query, model_id and project_id, tool_choice_option,
// IAM bearer tokens, and the error body.

// chatCompletionsPath is where the SDK sends a chat completion, relative
// to the base URL set by clientOptions.
const chatCompletionsPath = "/chat/completions"

// rewrite turns the SDK's Chat Completions request into watsonx.ai's: it
// runs once per call, before the retries.
func rewrite(base, version, projectID string) option.Middleware {
	chat := strings.TrimSuffix(base, "/") + "/ml/v1/text/chat"
	return func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, chatCompletionsPath) {
			return nil, fmt.Errorf("watsonx: unexpected %s %s", r.Method, r.URL.Path)
		}
		var body map[string]json.RawMessage
		if r.Body != nil {
			raw, err := io.ReadAll(r.Body)
			_ = r.Body.Close()
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(raw, &body); err != nil {
				return nil, fmt.Errorf("watsonx: request body: %w", err)
			}
		}
		stream := string(body["stream"]) == "true"
		target := chat
		if stream {
			target += "_stream"
		}
		if _, ok := body["model_id"]; !ok {
			body["model_id"] = body["model"]
		}
		if _, ok := body["project_id"]; !ok {
			body["project_id"], _ = json.Marshal(projectID)
		}
		// watsonx.ai takes the mode ("none", "auto", "required") as
		// tool_choice_option and only a named tool as tool_choice.
		if tc, ok := body["tool_choice"]; ok && len(tc) > 0 && tc[0] == '"' {
			body["tool_choice_option"] = tc
			delete(body, "tool_choice")
		}
		// Not fields of watsonx.ai's chat: the route says whether to
		// stream, and usage always comes in the last event.
		delete(body, "model")
		delete(body, "stream")
		delete(body, "stream_options")
		delete(body, "user")
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		u, err := r.URL.Parse(target)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		for k, vs := range r.URL.Query() {
			q[k] = vs
		}
		q.Set("version", version)
		u.RawQuery = q.Encode()
		r.URL, r.Host = u, u.Host
		r.Body = io.NopCloser(bytes.NewReader(raw))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil }
		r.ContentLength = int64(len(raw))
		r.Header.Set("Content-Length", strconv.Itoa(len(raw)))
		if stream {
			r.Header.Set("Accept", "text/event-stream")
		}
		return next(r)
	}
}

// transport authenticates each attempt with a current IAM token and
// reads watsonx.ai's error body into the {"error":{"message","code"}}
// shape the Chat Completions error handling reads, so a ProviderError
// carries watsonx.ai's own message.
type transport struct {
	base http.RoundTripper
	iam  *iamTokens
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	tok, err := t.iam.get(r.Context())
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	res, err := t.base.RoundTrip(r)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	if res.StatusCode == http.StatusUnauthorized {
		t.iam.invalidate(tok)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	if adapted, ok := adaptError(body); ok {
		body = adapted
		res.Header.Del("Content-Length")
		res.ContentLength = int64(len(body))
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

// adaptError reads watsonx.ai's error body,
// {"errors":[{"code","message","more_info"}],"trace","status_code"}.
func adaptError(body []byte) ([]byte, bool) {
	var e struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
		Trace string `json:"trace"`
	}
	if json.Unmarshal(body, &e) != nil || len(e.Errors) == 0 {
		return nil, false
	}
	msgs := make([]string, 0, len(e.Errors))
	for _, x := range e.Errors {
		if x.Message != "" {
			msgs = append(msgs, x.Message)
		}
	}
	if len(msgs) == 0 {
		return nil, false
	}
	out, err := json.Marshal(map[string]any{"error": map[string]any{
		"message": strings.Join(msgs, "; "), "code": e.Errors[0].Code, "type": "watsonx", "trace": e.Trace,
	}})
	return out, err == nil
}
