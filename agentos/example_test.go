package agentos_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
)

// AgentOS serves agents, teams and workflows on agno's HTTP API. Serve
// runs until its context ends, then lets runs finish and shuts down.
func ExampleOS_Serve() {
	a, err := agent.New(agent.Config{Name: "Greeter", Model: modeltest.New(modeltest.Response{Content: "Hello!"})})
	if err != nil {
		panic(err)
	}
	server, err := agentos.New(agentos.Config{Name: "Example OS", Agents: []*agent.Agent{a}, Store: memory.New(),
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // agno agentos start uses :7777
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	// GET /agents lists what is served, with agno's fields.
	var agents []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	get(base+"/agents", &agents)
	fmt.Println(agents[0].ID, agents[0].Name)

	// POST /agents/{id}/runs takes agno's form fields.
	resp, err := http.PostForm(base+"/agents/greeter/runs", url.Values{"message": {"Hi"}, "stream": {"false"}})
	if err != nil {
		panic(err)
	}
	var out struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, out.Status, out.Content)

	stop()
	fmt.Println("stopped:", <-served)
	// Output:
	// greeter Greeter
	// 200 COMPLETED Hello!
	// stopped: <nil>
}

func get(u string, v any) {
	resp, err := http.Get(u)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		panic(err)
	}
}
