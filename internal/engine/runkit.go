package engine

import (
	"slices"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// Bookkeeping on run values that only the engine does. It lives here, not
// as methods in package run, so run exports the vocabulary users touch.

// addUsage folds one model response's usage into m, in total and per
// model under its role ("model", "output_model", ...).
func addUsage(m *run.Metrics, role string, info model.Info, u *model.Usage) {
	if u == nil {
		return
	}
	m.InputTokens += u.InputTokens
	m.OutputTokens += u.OutputTokens
	m.TotalTokens += u.TotalTokens
	m.ReasoningTokens += u.ReasoningTokens
	m.CacheReadTokens += u.CacheReadTokens
	m.CacheWriteTokens += u.CacheWriteTokens
	if m.TimeToFirstToken == 0 && u.TimeToFirstToken > 0 {
		m.TimeToFirstToken = u.TimeToFirstToken.Seconds()
	}
	if m.Details == nil {
		m.Details = map[string][]run.ModelMetrics{}
	}
	list := m.Details[role]
	for i := range list {
		if list[i].ID == info.ID && list[i].Provider == info.Provider {
			addModelUsage(&list[i], u)
			return
		}
	}
	mm := run.ModelMetrics{ID: info.ID, Provider: info.Provider}
	addModelUsage(&mm, u)
	m.Details[role] = append(list, mm)
}

func addModelUsage(mm *run.ModelMetrics, u *model.Usage) {
	mm.InputTokens += u.InputTokens
	mm.OutputTokens += u.OutputTokens
	mm.TotalTokens += u.TotalTokens
	mm.ReasoningTokens += u.ReasoningTokens
	mm.CacheReadTokens += u.CacheReadTokens
	mm.CacheWriteTokens += u.CacheWriteTokens
}

// mergeMetrics adds the token counts and cost of o (a run) into m (its
// session's totals).
func mergeMetrics(m, o *run.Metrics) {
	if o == nil {
		return
	}
	m.InputTokens += o.InputTokens
	m.OutputTokens += o.OutputTokens
	m.TotalTokens += o.TotalTokens
	m.ReasoningTokens += o.ReasoningTokens
	m.CacheReadTokens += o.CacheReadTokens
	m.CacheWriteTokens += o.CacheWriteTokens
	m.Cost += o.Cost
}

// applyTags stamps a workflow step's tags on an event of its executor;
// WorkflowName is not copied.
func applyTags(w *run.WorkflowTags, b *run.EventBase) {
	if w == nil {
		return
	}
	b.WorkflowID = w.WorkflowID
	b.WorkflowRunID = w.WorkflowRunID
	b.StepID = w.StepID
	b.StepName = w.StepName
	b.StepIndex = w.StepIndex
	if w.ParentStepID != "" {
		b.ParentStepID = w.ParentStepID
	}
}

// addChildMetrics folds the metrics of a run the engine started for
// this one (a reasoning agent's) into m: its token counts in total, its
// per-model figures under "<prefix>_<role>" (agno's
// accumulate_eval_metrics).
func addChildMetrics(m, child *run.Metrics, prefix string) {
	if child == nil {
		return
	}
	mergeMetrics(m, child)
	for role, list := range child.Details {
		key := role
		if !strings.HasPrefix(role, prefix+"_") {
			key = prefix + "_" + role
		}
		if m.Details == nil {
			m.Details = map[string][]run.ModelMetrics{}
		}
		for _, mm := range list {
			i := slices.IndexFunc(m.Details[key], func(e run.ModelMetrics) bool { return e.ID == mm.ID && e.Provider == mm.Provider })
			if i < 0 {
				m.Details[key] = append(m.Details[key], mm)
				continue
			}
			addModelUsage(&m.Details[key][i], &model.Usage{InputTokens: mm.InputTokens, OutputTokens: mm.OutputTokens, TotalTokens: mm.TotalTokens,
				ReasoningTokens: mm.ReasoningTokens, CacheReadTokens: mm.CacheReadTokens, CacheWriteTokens: mm.CacheWriteTokens})
		}
	}
}
