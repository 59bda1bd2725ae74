package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
)

// Hooks are package-level funcs: events name them as agno's __name__.

func shout(_ context.Context, in *agent.HookInput) error {
	in.Input = strings.ToUpper(in.Input)
	return nil
}

type seenOutput struct {
	content string
	status  run.Status
}

// redactor returns a post-hook that records what it saw and rewrites the
// output.
func redactor(seen *seenOutput) agent.PostHook {
	return func(_ context.Context, out *run.Output) error {
		seen.content, seen.status = out.ContentString(), out.Status
		out.Content = strings.ReplaceAll(out.ContentString(), "4242", "****")
		return nil
	}
}

func maskCards(_ context.Context, out *run.Output) error {
	out.Content = strings.ReplaceAll(out.ContentString(), "4242", "****")
	return nil
}

func brokenHook(context.Context, *run.Output) error { return errors.New("hook bug") }

func blockCards(_ context.Context, out *run.Output) error {
	if strings.Contains(out.ContentString(), "4242") {
		return &agent.CheckError{Message: "output leaks a card", Output: true, Trigger: "pii_detected", AdditionalData: map[string]any{"field": "card"}}
	}
	return nil
}

func blockAll(context.Context, *run.Output) error {
	return &agent.CheckError{Message: "nope", Output: true}
}

func TestPostHookSeesAndRewritesOutput(t *testing.T) {
	store := memory.New()
	var seen seenOutput
	a := newAgent(t, agent.Config{Model: modeltest.New(text("card 4242")), Store: store, PostHooks: []agent.PostHook{redactor(&seen)}})
	out, err := a.Run(context.Background(), "card?", run.WithRunID("r1"))
	if err != nil {
		t.Fatal(err)
	}
	// The hook runs after the output exists and before the run completes.
	if seen.content != "card 4242" || seen.status != run.StatusRunning {
		t.Fatalf("hook saw %+v", seen)
	}
	if out.Status != run.StatusCompleted || out.Content != "card ****" {
		t.Fatalf("status %s content %q", out.Status, out.Content)
	}
	rec, _ := store.GetRun(context.Background(), "r1")
	var stored run.Output
	_ = json.Unmarshal(rec.Data, &stored)
	if stored.Content != "card ****" {
		t.Fatalf("stored content %q", stored.Content)
	}
	// In a stream, RunCompleted carries the rewritten content.
	evs := collect(t, a.RunStream(context.Background(), "card?", run.WithStreamEvents(true)))
	if done, ok := evs[len(evs)-1].(*run.RunCompleted); !ok || done.Content != "card ****" {
		t.Fatalf("events %s", kinds(evs))
	}
}

// Hook events appear with stream_events only, in agno's order: pre-hooks
// before the model, post-hooks after RunContentCompleted.
func TestHookEvents(t *testing.T) {
	a := newAgent(t, agent.Config{Model: modeltest.New(text("card 4242")),
		PreHooks: []agent.PreHook{shout}, PostHooks: []agent.PostHook{brokenHook, maskCards}})
	evs := collect(t, a.RunStream(context.Background(), "card?"))
	if got := kinds(evs); got != "RunContent RunContent" {
		t.Fatalf("without stream_events: %s", got)
	}

	evs = collect(t, a.RunStream(context.Background(), "card?", run.WithStreamEvents(true)))
	// A hook that fails with a plain error is logged and skipped: it has
	// no Completed event and the run goes on.
	want := "RunStarted PreHookStarted PreHookCompleted ModelRequestStarted RunContent RunContent ModelRequestCompleted " +
		"RunContentCompleted PostHookStarted PostHookStarted PostHookCompleted RunCompleted"
	if got := kinds(evs); got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
	if done := evs[len(evs)-1].(*run.RunCompleted); done.Content != "card ****" {
		t.Fatalf("completed content %q", done.Content)
	}
	// Field names and values as agno's: run_input is a RunInput, before
	// and after the hook changed it.
	for i, w := range map[int]string{
		1:  `"pre_hook_name":"shout","run_input":{"input_content":"card?"}`,
		2:  `"pre_hook_name":"shout","run_input":{"input_content":"CARD?"}`,
		8:  `"post_hook_name":"brokenHook"`,
		9:  `"post_hook_name":"maskCards"`,
		10: `"post_hook_name":"maskCards"`,
	} {
		b, _ := json.Marshal(evs[i])
		if !strings.Contains(string(b), w) {
			t.Errorf("%s JSON %s lacks %s", evs[i].Kind(), b, w)
		}
	}
}

// An output check from a post-hook ends the run ERROR without a retry; the
// stream ends with RunError carrying agno's error_type, error_id and
// additional_data. As agno, the judged output stays the content.
func TestOutputCheckErrorIsNotRetried(t *testing.T) {
	fake := modeltest.New(text("card 4242"))
	a := newAgent(t, agent.Config{Model: fake, PostHooks: []agent.PostHook{blockCards}, Retries: 3, DelayBetweenRetries: time.Nanosecond})
	out, _ := a.Run(context.Background(), "card?")
	if out.Status != run.StatusError || out.Content != "card 4242" || fake.Calls() != 1 {
		t.Fatalf("status %s content %q calls %d", out.Status, out.Content, fake.Calls())
	}

	evs := collect(t, a.RunStream(context.Background(), "card?", run.WithStreamEvents(true)))
	want := "RunStarted ModelRequestStarted RunContent RunContent ModelRequestCompleted RunContentCompleted PostHookStarted RunError"
	if got := kinds(evs); got != want || fake.Calls() != 2 {
		t.Fatalf("events %s (model calls %d)", got, fake.Calls())
	}
	re := evs[len(evs)-1].(*run.RunError)
	if re.Content != "output leaks a card" || re.ErrorType != "output_check_error" || re.ErrorID != "pii_detected" || re.AdditionalData["field"] != "card" {
		t.Fatalf("RunError %+v", re)
	}
}

// Without a trigger the error_id is agno's CheckTrigger default.
func TestCheckErrorDefaultTriggers(t *testing.T) {
	deny := func(context.Context, *agent.HookInput) error { return &agent.CheckError{Message: "no"} }
	for _, tc := range []struct {
		cfg      agent.Config
		typ, eid string
	}{
		{agent.Config{PreHooks: []agent.PreHook{deny}}, "input_check_error", "input_not_allowed"},
		{agent.Config{PostHooks: []agent.PostHook{blockAll}}, "output_check_error", "output_not_allowed"},
	} {
		tc.cfg.Model = modeltest.New(text("x"))
		evs := collect(t, newAgent(t, tc.cfg).RunStream(context.Background(), "q"))
		re, ok := evs[len(evs)-1].(*run.RunError)
		if !ok || re.ErrorType != tc.typ || re.ErrorID != tc.eid {
			t.Fatalf("events %s last %+v", kinds(evs), evs[len(evs)-1])
		}
	}
}
