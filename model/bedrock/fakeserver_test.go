package bedrock_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// fakeBedrock is a Bedrock runtime server for tests. It answers
// POST /model/{modelId}/converse with a JSON body and
// POST /model/{modelId}/converse-stream with an AWS event stream, as
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
// and https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
// describe them. Stream events are framed with the SDK's own event-stream
// encoder (prelude, headers :message-type, :event-type, :content-type,
// payload, CRCs), per
// https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-stream
// (the event stream encoding page). Errors come the way Bedrock sends
// them: the status, an x-amzn-ErrorType header naming the exception, and
// {"message": ...}.
//
// It checks the caller's credentials the vendor's way: a bearer token
// equal to key, or (when key is "") a SigV4 signature it recomputes with
// the SDK's signer from the test credentials, for service bedrock.
type fakeBedrock struct {
	t    *testing.T
	srv  *httptest.Server
	key  string
	cred aws.Credentials

	mu       sync.Mutex
	replies  []reply
	requests []recorded

	gone     chan struct{}
	goneOnce sync.Once
	release  chan struct{}
}

// reply is one scripted answer.
type reply struct {
	// status and errType fail the request with Bedrock's error.
	status  int
	errType string
	message string
	// body is a Converse response; events a ConverseStream one.
	body   []byte
	events []eventstream.Message
	// hold keeps the stream open after events until the client goes
	// away; cut drops the connection after them.
	hold, cut bool
}

// recorded is a request the server received.
type recorded struct {
	header http.Header
	body   []byte
	model  string
	stream bool
}

// Test credentials and region of the fake.
const (
	testRegion    = "us-east-1"
	testKeyID     = "AKIDBEDROCKTEST0001"
	testSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYBEDROCKTEST"
	testSessionTk = "FwoGZXIvYXdzEBEDROCKSESSION"
)

func newFake(t *testing.T, key string, replies ...reply) *fakeBedrock {
	t.Helper()
	return startFake(t, false, key, replies...)
}

// newTLSFake serves over TLS, which the SDK requires for a bearer token.
func newTLSFake(t *testing.T, key string, replies ...reply) *fakeBedrock {
	t.Helper()
	return startFake(t, true, key, replies...)
}

func startFake(t *testing.T, tls bool, key string, replies ...reply) *fakeBedrock {
	t.Helper()
	f := &fakeBedrock{
		t: t, key: key, replies: replies,
		cred: aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret, SessionToken: testSessionTk},
		gone: make(chan struct{}), release: make(chan struct{}),
	}
	if tls {
		f.srv = httptest.NewTLSServer(f)
	} else {
		f.srv = httptest.NewServer(f)
	}
	t.Cleanup(f.close)
	return f
}

// close releases held streams, then shuts the server down. Safe to call
// more than once.
func (f *fakeBedrock) close() {
	f.mu.Lock()
	select {
	case <-f.release:
	default:
		close(f.release)
	}
	f.mu.Unlock()
	f.srv.Close()
}

func (f *fakeBedrock) received() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// bodyJSON is the decoded body of request i.
func (f *fakeBedrock) bodyJSON(i int) map[string]any {
	f.t.Helper()
	reqs := f.received()
	if i >= len(reqs) {
		f.t.Fatalf("request %d not received (got %d)", i, len(reqs))
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].body, &m); err != nil {
		f.t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

func (f *fakeBedrock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	modelID, op, ok := route(r)
	f.mu.Lock()
	f.requests = append(f.requests, recorded{header: r.Header.Clone(), body: raw, model: modelID, stream: op == "converse-stream"})
	var rp reply
	scripted := len(f.replies) > 0
	if scripted {
		rp = f.replies[0]
		if len(f.replies) > 1 {
			f.replies = f.replies[1:]
		}
	}
	f.mu.Unlock()

	if !ok || r.Method != http.MethodPost {
		writeError(w, http.StatusNotFound, "UnknownOperationException", "")
		return
	}
	if status, typ, msg := f.checkAuth(r, raw); status != 0 {
		writeError(w, status, typ, msg)
		return
	}
	if msg := validate(raw); msg != "" {
		writeError(w, http.StatusBadRequest, "ValidationException", msg)
		return
	}
	if !scripted {
		writeError(w, http.StatusInternalServerError, "InternalServerException", "fake server: no reply scripted")
		return
	}
	if rp.status != 0 {
		writeError(w, rp.status, rp.errType, rp.message)
		return
	}
	if op == "converse" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-amzn-RequestId", "fake-request-id")
		w.Write(rp.body)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("x-amzn-RequestId", "fake-request-id")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := eventstream.NewEncoder()
	// Event by event, flushing each, as the service sends them.
	for _, ev := range rp.events {
		if err := enc.Encode(w, ev); err != nil || rc.Flush() != nil {
			f.goneOnce.Do(func() { close(f.gone) })
			return
		}
	}
	if rp.cut {
		panic(http.ErrAbortHandler)
	}
	if rp.hold {
		select {
		case <-r.Context().Done():
			f.goneOnce.Do(func() { close(f.gone) })
		case <-f.release:
		}
	}
}

// route splits /model/{modelId}/{converse|converse-stream}; the model id
// is path-escaped (its ':' arrives as %3A).
func route(r *http.Request) (modelID, op string, ok bool) {
	p := r.URL.EscapedPath()
	rest, found := strings.CutPrefix(p, "/model/")
	if !found {
		return "", "", false
	}
	i := strings.LastIndex(rest, "/")
	if i < 0 {
		return "", "", false
	}
	op = rest[i+1:]
	if op != "converse" && op != "converse-stream" {
		return "", "", false
	}
	id, err := url.PathUnescape(rest[:i])
	return id, op, err == nil
}

// checkAuth answers a request without the expected credentials as
// Bedrock does: 403 with the exception of the failure.
func (f *fakeBedrock) checkAuth(r *http.Request, body []byte) (int, string, string) {
	auth := r.Header.Get("Authorization")
	if f.key != "" {
		if auth != "Bearer "+f.key {
			return http.StatusForbidden, "UnrecognizedClientException", "Invalid API Key format: Must start with pre-defined prefix"
		}
		return 0, "", ""
	}
	if msg := verifySigV4(r, body, f.cred, testRegion); msg != "" {
		return http.StatusForbidden, "InvalidSignatureException", msg
	}
	return 0, "", ""
}

// verifySigV4 recomputes the request's SigV4 signature with the SDK's
// signer over the headers the request says it signed, and compares.
func verifySigV4(r *http.Request, body []byte, cred aws.Credentials, region string) string {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fmt.Sprintf("Authorization %q is not AWS4-HMAC-SHA256", auth)
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[0] != cred.AccessKeyID || scope[2] != region || scope[3] != "bedrock" || scope[4] != "aws4_request" {
		return fmt.Sprintf("credential scope %q: want %s/<date>/%s/bedrock/aws4_request", fields["Credential"], cred.AccessKeyID, region)
	}
	if r.Header.Get("X-Amz-Security-Token") != cred.SessionToken {
		return "X-Amz-Security-Token is not the session token"
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "X-Amz-Date: " + err.Error()
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	again, _ := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	again.Host = r.Host
	for _, h := range strings.Split(fields["SignedHeaders"], ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), cred, again, hex.EncodeToString(sum[:]), "bedrock", region, when); err != nil {
		return "signing: " + err.Error()
	}
	if got, want := auth, again.Header.Get("Authorization"); got != want {
		return fmt.Sprintf("The request signature we calculated does not match the signature you provided: got %q, want %q", got, want)
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-ErrorType", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": msg})
	w.Write(b)
}

// validate applies Converse's request rules and returns the service's
// message for the first one broken, or "".
func validate(raw []byte) string {
	var req struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
		ToolConfig *struct {
			Tools []map[string]any `json:"tools"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		return "Malformed input request: " + err.Error()
	}
	if len(req.Messages) == 0 {
		return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
	}
	var prevToolUses []string
	usesTools := false
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("1 validation error detected: Value '%s' at 'messages.%d.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]", m.Role, i+1)
		}
		if i == 0 && m.Role != "user" {
			return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
		}
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."
		}
		if len(m.Content) == 0 {
			return fmt.Sprintf("The content field in the Message object at messages.%d is empty. Add a ContentBlock object to the content field and try again.", i)
		}
		var toolUses []string
		answered := map[string]bool{}
		for j, b := range m.Content {
			if len(b) != 1 {
				return fmt.Sprintf("messages.%d.content.%d: a ContentBlock is a union: set exactly one member", i, j)
			}
			switch {
			case b["text"] != nil:
				if s, _ := b["text"].(string); strings.TrimSpace(s) == "" {
					return fmt.Sprintf("The text field in the ContentBlock object at messages.%d.content.%d is blank. Add text to the text field, and try again.", i, j)
				}
			case b["toolUse"] != nil:
				usesTools = true
				tu, _ := b["toolUse"].(map[string]any)
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: toolUse is only allowed in assistant messages", i, j)
				}
				if _, ok := tu["input"].(map[string]any); !ok {
					return fmt.Sprintf("messages.%d.content.%d.toolUse.input must be a JSON object", i, j)
				}
				id, _ := tu["toolUseId"].(string)
				toolUses = append(toolUses, id)
			case b["toolResult"] != nil:
				usesTools = true
				tr, _ := b["toolResult"].(map[string]any)
				id, _ := tr["toolUseId"].(string)
				if !contains(prevToolUses, id) {
					return fmt.Sprintf("messages.%d.content.%d: the toolResult's toolUseId %s has no toolUse in the previous turn", i, j, id)
				}
				answered[id] = true
			case b["reasoningContent"] != nil:
				if m.Role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: reasoningContent is only allowed in assistant messages", i, j)
				}
			case b["image"] != nil, b["document"] != nil:
			default:
				return fmt.Sprintf("messages.%d.content.%d: unknown content block %v", i, j, b)
			}
		}
		if m.Role == "user" {
			for _, id := range prevToolUses {
				if !answered[id] {
					return fmt.Sprintf("Expected toolResult blocks at messages.%d.content for the following Ids: %s", i, id)
				}
			}
		}
		prevToolUses = toolUses
	}
	if usesTools && (req.ToolConfig == nil || len(req.ToolConfig.Tools) == 0) {
		return "The toolConfig field must be defined when using toolUse and toolResult content blocks."
	}
	return ""
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// event is one ConverseStream event: an event message with its type
// headers and JSON payload.
func event(typ string, payload any) eventstream.Message {
	b, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue("event"))
	h.Set(":event-type", eventstream.StringValue(typ))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	return eventstream.Message{Headers: h, Payload: b}
}

// exception is an exception message inside a stream
// (modelStreamErrorException, throttlingException, ...).
func exception(typ, msg string) eventstream.Message {
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue("exception"))
	h.Set(":exception-type", eventstream.StringValue(typ))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	b, _ := json.Marshal(map[string]string{"message": msg})
	return eventstream.Message{Headers: h, Payload: b}
}
