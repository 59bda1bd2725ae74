package bedrock_test

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/bedrock"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// isolateAWS keeps the machine's AWS configuration out of a test: no
// shared files, no AWS_* credentials, no instance metadata.
func isolateAWS(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"} {
		t.Setenv(v, "")
	}
}

// sigv4Provider is aws-bedrock exactly, but built without the suite's API
// key: given one, aws-bedrock sends it as a Bedrock API key (a bearer
// token), which the SDK refuses to send over the fake's plain http. The
// suite thus runs the provider's default path, SigV4 with AWS
// credentials; API keys are tested over TLS in TestAPIKeyBearer.
const sigv4Provider = "aws-bedrock-sigv4-test"

func init() {
	p, _ := model.LookupProvider(bedrock.ProviderBedrock)
	model.RegisterProvider(model.Provider[bedrock.Options]{
		Name: sigv4Provider,
		New: func(s model.ProviderSettings, o *bedrock.Options) (model.Model, error) {
			s.APIKey = ""
			return p.New(s, o)
		},
	})
}

// The suite against fakeBedrock, which recomputes every request's SigV4
// signature; the credentials are read from the variables the *_env keys
// name, and the model id holds a colon (path-escaped on the wire).
func TestConformance(t *testing.T) {
	isolateAWS(t)
	t.Setenv("TEST_BEDROCK_KEY_ID", testKeyID)
	t.Setenv("TEST_BEDROCK_SECRET", testSecret)
	t.Setenv("TEST_BEDROCK_TOKEN", testSessionTk)
	providertest.Run(t, providertest.Harness{
		Provider: sigv4Provider,
		ID:       "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
		Options: &bedrock.Options{
			AwsRegion:             testRegion,
			AwsAccessKeyIDEnv:     "TEST_BEDROCK_KEY_ID",
			AwsSecretAccessKeyEnv: "TEST_BEDROCK_SECRET",
			AwsSessionTokenEnv:    "TEST_BEDROCK_TOKEN",
		},
		Start:       starter(""),
		Unsupported: unsupported,
	})
}

var unsupported = map[providertest.Feature]string{
	// The suite's check sends an http(s) image URL; Converse takes images
	// only as bytes or S3 locations. Inline images: TestImagesAndDocuments.
	providertest.Images: "Converse takes no http(s) image URLs (bytes or s3:// only)",
}

// suiteFake adapts fakeBedrock to the suite.
type suiteFake struct{ f *fakeBedrock }

func starter(key string) func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	return func(t *testing.T, turns ...providertest.Turn) providertest.Fake {
		replies := make([]reply, len(turns))
		for i, turn := range turns {
			replies[i] = renderTurn(turn)
		}
		return suiteFake{newFake(t, key, replies...)}
	}
}

func (s suiteFake) URL() string                   { return s.f.srv.URL }
func (s suiteFake) Disconnected() <-chan struct{} { return s.f.gone }
func (s suiteFake) Close()                        { s.f.close() }

// errorTypes are the exceptions Bedrock answers each status with.
var errorTypes = map[int]string{
	400: "ValidationException", 401: "UnrecognizedClientException", 403: "AccessDeniedException",
	404: "ResourceNotFoundException", 408: "ModelTimeoutException", 424: "ModelErrorException",
	429: "ThrottlingException", 500: "InternalServerException", 503: "ServiceUnavailableException",
}

const signature = "ErcBCkgIBhABGAIiQHBsYWNlaG9sZGVyIHNpZ25hdHVyZQ=="

// renderTurn writes a turn as Bedrock's error, or as both a Converse body
// and the ConverseStream events of the same answer.
func renderTurn(turn providertest.Turn) reply {
	if turn.Status != 0 {
		typ, ok := errorTypes[turn.Status]
		if !ok {
			typ = "InternalServerException"
		}
		// Bedrock sends no retry-after header: RetryAfter is not rendered.
		return reply{status: turn.Status, errType: typ, message: turn.ErrorMessage}
	}
	return reply{
		body: converseBody(turn), events: streamEvents(turn),
		hold: turn.End == providertest.Stall, cut: turn.End == providertest.Cut,
	}
}

func stopReason(turn providertest.Turn) string {
	if len(turn.ToolCalls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func usageJSON(turn providertest.Turn) map[string]any {
	return map[string]any{"inputTokens": turn.InputTokens, "outputTokens": turn.OutputTokens, "totalTokens": turn.InputTokens + turn.OutputTokens}
}

// converseBody is the turn as a Converse response.
func converseBody(turn providertest.Turn) []byte {
	var content []any
	if len(turn.Reasoning) > 0 {
		content = append(content, map[string]any{"reasoningContent": map[string]any{"reasoningText": map[string]any{"text": strings.Join(turn.Reasoning, ""), "signature": signature}}})
	}
	if len(turn.Text) > 0 {
		content = append(content, map[string]any{"text": strings.Join(turn.Text, "")})
	}
	for _, c := range turn.ToolCalls {
		content = append(content, map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name, "input": json.RawMessage(c.Arguments)}})
	}
	b, _ := json.Marshal(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stopReason(turn),
		"usage":      usageJSON(turn),
		"metrics":    map[string]any{"latencyMs": 321},
	})
	return b
}

// streamEvents is the turn as ConverseStream sends it: messageStart, one
// content block per reasoning, text and toolUse part with its deltas
// (tool input split in several), then messageStop and metadata, unless
// the turn stalls or is cut before them.
func streamEvents(turn providertest.Turn) []eventstream.Message {
	evs := []eventstream.Message{event("messageStart", map[string]any{"role": "assistant"})}
	index := 0
	delta := func(d map[string]any) eventstream.Message {
		return event("contentBlockDelta", map[string]any{"contentBlockIndex": index, "delta": d})
	}
	stop := func() eventstream.Message {
		return event("contentBlockStop", map[string]any{"contentBlockIndex": index})
	}
	if len(turn.Reasoning) > 0 {
		for _, p := range turn.Reasoning {
			evs = append(evs, delta(map[string]any{"reasoningContent": map[string]any{"text": p}}))
		}
		evs = append(evs, delta(map[string]any{"reasoningContent": map[string]any{"signature": signature}}), stop())
		index++
	}
	if len(turn.Text) > 0 {
		for _, p := range turn.Text {
			evs = append(evs, delta(map[string]any{"text": p}))
		}
		evs = append(evs, stop())
		index++
	}
	for _, c := range turn.ToolCalls {
		evs = append(evs, event("contentBlockStart", map[string]any{"contentBlockIndex": index, "start": map[string]any{"toolUse": map[string]any{"toolUseId": c.ID, "name": c.Name}}}))
		for args := c.Arguments; args != ""; {
			n := min(len(args), 7)
			evs = append(evs, delta(map[string]any{"toolUse": map[string]any{"input": args[:n]}}))
			args = args[n:]
		}
		evs = append(evs, stop())
		index++
	}
	if turn.End == providertest.Complete {
		evs = append(evs,
			event("messageStop", map[string]any{"stopReason": stopReason(turn)}),
			event("metadata", map[string]any{"usage": usageJSON(turn), "metrics": map[string]any{"latencyMs": 321}}))
	}
	return evs
}

// Requests reads what the suite checks out of the recorded bodies: user
// text blocks, image blocks, tool names and an outputConfig JSON schema.
func (s suiteFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range s.f.received() {
		out = append(out, readRequest(rec))
	}
	return out
}

func readRequest(rec recorded) providertest.Request {
	r := providertest.Request{Header: rec.header, Body: rec.body, Model: rec.model, Stream: rec.stream}
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text  *string `json:"text"`
				Image *struct {
					Format string `json:"format"`
					Source struct {
						Bytes string `json:"bytes"`
					} `json:"source"`
				} `json:"image"`
			} `json:"content"`
		} `json:"messages"`
		ToolConfig struct {
			Tools []struct {
				ToolSpec struct {
					Name string `json:"name"`
				} `json:"toolSpec"`
			} `json:"tools"`
		} `json:"toolConfig"`
		OutputConfig struct {
			TextFormat struct {
				Structure struct {
					JSONSchema struct {
						Schema string `json:"schema"`
					} `json:"jsonSchema"`
				} `json:"structure"`
			} `json:"textFormat"`
		} `json:"outputConfig"`
	}
	if json.Unmarshal(rec.body, &body) != nil {
		return r
	}
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		text := ""
		for _, b := range m.Content {
			if b.Text != nil {
				text += *b.Text
			}
			if b.Image != nil {
				data, _ := base64.StdEncoding.DecodeString(b.Image.Source.Bytes)
				r.Images = append(r.Images, providertest.Image{MediaType: "image/" + b.Image.Format, Data: data})
			}
		}
		if text != "" {
			r.UserText = append(r.UserText, text)
		}
	}
	for _, t := range body.ToolConfig.Tools {
		r.Tools = append(r.Tools, t.ToolSpec.Name)
	}
	if s := body.OutputConfig.TextFormat.Structure.JSONSchema.Schema; s != "" {
		r.ResponseSchema = json.RawMessage(s)
	}
	return r
}
