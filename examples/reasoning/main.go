// Command reasoning runs an agent that reasons step by step before it
// answers (agno's reasoning=True), against any OpenAI-compatible
// endpoint, and prints each reasoning step as it arrives.
//
//	export AGNO_BASE_URL=https://api.openai.com/v1
//	export AGNO_API_KEY=sk-...
//	export AGNO_MODEL=gpt-4o-mini
//	go run ./examples/reasoning "Is 1001 a prime number?"
//
// With -offline it talks to a built-in fake OpenAI-compatible server
// instead, so it runs anywhere.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/examples/internal/exampleflags"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
)

func main() {
	f, err := exampleflags.Parse("reasoning", "an agent reasons step by step, then answers the question (the words after the flags)", os.Args[1:], os.Stdout, nil)
	if err != nil {
		exampleflags.Exit(err)
	}
	question := strings.Join(f.Args, " ")
	if question == "" {
		question = "Is 1001 a prime number?"
	}
	exampleflags.Exit(runReasoning(context.Background(), question, f.Offline, os.Stdout))
}

func runReasoning(ctx context.Context, question string, offline bool, out io.Writer) error {
	cfg := openai.Config{BaseURL: os.Getenv("AGNO_BASE_URL"), APIKeyEnv: "AGNO_API_KEY", ID: os.Getenv("AGNO_MODEL"), Compatible: true}
	if offline {
		srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeReasoner()})
		defer srv.Close()
		cfg = openai.Config{BaseURL: srv.URL, APIKey: "offline", ID: "fake-model", Compatible: true}
	} else if cfg.BaseURL == "" || cfg.ID == "" || os.Getenv("AGNO_API_KEY") == "" {
		return fmt.Errorf("set AGNO_BASE_URL (an OpenAI-compatible endpoint, e.g. https://api.openai.com/v1), AGNO_API_KEY (its key) and AGNO_MODEL (e.g. gpt-4o-mini) — or run with -offline")
	}
	m, err := openai.New(cfg)
	if err != nil {
		return err
	}
	a, err := agent.New(agent.Config{Name: "Reasoning Agent", Model: m, Reasoning: true, ReasoningMaxSteps: 6,
		Instructions: []string{"Answer in one sentence."}})
	if err != nil {
		return err
	}
	for ev, err := range a.RunStream(ctx, question, run.WithStreamEvents(true)) {
		if err != nil {
			return err
		}
		switch e := ev.(type) {
		case *run.ReasoningStep:
			if st, ok := reasoning.StepOf(e.Content); ok {
				fmt.Fprintf(out, "· %s\n", strings.TrimSpace(strings.ReplaceAll(st.Text(), "\n", "\n  ")))
			}
		case *run.ReasoningCompleted:
			fmt.Fprintln(out, "→")
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

// fakeReasoner plays both models: the reasoning agent (its system message
// is agno's reasoning prompt) answers two ReasoningSteps, one per call;
// the agent then answers.
func fakeReasoner() modeltest.Responder {
	var calls atomic.Int32
	steps := []string{
		`{"reasoning_steps":[{"title":"Try small primes","action":"I will divide 1001 by 7, 11 and 13","result":"1001 = 7 × 11 × 13","reasoning":"A number is prime only if no prime up to its square root divides it.","next_action":"continue","confidence":0.9}]}`,
		`{"reasoning_steps":[{"title":"Conclude","action":"I will state the answer","result":"1001 has divisors other than 1 and itself","reasoning":"7 divides 1001.","next_action":"final_answer","confidence":1.0}]}`,
	}
	return func(req *model.Request) modeltest.Response {
		if len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, reasoning.Description) {
			n := int(calls.Add(1)) - 1
			return modeltest.Response{Content: steps[min(n, len(steps)-1)]}
		}
		return modeltest.Response{Content: "No: 1001 = 7 × 11 × 13."}
	}
}
