// Command quickstart runs an agent with one tool against any
// OpenAI-compatible endpoint.
//
//	export AGNO_BASE_URL=https://api.openai.com/v1   # or Ollama, vLLM, OpenRouter, a gateway
//	export AGNO_API_KEY=sk-...                        # the key for that endpoint
//	export AGNO_MODEL=gpt-4o-mini
//	go run ./examples/quickstart "What's the weather in SF?"
//
// With -offline it talks to a built-in fake OpenAI-compatible server
// instead, so it runs anywhere.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/examples/internal/exampleflags"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

type cityArgs struct {
	City string `json:"city" description:"The city" enum:"nyc,sf"`
}

func getWeather(_ context.Context, a cityArgs) (string, error) {
	if a.City == "nyc" {
		return "It might be cloudy in nyc.", nil
	}
	return "It's always sunny in sf.", nil
}

func main() {
	f, err := exampleflags.Parse("quickstart", "an agent with a weather tool answers a question (the words after the flags)", os.Args[1:], os.Stdout, nil)
	if err != nil {
		exampleflags.Exit(err)
	}
	question := strings.Join(f.Args, " ")
	if question == "" {
		question = "What's the weather in SF?"
	}
	exampleflags.Exit(runQuickstart(context.Background(), question, f.Offline, os.Stdout))
}

func runQuickstart(ctx context.Context, question string, offline bool, out *os.File) error {
	cfg := openai.Config{BaseURL: os.Getenv("AGNO_BASE_URL"), APIKeyEnv: "AGNO_API_KEY", ID: os.Getenv("AGNO_MODEL"), Compatible: true}
	if offline {
		srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeWeather})
		defer srv.Close()
		cfg = openai.Config{BaseURL: srv.URL, APIKey: "offline", ID: "fake-model", Compatible: true}
	} else if cfg.BaseURL == "" || cfg.ID == "" || os.Getenv("AGNO_API_KEY") == "" {
		return fmt.Errorf("set AGNO_BASE_URL (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1), AGNO_API_KEY (its key) and AGNO_MODEL (e.g. gpt-4o-mini) — or run with -offline")
	}
	m, err := openai.New(cfg)
	if err != nil {
		return err
	}
	weather, err := tool.New("get_weather", "Get the weather of a city.", getWeather)
	if err != nil {
		return err
	}
	a, err := agent.New(agent.Config{Name: "Weather Agent", Model: m, Tools: []tool.Provider{weather}, Instructions: []string{"Answer in one sentence."}})
	if err != nil {
		return err
	}
	for ev, err := range a.RunStream(ctx, question, run.WithStreamEvents(true)) {
		if err != nil {
			return err
		}
		switch e := ev.(type) {
		case *run.ToolCallStarted:
			fmt.Fprintf(out, "→ %s(%v)\n", e.Tool.ToolName, e.Tool.ToolArgs)
		case *run.ToolCallCompleted:
			fmt.Fprintf(out, "← %s\n", e.Tool.ResultText())
		case *run.RunContent:
			fmt.Fprint(out, e.Content)
		case *run.RunError:
			return fmt.Errorf("run failed: %s", e.Content)
		case *run.RunCompleted:
			fmt.Fprintln(out)
		}
	}
	return nil
}

// fakeWeather plays the model: call the tool, then answer with its result.
func fakeWeather(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == model.RoleTool {
		return modeltest.Response{Content: "The forecast: " + last.Content}
	}
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_1", "get_weather", `{"city":"sf"}`)}}
}
