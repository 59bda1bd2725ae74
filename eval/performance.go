package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// PerformanceConfig configures a performance eval (agno's
// PerformanceEval): WarmupRuns unmeasured runs, then NumIterations runs
// each timed and measured for memory.
type PerformanceConfig struct {
	ID   string // the eval run's id; default a new UUID
	Name string

	// Agent or Team runs Input; or Func is what is measured.
	Agent *agent.Agent
	Team  *team.Team
	Input string
	Func  func(ctx context.Context) error
	// ComponentName is the evaluated_component_name stored (default the
	// agent's or team's name).
	ComponentName string

	NumIterations int // default 1
	WarmupRuns    int

	// UserID is the user the agent or team runs as, and the eval run's
	// creator (created_by) in Store.
	UserID string
	Store  *Store
}

// PerformanceResult is agno's PerformanceResult: run times in seconds and
// memory in MiB. Memory is what the process allocated during a run
// (runtime.MemStats.TotalAlloc before and after, after a GC): Go has no
// tracemalloc peak, and other goroutines' allocations count too.
type PerformanceResult struct {
	RunTimes      []float64 `json:"run_times"`
	AvgRunTime    float64   `json:"avg_run_time"`
	MinRunTime    float64   `json:"min_run_time"`
	MaxRunTime    float64   `json:"max_run_time"`
	StdDevRunTime float64   `json:"std_dev_run_time"`
	MedianRunTime float64   `json:"median_run_time"`
	P95RunTime    float64   `json:"p95_run_time"`

	MemoryUsages      []float64 `json:"memory_usages"`
	AvgMemoryUsage    float64   `json:"avg_memory_usage"`
	MinMemoryUsage    float64   `json:"min_memory_usage"`
	MaxMemoryUsage    float64   `json:"max_memory_usage"`
	StdDevMemoryUsage float64   `json:"std_dev_memory_usage"`
	MedianMemoryUsage float64   `json:"median_memory_usage"`
	P95MemoryUsage    float64   `json:"p95_memory_usage"`
}

func (r *PerformanceResult) computeStats() {
	t := summarize(r.RunTimes)
	r.AvgRunTime, r.MinRunTime, r.MaxRunTime, r.StdDevRunTime, r.MedianRunTime, r.P95RunTime = t.avg, t.min, t.max, t.std, t.median, t.p95
	m := summarize(r.MemoryUsages)
	r.AvgMemoryUsage, r.MinMemoryUsage, r.MaxMemoryUsage, r.StdDevMemoryUsage, r.MedianMemoryUsage, r.P95MemoryUsage = m.avg, m.min, m.max, m.std, m.median, m.p95
}

// Performance is a configured performance eval.
type Performance struct {
	cfg PerformanceConfig
	sub subject
}

// NewPerformance validates cfg.
func NewPerformance(cfg PerformanceConfig) (*Performance, error) {
	var sub subject
	switch {
	case cfg.Func != nil && (cfg.Agent != nil || cfg.Team != nil):
		return nil, errors.New("eval: set either Func or an Agent/Team to measure, not both")
	case cfg.Func == nil:
		s, err := newSubject(cfg.Agent, cfg.Team, cfg.UserID)
		if err != nil {
			return nil, fmt.Errorf("%w, or Func", err)
		}
		sub = s
	}
	if cfg.NumIterations < 0 || cfg.WarmupRuns < 0 {
		return nil, fmt.Errorf("eval: NumIterations (%d) and WarmupRuns (%d) must not be negative", cfg.NumIterations, cfg.WarmupRuns)
	}
	if cfg.NumIterations == 0 {
		cfg.NumIterations = 1
	}
	if cfg.ComponentName == "" {
		cfg.ComponentName = sub.name()
	}
	if cfg.ID == "" {
		cfg.ID = run.NewID()
	}
	return &Performance{cfg: cfg, sub: sub}, nil
}

// ID is the eval run's id.
func (e *Performance) ID() string { return e.cfg.ID }

// call is one run of what is measured; a failed agent or team run is an
// error, so that failures are not timed as answers.
func (e *Performance) call(ctx context.Context) error {
	if e.cfg.Func != nil {
		return e.cfg.Func(ctx)
	}
	_, _, err := e.sub.answer(ctx, e.cfg.Input)
	return err
}

const mib = 1024 * 1024

// Run does the warm-up runs, then the measured ones.
func (e *Performance) Run(ctx context.Context) (*PerformanceResult, error) {
	for i := range e.cfg.WarmupRuns {
		if err := e.call(ctx); err != nil {
			return nil, fmt.Errorf("eval: warm-up run %d: %w", i+1, err)
		}
	}
	res := &PerformanceResult{RunTimes: []float64{}, MemoryUsages: []float64{}}
	var before, after runtime.MemStats
	for i := range e.cfg.NumIterations {
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		err := e.call(ctx)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil {
			return nil, fmt.Errorf("eval: measured run %d: %w", i+1, err)
		}
		res.RunTimes = append(res.RunTimes, elapsed.Seconds())
		res.MemoryUsages = append(res.MemoryUsages, float64(after.TotalAlloc-before.TotalAlloc)/mib)
	}
	res.computeStats()
	rec, err := e.Record(res)
	if err != nil {
		return nil, err
	}
	return res, store(ctx, e.cfg.Store, rec, e.cfg.UserID)
}

// performanceData is what agno stores as a performance run's eval_data
// (its _parse_eval_run_data), unlike the result it returns.
type performanceData struct {
	Result performanceStats `json:"result"`
	Runs   []performanceRun `json:"runs"`
}

type performanceStats struct {
	AvgRunTime        float64 `json:"avg_run_time"`
	MinRunTime        float64 `json:"min_run_time"`
	MaxRunTime        float64 `json:"max_run_time"`
	StdDevRunTime     float64 `json:"std_dev_run_time"`
	MedianRunTime     float64 `json:"median_run_time"`
	P95RunTime        float64 `json:"p95_run_time"`
	AvgMemoryUsage    float64 `json:"avg_memory_usage"`
	MinMemoryUsage    float64 `json:"min_memory_usage"`
	MaxMemoryUsage    float64 `json:"max_memory_usage"`
	StdDevMemoryUsage float64 `json:"std_dev_memory_usage"`
	MedianMemoryUsage float64 `json:"median_memory_usage"`
	P95MemoryUsage    float64 `json:"p95_memory_usage"`
}

type performanceRun struct {
	Runtime float64 `json:"runtime"`
	Memory  float64 `json:"memory"`
}

type performanceInput struct {
	NumIterations int `json:"num_iterations"`
	WarmupRuns    int `json:"warmup_runs"`
}

// Record is the eval run row of res.
func (e *Performance) Record(res *PerformanceResult) (*Record, error) {
	data := performanceData{Result: performanceStats{
		AvgRunTime: res.AvgRunTime, MinRunTime: res.MinRunTime, MaxRunTime: res.MaxRunTime,
		StdDevRunTime: res.StdDevRunTime, MedianRunTime: res.MedianRunTime, P95RunTime: res.P95RunTime,
		AvgMemoryUsage: res.AvgMemoryUsage, MinMemoryUsage: res.MinMemoryUsage, MaxMemoryUsage: res.MaxMemoryUsage,
		StdDevMemoryUsage: res.StdDevMemoryUsage, MedianMemoryUsage: res.MedianMemoryUsage, P95MemoryUsage: res.P95MemoryUsage,
	}, Runs: make([]performanceRun, 0, len(res.RunTimes))}
	for i := range min(len(res.RunTimes), len(res.MemoryUsages)) {
		data.Runs = append(data.Runs, performanceRun{Runtime: res.RunTimes[i], Memory: res.MemoryUsages[i]})
	}
	rec, err := e.sub.record(e.cfg.ID, e.cfg.Name, TypePerformance, data, performanceInput{NumIterations: e.cfg.NumIterations, WarmupRuns: e.cfg.WarmupRuns})
	if err != nil {
		return nil, err
	}
	rec.EvaluatedComponentName = e.cfg.ComponentName
	return rec, nil
}
