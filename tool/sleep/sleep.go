// Package sleep is agno's SleepTools: a model pauses for a number of
// seconds. The pause is bounded by an option and ends early when the run
// is cancelled.
package sleep

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agno-go/agno/tool"
)

// DefaultMaxSeconds bounds a sleep when Config.MaxSeconds is 0.
const DefaultMaxSeconds = 300

// Config configures the toolkit.
type Config struct {
	// EnableSleep and All are agno's enable_sleep and all.
	EnableSleep bool
	All         bool
	// MaxSeconds is the longest sleep allowed; 0 means 300.
	MaxSeconds int

	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

type sleeper struct {
	max int
	log *slog.Logger
}

type sleepArgs struct {
	Seconds int `json:"seconds"`
}

// New returns agno's "sleep" toolkit.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.MaxSeconds < 0 {
		return nil, errors.New("sleep: MaxSeconds must not be negative (0 means the default 300)")
	}
	s := &sleeper{max: cfg.MaxSeconds, log: cfg.Logger}
	if s.max == 0 {
		s.max = DefaultMaxSeconds
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableSleep)(tool.New("sleep", "Use this function to sleep for a given number of seconds.", s.sleep))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "sleep", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions})
}

func (s *sleeper) sleep(ctx context.Context, a sleepArgs) (string, error) {
	if a.Seconds < 0 {
		// Python's time.sleep refuses a negative length with this text.
		return "", errors.New("sleep length must be non-negative")
	}
	if a.Seconds > s.max {
		return "", fmt.Errorf("sleep: %d seconds is longer than the %d seconds allowed (max_seconds in [toolkits.sleep])", a.Seconds, s.max)
	}
	s.log.Info(fmt.Sprintf("Sleeping for %d seconds", a.Seconds))
	t := time.NewTimer(time.Duration(a.Seconds) * time.Second)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return "", fmt.Errorf("sleep: interrupted: %w", ctx.Err())
	}
	s.log.Info(fmt.Sprintf("Awake after %d seconds", a.Seconds))
	return fmt.Sprintf("Slept for %d seconds", a.Seconds), nil
}
