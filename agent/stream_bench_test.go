package agent_test

import (
	"context"
	"iter"
	"strconv"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
)

const streamTokens = 1000

// tokenModel streams n copies of one delta from a single reused chunk, so
// a benchmark over it measures the framework's cost per token and not a
// fake's chunk allocations.
type tokenModel struct{ n int }

func (tokenModel) Info() model.Info { return model.Info{ID: "token-model", Provider: "Bench"} }

func (m tokenModel) Generate(_ context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		c := &model.Chunk{Content: "tok "}
		for range m.n {
			if !yield(c, nil) {
				return
			}
		}
		yield(&model.Chunk{Usage: &model.Usage{InputTokens: 10, OutputTokens: m.n, TotalTokens: 10 + m.n}, FinishReason: "stop"}, nil)
	}
}

// benchStream consumes RunStream with stream_events on and reports the
// cost per streamed token (RunContent event); B/op and allocs/op are per
// run of streamTokens tokens.
func benchStream(b *testing.B, m model.Model) {
	a, err := agent.New(agent.Config{Model: m})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	tokens := 0
	for b.Loop() {
		for ev, err := range a.RunStream(ctx, "go", run.WithStreamEvents(true)) {
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.(*run.RunContent); ok {
				tokens++
			}
		}
	}
	if tokens != b.N*streamTokens {
		b.Fatalf("streamed %d tokens, want %d", tokens, b.N*streamTokens)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tokens), "ns/token")
}

// BenchmarkStreamTokenEvents is a 1000-token stream from the (non
// recording) fake with stream_events on.
func BenchmarkStreamTokenEvents(b *testing.B) {
	toks := make([]string, streamTokens)
	for i := range toks {
		toks[i] = "tok "
	}
	benchStream(b, quiet(modeltest.New(modeltest.Response{Tokens: toks})))
}

// BenchmarkStreamTokenFramework is the same stream from a model that
// allocates nothing per token: what is left is the framework's own cost.
func BenchmarkStreamTokenFramework(b *testing.B) {
	benchStream(b, tokenModel{n: streamTokens})
}

// TestStreamDeltasKeepTheirFields keeps every streamed delta of a long
// answer: each must stay its own event (deltas come from shared blocks)
// with the run's identity and a creation time within the run.
func TestStreamDeltasKeepTheirFields(t *testing.T) {
	toks := make([]string, 300)
	for i := range toks {
		toks[i] = strconv.Itoa(i) + " "
	}
	a, err := agent.New(agent.Config{ID: "a1", Name: "Streamer", Model: modeltest.New(modeltest.Response{Tokens: toks})})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().Unix()
	var kept []*run.RunContent
	runID := ""
	for ev, err := range a.RunStream(context.Background(), "go", run.WithStreamEvents(true)) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*run.RunStarted); ok {
			runID = s.RunID
		}
		if c, ok := ev.(*run.RunContent); ok {
			kept = append(kept, c)
		}
	}
	after := time.Now().Unix()
	if len(kept) != len(toks) {
		t.Fatalf("got %d deltas, want %d", len(kept), len(toks))
	}
	for i, c := range kept {
		if c.Content != toks[i] || c.ContentType != "str" || c.Event != "RunContent" ||
			c.RunID != runID || runID == "" || c.AgentID != "a1" || c.AgentName != "Streamer" || c.SessionID == "" {
			t.Fatalf("delta %d = %+v (run %q)", i, c, runID)
		}
		if c.CreatedAt < before || c.CreatedAt > after {
			t.Fatalf("delta %d created_at %d outside [%d, %d]", i, c.CreatedAt, before, after)
		}
	}
}
