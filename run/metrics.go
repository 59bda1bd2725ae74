package run

import (
	"time"

	"github.com/agno-go/agno/model"
)

// Metrics are the token and timing figures of a run (agno's RunMetrics).
// Times are in seconds, as agno reports them.
type Metrics struct {
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int     `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	Cost             float64 `json:"cost,omitempty"`
	TimeToFirstToken float64 `json:"time_to_first_token,omitempty"`
	Duration         float64 `json:"duration,omitempty"`
	// Details holds per-model figures keyed by model role ("model",
	// "output_model", ...).
	Details map[string][]ModelMetrics `json:"details,omitempty"`
}

// ModelMetrics are the figures of one model within a run.
type ModelMetrics struct {
	ID               string  `json:"id"`
	Provider         string  `json:"provider"`
	InputTokens      int     `json:"input_tokens"`
	OutputTokens     int     `json:"output_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int     `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	TimeToFirstToken float64 `json:"time_to_first_token,omitempty"`
}

// AddUsage folds one model response's usage into the metrics.
func (m *Metrics) AddUsage(role string, info model.Info, u *model.Usage) {
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
		m.Details = map[string][]ModelMetrics{}
	}
	list := m.Details[role]
	for i := range list {
		if list[i].ID == info.ID && list[i].Provider == info.Provider {
			list[i].add(u)
			return
		}
	}
	mm := ModelMetrics{ID: info.ID, Provider: info.Provider}
	mm.add(u)
	m.Details[role] = append(list, mm)
}

func (mm *ModelMetrics) add(u *model.Usage) {
	mm.InputTokens += u.InputTokens
	mm.OutputTokens += u.OutputTokens
	mm.TotalTokens += u.TotalTokens
	mm.ReasoningTokens += u.ReasoningTokens
	mm.CacheReadTokens += u.CacheReadTokens
	mm.CacheWriteTokens += u.CacheWriteTokens
	if mm.TimeToFirstToken == 0 && u.TimeToFirstToken > 0 {
		mm.TimeToFirstToken = u.TimeToFirstToken.Seconds()
	}
}

// Merge adds the token counts of o (a member or child run) into m.
func (m *Metrics) Merge(o *Metrics) {
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

// SetDuration records the wall time of the run.
func (m *Metrics) SetDuration(d time.Duration) { m.Duration = d.Seconds() }

// ToolMetrics are the timing figures of one tool call.
type ToolMetrics struct {
	Duration float64 `json:"duration,omitempty"`
}
