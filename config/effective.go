package config

import (
	"cmp"
	"maps"
	"time"

	"github.com/agno-go/agno/internal/httptransport"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage/driver"
)

// Effective returns a copy of c with the defaults that are applied where
// a value is used (a zero timeout means the built-in one) written in, so
// `agno config show` prints what AgentOS will actually use.
func (c *Config) Effective() *Config {
	e := *c
	s := &e.Storage
	if d, ok := driver.Lookup(cmp.Or(s.Driver, driver.DefaultName())); ok && d.Defaults != nil {
		set := s.settings(c)
		d.Defaults(&set)
		s.apply(set)
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
