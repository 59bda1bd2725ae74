package config

import (
	"maps"
	"time"

	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage/postgres"
	"github.com/agno-go/agno/storage/sqlite"
)

// Effective returns a copy of c with the defaults that are applied where
// a value is used (a zero timeout means the built-in one) written in, so
// `agno config show` prints what AgentOS will actually use.
func (c *Config) Effective() *Config {
	e := *c
	s := &e.Storage
	if s.TimeoutSeconds == 0 {
		s.TimeoutSeconds = seconds(sqlite.DefaultCallTimeout)
	}
	if s.Driver == DriverPostgres {
		if s.Schema == "" {
			s.Schema = postgres.DefaultSchema
		}
		if s.ConnectTimeoutSeconds == 0 {
			s.ConnectTimeoutSeconds = 5
		}
		if s.MaxConns == 0 {
			s.MaxConns = postgres.DefaultMaxConns
		}
	}
	if r := s.Retention; r.IntervalMinutes == 0 && (r.MaxAgeDays > 0 || r.MaxRuns > 0) {
		s.Retention.IntervalMinutes = DefaultRetentionIntervalMinutes
	}
	e.Models = maps.Clone(c.Models)
	for k, m := range e.Models {
		if m.Timeout == 0 {
			m.Timeout = seconds(httptransport.DefaultFirstByte)
		}
		if m.IdleTimeout == 0 {
			m.IdleTimeout = seconds(httptransport.DefaultIdle)
		}
		if m.MaxResponseBytes == 0 {
			m.MaxResponseBytes = httptransport.DefaultMaxBytes
		}
		if m.MaxRetries == nil {
			p, _ := model.LookupProvider(m.Provider)
			retries := p.DefaultMaxRetries
			m.MaxRetries = &retries
		}
		e.Models[k] = m
	}
	return &e
}

func seconds(d time.Duration) Seconds { return Seconds(d.Seconds()) }
