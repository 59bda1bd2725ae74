package awsclaude_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
	"github.com/agno-go/agno/model/awsclaude"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	testRegion    = "eu-central-1"
	testAccessKey = "AKIDEXAMPLEAGNOGO"
	testSecretKey = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	testModel     = "anthropic.claude-sonnet-4-5-20250929-v1:0"
)

// hermetic keeps the machine's AWS settings out of a test.
func hermetic(t *testing.T) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": dir + "/config", "AWS_SHARED_CREDENTIALS_FILE": dir + "/credentials",
		"AWS_BEARER_TOKEN_BEDROCK": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

func TestConformance(t *testing.T) {
	hermetic(t)
	providertest.Run(t, providertest.Harness{
		Provider: awsclaude.ProviderAWSClaude,
		ID:       testModel,
		Options:  &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey},
		Start: func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
			return anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion), turns...)
		},
	})
}

// bedrockPlatform is Bedrock Runtime as a fake: InvokeModel
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html)
// and InvokeModelWithResponseStream
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html)
// with the Anthropic body of
// https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html.
// Requests must carry a valid SigV4 signature
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html)
// for the key and region; streams are AWS event-stream messages, each a
// "chunk" event whose payload is {"bytes": base64 of one Messages API
// event}, written with the AWS SDK's own encoder.
func bedrockPlatform(t *testing.T, accessKey, secretKey, region string) anthropictest.Platform {
	return anthropictest.Platform{
		Route: func(w http.ResponseWriter, r *http.Request, body []byte) (string, bool, bool) {
			rest, ok := strings.CutPrefix(r.URL.Path, "/model/")
			modelID, op, _ := strings.Cut(rest, "/")
			if r.Method != http.MethodPost || !ok || (op != "invoke" && op != "invoke-with-response-stream") {
				bedrockError(w, http.StatusNotFound, "UnknownOperationException", "unknown operation "+r.URL.Path)
				return modelID, false, false
			}
			stream := op == "invoke-with-response-stream"
			if msg := checkSignature(r, body, accessKey, secretKey, region); msg != "" {
				bedrockError(w, http.StatusForbidden, "InvalidSignatureException", msg)
				return modelID, stream, false
			}
			var b struct {
				Version string `json:"anthropic_version"`
			}
			if json.Unmarshal(body, &b) != nil || b.Version != awsclaude.AnthropicVersion {
				bedrockError(w, http.StatusBadRequest, "ValidationException", "anthropic_version must be "+awsclaude.AnthropicVersion)
				return modelID, stream, false
			}
			return modelID, stream, true
		},
		WriteError: func(w http.ResponseWriter, turn providertest.Turn) {
			bedrockError(w, turn.Status, bedrockErrorTypes[turn.Status], turn.ErrorMessage)
		},
		StreamContentType: "application/vnd.amazon.eventstream",
		WriteEvent: func(w io.Writer, ev anthropictest.Event) error {
			payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString([]byte(ev.Data))})
			msg := eventstream.Message{Payload: payload}
			msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			return eventstream.NewEncoder().Encode(w, msg)
		},
	}
}

// bedrockErrorTypes are InvokeModel's errors by status.
var bedrockErrorTypes = map[int]string{
	400: "ValidationException", 401: "UnrecognizedClientException", 403: "AccessDeniedException",
	404: "ResourceNotFoundException", 408: "ModelTimeoutException", 424: "ModelErrorException",
	429: "ThrottlingException", 500: "InternalServerException", 503: "ServiceUnavailableException",
}

// bedrockError is an AWS JSON protocol error: {"message"} with the type in
// x-amzn-ErrorType.
func bedrockError(w http.ResponseWriter, status int, typ, msg string) {
	if typ == "" {
		typ = "InternalServerException"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-amzn-ErrorType", typ)
	w.Header().Set("x-amzn-RequestId", "b1a2c3d4-0000-0000-0000-fake")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": msg})
	w.Write(b)
}

// checkSignature verifies a SigV4 Authorization header: the credential
// scope names the key, region and service, and the signature is the one
// the signer computes over the signed headers and the body.
func checkSignature(r *http.Request, body []byte, accessKey, secretKey, region string) string {
	auth := r.Header.Get("Authorization")
	algo, fields, _ := strings.Cut(auth, " ")
	if algo != "AWS4-HMAC-SHA256" {
		return "missing AWS4-HMAC-SHA256 Authorization: " + auth
	}
	parts := map[string]string{}
	for _, f := range strings.Split(fields, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		parts[k] = v
	}
	date := r.Header.Get("X-Amz-Date")
	signedAt, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		return "bad X-Amz-Date " + date
	}
	scope := strings.Join([]string{accessKey, date[:8], region, "bedrock", "aws4_request"}, "/")
	if parts["Credential"] != scope {
		return "credential scope " + parts["Credential"] + ", want " + scope
	}
	hash := sha256.Sum256(body)
	if got := r.Header.Get("X-Amz-Content-Sha256"); got != "" && got != hex.EncodeToString(hash[:]) {
		return "X-Amz-Content-Sha256 does not match the body"
	}
	// Re-sign the request as it arrived, with only the headers it signed.
	re, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.EscapedPath(), bytes.NewReader(body))
	re.URL.RawPath = r.URL.EscapedPath()
	for _, h := range strings.Split(parts["SignedHeaders"], ";") {
		if h != "host" {
			re.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	re.Header.Del("Authorization")
	re.Header.Del("X-Amz-Date")
	creds := aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, re, hex.EncodeToString(hash[:]), "bedrock", region, signedAt); err != nil {
		return err.Error()
	}
	if re.Header.Get("Authorization") != auth {
		return "the request signature does not match"
	}
	return ""
}

// Requests hit /model/{id}/invoke(-with-response-stream) with the id,
// signed for the key and region; the body carries no model and stream.
func TestRoutingAndSigning(t *testing.T) {
	hermetic(t)
	for _, stream := range []bool{false, true} {
		fake := anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion),
			providertest.Turn{Text: []string{"Hi ", "there"}, InputTokens: 3, OutputTokens: 2})
		m := newModel(t, fake.URL(), &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey})
		resp, err := model.Collect(m.Generate(ctx(t), &model.Request{Stream: stream, Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}))
		if err != nil {
			t.Fatalf("stream=%v: %v", stream, err)
		}
		if resp.Content != "Hi there" {
			t.Errorf("content = %q", resp.Content)
		}
		req := fake.Requests()[0]
		if req.Model != testModel || req.Stream != stream {
			t.Errorf("routed to model %q stream %v", req.Model, req.Stream)
		}
		if !strings.HasPrefix(req.Header.Get("Authorization"), "AWS4-HMAC-SHA256 Credential="+testAccessKey+"/") ||
			!strings.Contains(req.Header.Get("Authorization"), "/"+testRegion+"/bedrock/aws4_request") {
			t.Errorf("Authorization = %q", req.Header.Get("Authorization"))
		}
		var body map[string]any
		_ = json.Unmarshal(req.Body, &body)
		for _, k := range []string{"model", "stream"} {
			if _, ok := body[k]; ok {
				t.Errorf("body carries %q: Bedrock takes it from the URL", k)
			}
		}
	}
}

// A wrong secret fails the signature check, and the failure names it.
func TestWrongSecretRejected(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion), providertest.Turn{Text: []string{"x"}})
	m := newModel(t, fake.URL(), &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: "not-the-secret"})
	_, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}))
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusForbidden || !strings.Contains(pe.Message, "signature does not match") {
		t.Fatalf("err = %v", err)
	}
}

// Thinking and caching keys reach Bedrock's body, and betas move from the
// header into anthropic_beta, as Bedrock takes them.
func TestClaudeOptionsOnBedrock(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion), providertest.Turn{Text: []string{"ok"}})
	o := &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey}
	o.Thinking = &anthropic.Thinking{Type: "enabled", BudgetTokens: 1024}
	o.CacheSystemPrompt = true
	o.Betas = []string{"context-1m-2025-08-07"}
	m := newModel(t, fake.URL(), o)
	_, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleSystem, Content: "Be brief."}, {Role: model.RoleUser, Content: "hello"}}}))
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Thinking map[string]any `json:"thinking"`
		System   []struct {
			CacheControl map[string]any `json:"cache_control"`
		} `json:"system"`
		Betas []string `json:"anthropic_beta"`
	}
	if err := json.Unmarshal(fake.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Thinking["budget_tokens"] != float64(1024) || len(body.System) != 1 || body.System[0].CacheControl["type"] != "ephemeral" ||
		len(body.Betas) != 1 || body.Betas[0] != "context-1m-2025-08-07" {
		t.Errorf("body = %s", fake.Requests()[0].Body)
	}
}

func TestInfoAndValidation(t *testing.T) {
	hermetic(t)
	m := newModel(t, "http://127.0.0.1:1", &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey})
	if info := m.Info(); info.Provider != "AwsBedrock" || info.Name != "AwsBedrockAnthropicClaude" || info.ID != testModel {
		t.Errorf("Info = %+v", info)
	}
	for _, tc := range []struct {
		o    awsclaude.Options
		want string
	}{
		{awsclaude.Options{AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey}, "no AWS region: set aws_region"},
		{awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey}, "aws_access_key_env and aws_secret_key_env go together"},
		{awsclaude.Options{AWSRegion: testRegion, AWSSessionToken: "tok"}, "aws_session_token_env is set without"},
		{awsclaude.Options{AWSRegion: testRegion, Options: anthropic.Options{Thinking: &anthropic.Thinking{Type: "enabled", BudgetTokens: 10}}}, "budget_tokens is 10"},
	} {
		if _, err := awsclaude.New(model.ProviderSettings{ID: testModel}, &tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.o, err, tc.want)
		}
	}
}

// AWS_REGION and the default chain's AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
// serve when the table names none.
func TestCredentialsFromEnvironment(t *testing.T) {
	hermetic(t)
	t.Setenv("AWS_REGION", testRegion)
	t.Setenv("AWS_ACCESS_KEY_ID", testAccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecretKey)
	fake := anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion), providertest.Turn{Text: []string{"ok"}})
	m := newModel(t, fake.URL(), &awsclaude.Options{})
	if _, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}})); err != nil {
		t.Fatal(err)
	}
}

func newModel(t *testing.T, url string, o *awsclaude.Options) model.Model {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	m, err := awsclaude.New(model.ProviderSettings{ID: testModel, BaseURL: url, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1}, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// An exception frame inside the event stream (InvokeModelWithResponseStream's
// throttlingException) ends the call with a rate-limited ProviderError
// carrying its message, after the text that came before it.
func TestStreamException(t *testing.T) {
	hermetic(t)
	p := bedrockPlatform(t, testAccessKey, testSecretKey, testRegion)
	write := p.WriteEvent
	p.WriteEvent = func(w io.Writer, ev anthropictest.Event) error {
		if ev.Type == "message_delta" {
			msg := eventstream.Message{Payload: []byte(`{"message":"Too many tokens, please wait before trying again."}`)}
			msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
			msg.Headers.Set(":exception-type", eventstream.StringValue("throttlingException"))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			return eventstream.NewEncoder().Encode(w, msg)
		}
		return write(w, ev)
	}
	fake := anthropictest.StartFake(t, p, providertest.Turn{Text: []string{"partial"}})
	m := newModel(t, fake.URL(), &awsclaude.Options{AWSRegion: testRegion, AWSAccessKey: testAccessKey, AWSSecretKey: testSecretKey})
	resp, err := model.Collect(m.Generate(ctx(t), &model.Request{Stream: true, Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}}))
	var pe *model.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusTooManyRequests || !pe.RateLimited() || !strings.Contains(pe.Message, "Too many tokens") {
		t.Fatalf("err = %v", err)
	}
	if resp.Content != "partial" {
		t.Errorf("content before the exception = %q", resp.Content)
	}
}

// A Bedrock API key (api_key_env) is sent as a bearer token instead of a
// signature when the table has no IAM keys.
func TestBedrockAPIKey(t *testing.T) {
	hermetic(t)
	p := bedrockPlatform(t, testAccessKey, testSecretKey, testRegion)
	p.Route = func(w http.ResponseWriter, r *http.Request, body []byte) (string, bool, bool) {
		modelID, op, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/model/"), "/")
		if r.Header.Get("Authorization") != "Bearer bedrock-api-key" {
			bedrockError(w, http.StatusForbidden, "AccessDeniedException", "Authorization = "+r.Header.Get("Authorization"))
			return modelID, false, false
		}
		return modelID, op == "invoke-with-response-stream", true
	}
	fake := anthropictest.StartFake(t, p, providertest.Turn{Text: []string{"ok"}})
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	m, err := awsclaude.New(model.ProviderSettings{ID: testModel, BaseURL: fake.URL(), APIKey: "bedrock-api-key", HTTPClient: &http.Client{Transport: tr}}, &awsclaude.Options{AWSRegion: testRegion})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hello"}}})); err != nil {
		t.Fatal(err)
	}
}

// The credentials' keys name variables, as api_key_env does: a secret
// never sits in the file.
func TestCredentialsFromNamedVariables(t *testing.T) {
	hermetic(t)
	fake := anthropictest.StartFake(t, bedrockPlatform(t, testAccessKey, testSecretKey, testRegion), providertest.Turn{Text: []string{"ok"}})
	t.Setenv("MY_AWS_KEY_ID", testAccessKey)
	t.Setenv("MY_AWS_SECRET", testSecretKey)
	m := newModel(t, fake.URL(), &awsclaude.Options{AWSRegion: testRegion, AWSAccessKeyEnv: "MY_AWS_KEY_ID", AWSSecretKeyEnv: "MY_AWS_SECRET"})
	if _, err := model.Collect(m.Generate(ctx(t), &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatalf("signed with the named variables' credentials: %v", err)
	}
	_, err := awsclaude.New(model.ProviderSettings{BaseURL: fake.URL()}, &awsclaude.Options{AWSRegion: testRegion, AWSAccessKeyEnv: "MY_AWS_UNSET", AWSSecretKeyEnv: "MY_AWS_SECRET"})
	if err == nil || !strings.Contains(err.Error(), "aws_access_key_env names MY_AWS_UNSET, which is not set") {
		t.Fatalf("unset variable: %v", err)
	}
}
