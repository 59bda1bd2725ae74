package agentos

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/storage/memory"
)

// A scheduler or tracing switched on without a database is refused at
// New, not left silently idle.
func TestControlSwitchesNeedADB(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	before := map[string]bool{}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "agno-uploads-*"))
	for _, d := range dirs {
		before[d] = true
	}
	for name, cfg := range map[string]Config{
		"tracing":   {Tracing: TracingConfig{Enabled: true}},
		"scheduler": {Scheduler: SchedulerConfig{Enabled: true}},
	} {
		cfg.Store = memory.New()
		cfg.SpoolDir = ""
		cfg.Logger = slog.New(slog.DiscardHandler)
		o, err := New(cfg)
		if err == nil {
			o.Close()
			t.Fatalf("%s without DB: New succeeded", name)
		}
		if !strings.Contains(err.Error(), "needs Config.DB") {
			t.Errorf("%s: %v", name, err)
		}
		// The failed New leaves no upload spool directory behind.
		left, _ := filepath.Glob(filepath.Join(os.TempDir(), "agno-uploads-*"))
		for _, d := range left {
			if !before[d] {
				t.Errorf("%s: New left %s", name, d)
			}
		}
	}
}
