package anthropic_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
)

// bodyTransport answers every request with one fixed response body, in
// memory: the client, SDK and stream decoding run for real, the network
// does not.
type bodyTransport struct {
	contentType string
	body        string
}

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {b.contentType}},
		Body:       io.NopCloser(strings.NewReader(b.body)),
		Request:    r,
	}, nil
}

func inMemoryModel(tb testing.TB, contentType, body string) *anthropic.Model {
	tb.Helper()
	m, err := anthropic.New(anthropic.Config{
		ID:         "claude-sonnet-4-5",
		APIKey:     testKey,
		BaseURL:    "http://anthropic.invalid",
		HTTPClient: &http.Client{Transport: bodyTransport{contentType: contentType, body: body}},
		MaxRetries: -1,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// FuzzStream feeds arbitrary event streams to the stream decoder: it must
// end with chunks or an error, never panic, and emit tool calls at most once.
func FuzzStream(f *testing.F) {
	transcript, err := os.ReadFile("testdata/stream_parallel_tool_use.sse")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(transcript))
	f.Add(anthropictest.SSE(anthropictest.MessageStart("m", 1, 0, 0), anthropictest.BlockStartToolUse(0, "t", "n"), anthropictest.JSONDelta(0, `{"a":`), anthropictest.MessageStop))
	f.Add(anthropictest.SSE(anthropictest.JSONDelta(3, "x"), anthropictest.MessageDelta("tool_use", 1), anthropictest.MessageStop))
	f.Add("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}\n\n")
	f.Add("event: message_start\ndata: {not json\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		m := inMemoryModel(t, "text/event-stream", body)
		withCalls := 0
		for c, err := range m.Generate(context.Background(), &model.Request{Stream: true, Messages: []model.Message{{Role: model.RoleUser, Content: "hi"}}}) {
			if err != nil {
				if c != nil {
					t.Fatalf("chunk %+v yielded with error %v", c, err)
				}
				return
			}
			if c == nil {
				t.Fatal("nil chunk without error")
			}
			if len(c.ToolCalls) > 0 {
				withCalls++
			}
		}
		if withCalls > 1 {
			t.Fatalf("tool calls in %d chunks", withCalls)
		}
	})
}

// BenchmarkStreamTranscript measures decoding the two-tool-call transcript
// (22 events) into chunks, network excluded.
func BenchmarkStreamTranscript(b *testing.B) {
	transcript, err := os.ReadFile("testdata/stream_parallel_tool_use.sse")
	if err != nil {
		b.Fatal(err)
	}
	m := inMemoryModel(b, "text/event-stream", string(transcript))
	req := &model.Request{Stream: true, Messages: []model.Message{{Role: model.RoleUser, Content: "weather"}}}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := model.Collect(m.Generate(context.Background(), req))
		if err != nil || len(resp.ToolCalls) != 2 {
			b.Fatalf("%v %+v", err, resp)
		}
	}
}

// BenchmarkNonStream measures one non-streaming tool-use response, network
// excluded.
func BenchmarkNonStream(b *testing.B) {
	m := inMemoryModel(b, "application/json", nonStreamToolUse)
	req := &model.Request{Messages: []model.Message{{Role: model.RoleUser, Content: "weather"}}}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := model.Collect(m.Generate(context.Background(), req))
		if err != nil || len(resp.ToolCalls) != 2 {
			b.Fatalf("%v %+v", err, resp)
		}
	}
}
