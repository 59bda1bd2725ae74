package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/openai/openai-go/v3"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
)

const benchTokens = 1000

const benchBody = `{"model":"bench","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"stream please"}]}`

// BenchmarkStream measures streamed tokens per second (one content delta
// per SSE chunk, 1000 per response):
//   - fake-server: model/openai against modeltest's server, end to end;
//   - replay: model/openai against the same SSE bytes recorded once and
//     replayed, so the figure is the client's own per-chunk cost;
//   - replay-raw: those bytes read and split into lines only, the floor
//     set by HTTP and the SSE framing.
func BenchmarkStream(b *testing.B) {
	fake := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Tokens: modeltest.FillerTokens(benchTokens)}}})
	defer fake.Close()
	res, err := fake.Client().Post(fake.URL+"/chat/completions", "application/json", strings.NewReader(benchBody))
	if err != nil {
		b.Fatal(err)
	}
	recorded, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	replay := newReplay(b, recorded)
	defer replay.Close()

	b.Run("fake-server", func(b *testing.B) { benchClient(b, fake.URL, fake.Client()) })
	b.Run("replay", func(b *testing.B) { benchClient(b, replay.URL+"/v1", replay.Client()) })
	b.Run("replay-raw", func(b *testing.B) {
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			res, err := replay.Client().Post(replay.URL+"/v1/chat/completions", "application/json", strings.NewReader(benchBody))
			if err != nil {
				b.Fatal(err)
			}
			sc := bufio.NewScanner(res.Body)
			n := 0
			for sc.Scan() {
				if bytes.HasPrefix(sc.Bytes(), []byte(`data: {`)) {
					n++
				}
			}
			res.Body.Close()
			if n < benchTokens {
				b.Fatalf("got %d events", n)
			}
		}
		report(b, start)
	})
}

func benchClient(b *testing.B, baseURL string, hc *http.Client) {
	m, err := New(Config{Compatible: true, ID: "bench", BaseURL: baseURL, HTTPClient: hc})
	if err != nil {
		b.Fatal(err)
	}
	req := userRequest(true, "stream please")
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		n := 0
		for c, err := range m.Generate(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
			if c.Content != "" {
				n++
			}
		}
		if n != benchTokens {
			b.Fatalf("got %d content chunks, want %d", n, benchTokens)
		}
	}
	report(b, start)
}

type replayServer struct {
	URL   string
	close func()
	hc    *http.Client
}

func newReplay(b *testing.B, body []byte) *replayServer {
	srv := newHTTPTestB(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		_, _ = w.Write(body)
	}))
	return &replayServer{URL: srv.URL, close: srv.Close, hc: srv.Client()}
}

func (r *replayServer) Client() *http.Client { return r.hc }
func (r *replayServer) Close()               { r.close() }

func report(b *testing.B, start time.Time) {
	elapsed := time.Since(start)
	b.ReportMetric(float64(b.N*benchTokens)/elapsed.Seconds(), "tokens/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N*benchTokens), "ns/token")
}

// BenchmarkNonStream is one whole request/response round trip.
func BenchmarkNonStream(b *testing.B) {
	srv := modeltest.NewServer(modeltest.ServerConfig{Script: []modeltest.Response{{Content: "short answer"}}})
	defer srv.Close()
	m, err := New(Config{Compatible: true, ID: "bench", BaseURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		b.Fatal(err)
	}
	req := userRequest(false, "hi")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := model.Collect(m.Generate(context.Background(), req)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChunkDecode compares decoding one typical content chunk with
// parseChunk against the SDK's ChatCompletionChunk, which this package
// used before (the reason parseChunk exists).
func BenchmarkChunkDecode(b *testing.B) {
	data := []byte(`{"id":"chatcmpl-AyPsZ3kVHmRkTqBrgwqa0fTbxLfPW","object":"chat.completion.chunk","created":1738959403,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_50cad350e4","choices":[{"index":0,"delta":{"content":" world"},"logprobs":null,"finish_reason":null}],"usage":null}`)
	b.Run("parseChunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c, err := parseChunk(data)
			if err != nil || c.Choices[0].Content != " world" {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk.ChatCompletionChunk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var c sdk.ChatCompletionChunk
			if err := json.Unmarshal(data, &c); err != nil || c.Choices[0].Delta.Content != " world" {
				b.Fatal(err)
			}
		}
	})
}
