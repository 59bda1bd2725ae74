package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

type cityArgs struct {
	City string `json:"city" enum:"nyc,sf"`
}

var getWeather = tool.Must(tool.New("get_weather", "Get the weather of a city.", func(_ context.Context, a cityArgs) (string, error) {
	if a.City == "nyc" {
		return "It might be cloudy in nyc.", nil
	}
	return "It's always sunny in sf.", nil
}))

// quiet makes a fake keep no copy of requests: the benchmarks measure the
// framework, not the fake's recording.
func quiet(f *modeltest.Fake) *modeltest.Fake {
	f.NoRecord = true
	return f
}

// BenchmarkAgentNew is agno's instantiation measure: an agent with a model
// and one tool (get_weather(city: Literal["nyc","sf"])).
func BenchmarkAgentNew(b *testing.B) {
	m := quiet(modeltest.New(text("ok")))
	tools := []tool.Provider{getWeather}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := agent.New(agent.Config{Model: m, Tools: tools}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFreshRun is a new agent with one tool plus one run: the cost a
// server pays when it builds an agent per request.
func BenchmarkFreshRun(b *testing.B) {
	m := quiet(modeltest.New(text("Hello there")))
	tools := []tool.Provider{getWeather}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		a, err := agent.New(agent.Config{Model: m, Tools: tools})
		if err != nil {
			b.Fatal(err)
		}
		out, _ := a.Run(ctx, "hi")
		if out.Status != run.StatusCompleted {
			b.Fatal(out.Content)
		}
	}
}

// BenchmarkRun is one run of a reused agent with the in-process fake model.
func BenchmarkRun(b *testing.B) {
	a, _ := agent.New(agent.Config{Model: quiet(modeltest.New(text("Hello there")))})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, _ := a.Run(ctx, "hi")
		if out.Status != run.StatusCompleted {
			b.Fatal(out.Content)
		}
	}
}

// BenchmarkToolRound is one run with one tool round: model → tool → model.
func BenchmarkToolRound(b *testing.B) {
	fake := quiet(modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
			return text("It's sunny.")
		}
		return calls(modeltest.ToolCall("c1", "get_weather", `{"city":"sf"}`))
	}))
	a, _ := agent.New(agent.Config{Model: fake, Tools: []tool.Provider{getWeather}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, _ := a.Run(ctx, "weather in sf?")
		if out.Content != "It's sunny." {
			b.Fatal(out.Content)
		}
	}
}

// BenchmarkStreamToken is the cost per streamed token: a 1000-token stream
// consumed through RunStream, reported per token.
func BenchmarkStreamToken(b *testing.B) {
	toks := make([]string, 1000)
	for i := range toks {
		toks[i] = "tok "
	}
	a, _ := agent.New(agent.Config{Model: quiet(modeltest.New(modeltest.Response{Tokens: toks}))})
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for ev, err := range a.RunStream(ctx, "go") {
			if err != nil {
				b.Fatal(err)
			}
			_ = ev
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/token")
}

// BenchmarkReasoningSteps is a run whose chain-of-thought loop asks the
// reasoning agent n times (n steps, each "continue", stopped by
// reasoning_max_steps = n+1), with models that answer at once: the
// engine's cost per reasoning step is the slope over n (steps=0 is the
// same agent without reasoning).
func BenchmarkReasoningSteps(b *testing.B) {
	step := modeltest.Response{Content: `{"reasoning_steps":[{"title":"Step","action":"I will go on","result":"I went on","reasoning":"Because.","next_action":"continue","confidence":0.9}]}`}
	for _, n := range []int{0, 1, 4, 16} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			cfg := agent.Config{Model: quiet(modeltest.New(text("The answer is 42."))), Tools: []tool.Provider{getWeather}}
			if n > 0 {
				cfg.Reasoning, cfg.ReasoningModel, cfg.ReasoningMaxSteps = true, quiet(modeltest.New(step)), n+1
			}
			a, err := agent.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				out, _ := a.Run(ctx, "What is 6 times 7?", run.WithStreamEvents(true))
				if out.Status != run.StatusCompleted || len(out.ReasoningSteps) != n {
					b.Fatalf("%s with %d steps", out.Status, len(out.ReasoningSteps))
				}
			}
		})
	}
}
