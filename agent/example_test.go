package agent_test

import (
	"context"
	"fmt"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

type forecastArgs struct {
	City string `json:"city" enum:"nyc,sf"`
}

func forecast(_ context.Context, a forecastArgs) (string, error) {
	return "It's always sunny in " + a.City, nil
}

// weatherModel plays the model: it calls get_weather, then answers with
// the tool's result.
func weatherModel(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == model.RoleTool {
		return modeltest.Response{Content: "The forecast: " + last.Content}
	}
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_1", "get_weather", `{"city":"sf"}`)}}
}

// An agent with one typed tool, on the OpenAI provider. The endpoint here
// is a local fake OpenAI-compatible server; point BaseURL at
// https://api.openai.com/v1 (or any compatible endpoint) for a real model.
func ExampleNew() {
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: weatherModel})
	defer srv.Close()
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "gpt-4o-mini"})
	if err != nil {
		panic(err)
	}
	weather := tool.Must(tool.New("get_weather", "Get the weather of a city.", forecast))

	a, err := agent.New(agent.Config{Name: "Weather Agent", Model: m, Tools: []tool.Provider{weather}})
	if err != nil {
		panic(err)
	}
	out, err := a.Run(context.Background(), "What's the weather in SF?")
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Status)
	fmt.Println(out.Content)
	fmt.Println(out.Tools[0].ToolName, out.Tools[0].ToolArgs)
	// Output:
	// COMPLETED
	// The forecast: It's always sunny in sf
	// get_weather map[city:sf]
}

// RunStream yields agno's events as they happen; content arrives in
// deltas.
func ExampleAgent_RunStream() {
	a, err := agent.New(agent.Config{Name: "Weather Agent", Model: modeltest.NewFunc(weatherModel),
		Tools: []tool.Provider{tool.Must(tool.New("get_weather", "Get the weather of a city.", forecast))}})
	if err != nil {
		panic(err)
	}
	for ev, err := range a.RunStream(context.Background(), "What's the weather in SF?", run.WithStreamEvents(true)) {
		if err != nil {
			panic(err)
		}
		switch e := ev.(type) {
		case *run.ToolCallStarted:
			fmt.Println(e.Kind(), e.Tool.ToolName)
		case *run.RunContent:
			fmt.Printf("%s %q\n", e.Kind(), e.Content)
		case *run.RunCompleted:
			fmt.Println(e.Kind())
		}
	}
	// Output:
	// ToolCallStarted get_weather
	// RunContent "The "
	// RunContent "forecast: "
	// RunContent "It's "
	// RunContent "always "
	// RunContent "sunny "
	// RunContent "in "
	// RunContent "sf"
	// RunCompleted
}

// A tool that requires confirmation pauses the run; the answered
// requirements continue it, here from the store by run id.
func ExampleAgent_Continue() {
	ctx := context.Background()
	send := tool.Must(tool.New("send_email", "Send an email.", func(_ context.Context, a struct {
		To string `json:"to"`
	}) (string, error) {
		return "sent to " + a.To, nil
	}, tool.RequiresConfirmation()))
	m := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "send_email", `{"to":"alice@example.com"}`)}},
		modeltest.Response{Content: "The email has been sent."},
	)
	a, err := agent.New(agent.Config{Name: "Mailer", Model: m, Tools: []tool.Provider{send}, Store: memory.New()})
	if err != nil {
		panic(err)
	}

	out, err := a.Run(ctx, "Email Alice", run.WithSessionID("s1"))
	if err != nil {
		panic(err)
	}
	req := out.ActiveRequirements()[0]
	fmt.Println(out.Status, req.PauseType(), req.ToolExecution.ToolArgs["to"])

	if err := req.Confirm(); err != nil {
		panic(err)
	}
	done, err := a.Continue(ctx, run.ContinueRequest{RunID: out.RunID, SessionID: "s1", Requirements: []*run.Requirement{req}})
	if err != nil {
		panic(err)
	}
	fmt.Println(done.Status, done.Content)
	// Output:
	// PAUSED confirmation alice@example.com
	// COMPLETED The email has been sent.
}
