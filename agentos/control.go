package agentos

import (
	"errors"
	"strings"

	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/dailymetrics"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage/sqldb"
)

// The control plane: approvals, schedules, traces, metrics, evals,
// components and databases, each kept in Config.DB. Each feature's file
// holds its plane, its routes and their documentation.

// controlFeature is one feature of the control plane.
type controlFeature struct {
	tag    string // agno's router tag, named in the 503 without a DB
	prefix []string
	routes func(o *OS) []apiRoute
	start  func(o *OS) error
	stop   func(o *OS)
}

func controlFeatures() []controlFeature {
	return []controlFeature{
		{tag: "Approvals", prefix: []string{"/approvals"}, routes: (*OS).approvalAPIRoutes, start: (*OS).startApprovals, stop: (*OS).stopApprovals},
		{tag: "Schedules", prefix: []string{"/schedules"}, routes: (*OS).scheduleAPIRoutes, start: (*OS).startSchedules, stop: (*OS).stopSchedules},
		{tag: "Traces", prefix: []string{"/traces", "/trace_session_stats"}, routes: (*OS).traceAPIRoutes, start: (*OS).startTraces, stop: (*OS).stopTraces},
		{tag: "Metrics", prefix: []string{"/metrics"}, routes: (*OS).metricsAPIRoutes, start: (*OS).startMetrics, stop: (*OS).stopMetrics},
		{tag: "Evals", prefix: []string{"/eval-runs"}, routes: (*OS).evalAPIRoutes, start: (*OS).startEvals, stop: (*OS).stopEvals},
		{tag: "Components", prefix: []string{"/components", "/databases"}, routes: (*OS).componentAPIRoutes, start: (*OS).startComponents, stop: (*OS).stopComponents},
	}
}

// controlStub is agno's answer without a db for a path under a
// feature's prefix, any method: 503 naming the feature (ok false for
// other paths, or with a DB).
func (o *OS) controlStub(path string) (detail string, ok bool) {
	if o.cfg.DB != nil {
		return "", false
	}
	for _, f := range controlFeatures() {
		for _, p := range f.prefix {
			if path == p || strings.HasPrefix(path, p+"/") {
				return f.tag + " not available: pass a `db` to AgentOS to enable this feature.", true
			}
		}
	}
	return "", false
}

// controlAPIRoutes are every feature's routes, served with a DB.
func (o *OS) controlAPIRoutes() []apiRoute {
	var out []apiRoute
	for _, f := range controlFeatures() {
		out = append(out, f.routes(o)...)
	}
	return out
}

// startControl starts each feature's plane (New); a failure stops those
// started.
func (o *OS) startControl() error {
	if o.cfg.DB == nil {
		// Switched on but with nowhere to keep anything: say so rather
		// than serve a scheduler or tracing that silently does nothing.
		switch {
		case o.cfg.Tracing.Enabled:
			return errors.New("agentos: Tracing.Enabled needs Config.DB, where the spans are kept: open one with sqldb.OpenSQLite or sqldb.OpenPostgres")
		case o.cfg.Scheduler.Enabled:
			return errors.New("agentos: Scheduler.Enabled needs Config.DB, where the schedules are kept: open one with sqldb.OpenSQLite or sqldb.OpenPostgres")
		}
		return nil
	}
	fs := controlFeatures()
	for i, f := range fs {
		if err := f.start(o); err != nil {
			for j := i - 1; j >= 0; j-- {
				fs[j].stop(o)
			}
			return err
		}
	}
	return nil
}

// stopControl stops the planes in reverse order (Close).
func (o *OS) stopControl() {
	if o.cfg.DB == nil {
		return
	}
	fs := controlFeatures()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i].stop(o)
	}
}

// controlMigrations are the schema versions of every control-plane
// table, which /databases/{db_id}/migrate applies.
func controlMigrations(db *sqldb.DB) []sqldb.Migration {
	var ms []sqldb.Migration
	for _, m := range [][]sqldb.Migration{
		approval.Migrations(db), schedule.Migrations(db), tracestore.Migrations(db),
		dailymetrics.Migrations(db), eval.Migrations(db), component.Migrations(db), slackEventMigrations(db),
	} {
		ms = append(ms, m...)
	}
	return ms
}
