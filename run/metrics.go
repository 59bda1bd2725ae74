package run

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

// ModelMetrics are the figures of one model within a run (agno's
// ModelMetrics, whose to_dict leaves out zero counts; it has no timings).
type ModelMetrics struct {
	ID               string `json:"id"`
	Provider         string `json:"provider"`
	InputTokens      int    `json:"input_tokens,omitempty"`
	OutputTokens     int    `json:"output_tokens,omitempty"`
	TotalTokens      int    `json:"total_tokens,omitempty"`
	ReasoningTokens  int    `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int    `json:"cache_write_tokens,omitempty"`
}

// ToolMetrics are the timing figures of one tool call.
type ToolMetrics struct {
	Duration float64 `json:"duration,omitempty"`
}
