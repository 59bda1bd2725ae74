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
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.uber.org/goleak"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/bedrock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	region = "us-east-1"
	keyID  = "AKIDEMBEDTEST0001"
	secret = "embedSecretKeyForTests/0123456789abcdef"
)

func isolateAWS(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, v := range []string{"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_REGION", region)
	t.Setenv("AWS_ACCESS_KEY_ID", keyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
}

// invokeFake answers POST /model/{modelId}/invoke as Bedrock does
// (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html):
// the model's own JSON body in, its JSON out; the bodies are Cohere
// Embed's (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html)
// and Titan's (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html).
// It recomputes each request's SigV4 signature with the SDK's signer, and
// fails requests with Bedrock's error (x-amzn-ErrorType, {"message"}).
type invokeFake struct {
	srv    *httptest.Server
	answer func(model string, body map[string]any) (int, string, any)

	mu       sync.Mutex
	requests []map[string]any
	models   []string
}

func newInvokeFake(t *testing.T, answer func(model string, body map[string]any) (int, string, any)) *invokeFake {
	f := &invokeFake{answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *invokeFake) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), "/model/")
	id, op, _ := strings.Cut(rest, "/")
	id, _ = url.PathUnescape(id)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	f.requests = append(f.requests, body)
	f.models = append(f.models, id)
	f.mu.Unlock()
	if r.Method != http.MethodPost || op != "invoke" {
		writeError(w, 404, "UnknownOperationException", "")
		return
	}
	if msg := verifySigV4(r, raw); msg != "" {
		writeError(w, 403, "InvalidSignatureException", msg)
		return
	}
	status, typ, out := f.answer(id, body)
	if status != 0 {
		writeError(w, status, typ, out.(string))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (f *invokeFake) received() ([]map[string]any, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests...), append([]string(nil), f.models...)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("x-amzn-ErrorType", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

func verifySigV4(r *http.Request, body []byte) string {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return "not SigV4: " + auth
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	if s := strings.Split(fields["Credential"], "/"); len(s) != 5 || s[0] != keyID || s[2] != region || s[3] != "bedrock" {
		return "credential scope " + fields["Credential"]
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return err.Error()
	}
	u := *r.URL
	u.Scheme, u.Host = "http", r.Host
	again, _ := http.NewRequest(r.Method, u.String(), bytes.NewReader(body))
	for _, h := range strings.Split(fields["SignedHeaders"], ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	_ = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}, again, hex.EncodeToString(sum[:]), "bedrock", region, when)
	if again.Header.Get("Authorization") != auth {
		return "signature mismatch"
	}
	return ""
}

// vec is a distinct vector for text i.
func vec(i, dims int) []float32 {
	v := make([]float32, dims)
	v[0] = float32(i) + 0.5
	return v
}

func texts(body map[string]any) []string {
	var out []string
	for _, t := range body["texts"].([]any) {
		out = append(out, t.(string))
	}
	return out
}

// Cohere Embed v3 through the registry: texts go in batches, each a
// SigV4-signed InvokeModel call with agno's input_type; vectors come back
// in order.
func TestCohereV3(t *testing.T) {
	isolateAWS(t)
	f := newInvokeFake(t, func(_ string, body map[string]any) (int, string, any) {
		var embs [][]float32
		for _, s := range texts(body) {
			var i int
			fmt.Sscanf(s, "text %d", &i)
			embs = append(embs, vec(i, 1024))
		}
		return 0, "", map[string]any{"id": "e1", "response_type": "embeddings_floats", "texts": body["texts"], "embeddings": embs}
	})
	p, ok := embedder.Lookup(bedrock.ProviderBedrock)
	if !ok {
		t.Fatal("aws-bedrock embedder is not registered")
	}
	e, err := p.New(embedder.Options{BaseURL: f.srv.URL, BatchSize: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.srv.Client().CloseIdleConnections()
	in := []string{"text 0", "text 1", "text 2"}
	vecs, _, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dimensions() != 1024 || len(vecs) != 3 {
		t.Fatalf("dims %d, %d vectors", e.Dimensions(), len(vecs))
	}
	for i, v := range vecs {
		if !reflect.DeepEqual(v, vec(i, 1024)) {
			t.Errorf("vector %d = %v...", i, v[:2])
		}
	}
	bodies, models := f.received()
	if len(bodies) != 2 || models[0] != bedrock.DefaultID {
		t.Fatalf("%d calls to %v", len(bodies), models)
	}
	if got := texts(bodies[0]); !reflect.DeepEqual(got, in[:2]) || bodies[0]["input_type"] != "search_query" {
		t.Errorf("first body = %v", bodies[0])
	}
}

// Cohere Embed v4 sends output_dimension and reads embeddings by type;
// Titan v2 embeds one text per call and reports its tokens.
func TestCohereV4AndTitan(t *testing.T) {
	isolateAWS(t)
	f := newInvokeFake(t, func(model string, body map[string]any) (int, string, any) {
		if strings.HasPrefix(model, "cohere") {
			var embs [][]float32
			for i := range texts(body) {
				embs = append(embs, vec(i, int(body["output_dimension"].(float64))))
			}
			return 0, "", map[string]any{"embeddings": map[string]any{"float": embs}, "response_type": "embeddings_by_type"}
		}
		return 0, "", map[string]any{"embedding": vec(0, int(body["dimensions"].(float64))), "inputTextTokenCount": len(strings.Fields(body["inputText"].(string)))}
	})
	defer f.srv.Client().CloseIdleConnections()
	v4e, err := bedrock.New(bedrock.Config{ID: "cohere.embed-v4:0", Dimensions: 512, BaseURL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	vecs, _, err := v4e.Embed(context.Background(), []string{"a", "b"})
	if err != nil || len(vecs) != 2 || len(vecs[1]) != 512 {
		t.Fatalf("v4: %d vectors, err %v", len(vecs), err)
	}
	titan, err := bedrock.New(bedrock.Config{ID: "amazon.titan-embed-text-v2:0", Dimensions: 256, BaseURL: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	vecs, u, err := titan.Embed(context.Background(), []string{"one two", "three four five"})
	if err != nil || len(vecs) != 2 || len(vecs[0]) != 256 || u.PromptTokens != 5 {
		t.Fatalf("titan: %d vectors, usage %+v, err %v", len(vecs), u, err)
	}
	bodies, _ := f.received()
	if bodies[0]["output_dimension"] != float64(512) || bodies[1]["inputText"] != "one two" || bodies[1]["dimensions"] != float64(256) || len(bodies) != 3 {
		t.Errorf("bodies = %v", bodies)
	}
}

// Throttling is retried, validation errors are not; both carry Bedrock's
// message.
func TestErrors(t *testing.T) {
	isolateAWS(t)
	for _, tc := range []struct {
		status   int
		typ, msg string
		calls    int
	}{
		{429, "ThrottlingException", "Too many requests", 2},
		{400, "ValidationException", "Malformed input request", 1},
	} {
		f := newInvokeFake(t, func(string, map[string]any) (int, string, any) { return tc.status, tc.typ, tc.msg })
		e, err := bedrock.New(bedrock.Config{BaseURL: f.srv.URL, MaxRetries: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = e.Embed(context.Background(), []string{"x"})
		if err == nil || !strings.Contains(err.Error(), tc.typ) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: err = %v", tc.typ, err)
		}
		if bodies, _ := f.received(); len(bodies) != tc.calls {
			t.Errorf("%s: %d calls, want %d", tc.typ, len(bodies), tc.calls)
		}
		f.srv.Client().CloseIdleConnections()
	}
}

func TestConfigErrors(t *testing.T) {
	isolateAWS(t)
	for cfg, want := range map[*bedrock.Config]string{
		{ID: "meta.llama3-70b-instruct-v1:0"}:            "not an embedding model",
		{ID: "cohere.embed-english-v3", Dimensions: 512}: "returns [1024] dimensions, not 512",
		{BatchSize: 200}: "1 to 96 texts",
	} {
		if _, err := bedrock.New(*cfg); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: err = %v, want %q", *cfg, err, want)
		}
	}
	t.Setenv("AWS_REGION", "")
	if _, err := bedrock.New(bedrock.Config{}); err == nil || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Errorf("no region: err = %v", err)
	}
	t.Setenv("AWS_REGION", region)
	p, _ := embedder.Lookup(bedrock.ProviderBedrock)
	e, err := p.New(embedder.Options{APIKeyEnv: "UNSET_BEDROCK_API_KEY"}, nil)
	if err != nil || e.Dimensions() != 1024 {
		t.Fatalf("unset api_key_env: New = %v", err)
	}
	if _, _, err := e.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "UNSET_BEDROCK_API_KEY") {
		t.Errorf("unset api_key_env: Embed err = %v", err)
	}
}
