package engine

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

func TestAddUsageTotalsAndPerModel(t *testing.T) {
	m := &run.Metrics{}
	gpt := model.Info{ID: "gpt", Provider: "OpenAI"}
	addUsage(m, "model", gpt, &model.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5, TimeToFirstToken: 1500 * time.Millisecond})
	addUsage(m, "model", gpt, &model.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2, CacheReadTokens: 4, TimeToFirstToken: time.Second})
	addUsage(m, "output_model", model.Info{ID: "small", Provider: "OpenAI"}, &model.Usage{OutputTokens: 7, TotalTokens: 7})
	addUsage(m, "model", gpt, nil)

	if m.InputTokens != 4 || m.OutputTokens != 10 || m.TotalTokens != 14 || m.CacheReadTokens != 4 {
		t.Fatalf("totals = %+v", m)
	}
	// The first response's time to first token is the run's.
	if m.TimeToFirstToken != 1.5 {
		t.Fatalf("time to first token = %v, want 1.5", m.TimeToFirstToken)
	}
	models := m.Details["model"]
	if len(models) != 1 || models[0].ID != "gpt" || models[0].InputTokens != 4 || models[0].TotalTokens != 7 {
		t.Fatalf("details[model] = %+v", models)
	}
	if out := m.Details["output_model"]; len(out) != 1 || out[0].ID != "small" || out[0].OutputTokens != 7 {
		t.Fatalf("details[output_model] = %+v", out)
	}
	// As agno's ModelMetrics.to_dict: its fields alone, zero counts left out.
	b, _ := json.Marshal(m.Details["output_model"][0])
	if got, want := string(b), `{"id":"small","provider":"OpenAI","output_tokens":7,"total_tokens":7}`; got != want {
		t.Fatalf("details[output_model] as JSON = %s, want %s", got, want)
	}
}

func TestMergeMetricsAddsCountsAndCost(t *testing.T) {
	sess := &run.Metrics{InputTokens: 1, Cost: 0.5, Duration: 9}
	mergeMetrics(sess, &run.Metrics{InputTokens: 2, OutputTokens: 3, TotalTokens: 5, ReasoningTokens: 1, CacheWriteTokens: 2, Cost: 0.25, Duration: 4})
	mergeMetrics(sess, nil)
	want := run.Metrics{InputTokens: 3, OutputTokens: 3, TotalTokens: 5, ReasoningTokens: 1, CacheWriteTokens: 2, Cost: 0.75, Duration: 9}
	if sess.InputTokens != want.InputTokens || sess.OutputTokens != want.OutputTokens || sess.TotalTokens != want.TotalTokens ||
		sess.ReasoningTokens != want.ReasoningTokens || sess.CacheWriteTokens != want.CacheWriteTokens || sess.Cost != want.Cost || sess.Duration != want.Duration {
		t.Fatalf("merged = %+v, want %+v", *sess, want)
	}
}

func TestApplyTags(t *testing.T) {
	idx := 2
	b := run.EventBase{ParentStepID: "outer", WorkflowName: "kept"}
	applyTags(&run.WorkflowTags{WorkflowID: "w", WorkflowName: "ignored", WorkflowRunID: "wr", StepID: "s", StepName: "n", StepIndex: &idx}, &b)
	if b.WorkflowID != "w" || b.WorkflowRunID != "wr" || b.StepID != "s" || b.StepName != "n" || b.StepIndex != &idx {
		t.Fatalf("tags not applied: %+v", b)
	}
	// An empty parent step id leaves the event's own; the name is not a tag.
	if b.ParentStepID != "outer" || b.WorkflowName != "kept" {
		t.Fatalf("base = %+v", b)
	}
	applyTags(&run.WorkflowTags{ParentStepID: "p"}, &b)
	if b.ParentStepID != "p" || b.WorkflowID != "" {
		t.Fatalf("second apply: %+v", b)
	}
	applyTags(nil, &b) // no workflow: a no-op
	if b.ParentStepID != "p" {
		t.Fatalf("nil tags changed the base: %+v", b)
	}
}
