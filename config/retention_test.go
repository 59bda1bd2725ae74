package config_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/storage"
)

func TestRetentionKeys(t *testing.T) {
	c, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte("[storage.retention]\nmax_age_days = 30\nmax_runs = 5000\ninterval_minutes = 15\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Storage.Retention
	if !r.Enabled() || r.Interval() != 15*time.Minute {
		t.Fatalf("retention %+v: enabled %v, interval %s", r, r.Enabled(), r.Interval())
	}
	if p := r.Policy(); p != (storage.RetentionPolicy{MaxAge: 30 * 24 * time.Hour, MaxRuns: 5000}) {
		t.Fatalf("policy %+v", p)
	}
	// Off by default, hourly once on.
	c, err = config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte("[storage]\ndriver = \"memory\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Storage.Retention.Enabled() || c.Storage.Retention.Policy().Enabled() || c.Storage.Retention.Interval() != time.Hour {
		t.Fatalf("default retention %+v", c.Storage.Retention)
	}
	c, err = config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte("[storage.retention]\nmax_runs = 10\n"))
	if err != nil || !c.Storage.Retention.Enabled() || c.Storage.Retention.Interval() != time.Hour {
		t.Fatalf("max_runs alone: %+v %v", c, err)
	}
}

func TestRetentionErrors(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		line      int
		parts     []string
	}{
		{"negative age", "[storage.retention]\nmax_age_days = -1\n", 2, []string{"storage.retention.max_age_days = -1", "number of days", "remove the key"}},
		{"zero age", "[storage.retention]\nmax_age_days = 0\n", 2, []string{"storage.retention.max_age_days = 0"}},
		{"huge age", "[storage.retention]\nmax_age_days = 1000000\n", 2, []string{"storage.retention.max_age_days = 1000000", "from 1 to 36500"}},
		{"negative runs", "[storage.retention]\nmax_runs = -5\n", 2, []string{"storage.retention.max_runs = -5", "positive number of newest runs"}},
		{"negative interval", "[storage.retention]\nmax_runs = 5\ninterval_minutes = -60\n", 3, []string{"storage.retention.interval_minutes = -60", "minutes", "60"}},
		{"interval alone", "[storage.retention]\ninterval_minutes = 5\n", 2, []string{"interval_minutes is set but nothing is to be deleted", "max_age_days", "max_runs"}},
		{"unknown key", "[storage.retention]\nmax_age = 3\n", 2, []string{`unknown key "storage.retention.max_age"`, "max_age_days"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := findError(t, configErrors(t, parse(t, tt.src)), tt.parts...)
			if e.Line != tt.line {
				t.Errorf("line %d, want %d: %v", e.Line, tt.line, e)
			}
		})
	}
}
