package agentos

import (
	"errors"
	"net/http"
	"strings"

	"github.com/agno-go/agno/agentos/metricsapi"
	"github.com/agno-go/agno/agentos/tracestore"
	"github.com/agno-go/agno/approval"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/dailymetrics"
	"github.com/agno-go/agno/eval"
	"github.com/agno-go/agno/schedule"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
)

// The control plane: approvals, schedules, traces, metrics, evals,
// components and databases, each kept in Config.DB. Each feature's file
// holds its plane, its routes and their documentation.

// controlFeature is one feature of the control plane: a group in its
// own package, or routes, start and stop on the OS.
type controlFeature struct {
	tag    string // agno's router tag, named in the 503 without a DB
	prefix []string
	group  func(o *OS) controlGroup
	routes func(o *OS) []apiRoute
	start  func(o *OS) error
	stop   func(o *OS)
}

// controlGroup is a feature in its own package (agentos/metricsapi),
// built on agentos/internal/httpapi and on what it declares it needs of
// the OS (groupHost): its rows and its plane's lifecycle.
type controlGroup interface {
	Routes() []apiRoute
	Start() error
	Stop()
}

func (f controlFeature) rows(o *OS) []apiRoute {
	if f.group != nil {
		return f.group(o).Routes()
	}
	return f.routes(o)
}

func (f controlFeature) begin(o *OS) error {
	if f.group != nil {
		return f.group(o).Start()
	}
	return f.start(o)
}

func (f controlFeature) end(o *OS) {
	if f.group != nil {
		f.group(o).Stop()
		return
	}
	f.stop(o)
}

// groupHost is what the route groups need of the OS: an Interface's Host
// and the data routes' db_id and table (dataStore).
type groupHost struct{ *Host }

func (h groupHost) DataStore(r *http.Request, feature, table string) (storage.Store, error) {
	return h.o.dataStore(r, feature, table)
}

// dataStore resolves the database of a data route from db_id and table
// (agno's get_db), or answers 503 when AgentOS has none.
func (o *OS) dataStore(r *http.Request, feature, table string) (storage.Store, error) {
	if o.cfg.Store == nil {
		return nil, errStatus(http.StatusServiceUnavailable, "%s not available: pass a `db` to AgentOS to enable this feature.", feature)
	}
	q := r.URL.Query()
	dbID, tbl := q.Get("db_id"), q.Get("table")
	switch {
	case tbl != "" && dbID == "":
		return nil, errStatus(http.StatusBadRequest, "The db_id query parameter is required when passing a table")
	case dbID != "" && dbID != o.cfg.DBID:
		return nil, errStatus(http.StatusNotFound, "No database found with id '%s'", dbID)
	case tbl != "" && tbl != table:
		return nil, errStatus(http.StatusNotFound, "No database with id '%s' has table '%s'", dbID, tbl)
	}
	return o.cfg.Store, nil
}

// DefaultMetricsRefreshInterval is how often AgentOS recomputes the daily
// metrics in the background (agno recomputes them only on POST
// /metrics/refresh). Every replica may do it: the upsert is idempotent.
const DefaultMetricsRefreshInterval = metricsapi.DefaultRefreshInterval

// MetricsConfig configures the daily metrics.
type MetricsConfig = metricsapi.Config

func controlFeatures() []controlFeature {
	return []controlFeature{
		{tag: "Approvals", prefix: []string{"/approvals"}, group: func(o *OS) controlGroup { return o.approvals }},
		{tag: "Schedules", prefix: []string{"/schedules"}, group: func(o *OS) controlGroup { return o.schedules }},
		{tag: "Traces", prefix: []string{"/traces", "/trace_session_stats"}, group: func(o *OS) controlGroup { return o.traces }},
		{tag: "Metrics", prefix: []string{"/metrics"}, group: func(o *OS) controlGroup { return o.metrics }},
		{tag: "Evals", prefix: []string{"/eval-runs"}, group: func(o *OS) controlGroup { return o.evals }},
		{tag: "Components", prefix: []string{"/components", "/databases"}, group: func(o *OS) controlGroup { return o.components }},
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
		out = append(out, f.rows(o)...)
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
		if err := f.begin(o); err != nil {
			for j := i - 1; j >= 0; j-- {
				fs[j].end(o)
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
		fs[i].end(o)
	}
}

// controlMigrations are the schema versions of every control-plane
// table, then of the interfaces' own (Host.RegisterMigrations), which
// /databases/{db_id}/migrate applies.
func (o *OS) controlMigrations(db *sqldb.DB) []sqldb.Migration {
	var ms []sqldb.Migration
	for _, m := range [][]sqldb.Migration{
		approval.Migrations(db), schedule.Migrations(db), tracestore.Migrations(db),
		dailymetrics.Migrations(db), eval.Migrations(db), component.Migrations(db),
	} {
		ms = append(ms, m...)
	}
	for _, m := range o.interfaceMigrations {
		ms = append(ms, m(db)...)
	}
	return ms
}
