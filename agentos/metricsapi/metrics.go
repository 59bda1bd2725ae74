// Package metricsapi is the Metrics route group of AgentOS: agno's
// /metrics routes over package dailymetrics (agno_metrics, computed from
// the OS store's sessions and runs) and their background refresh. It
// builds on the core (agentos/internal/httpapi) and on Host, what it
// needs of the OS; agentos serves its rows.
package metricsapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/dailymetrics"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqldb"
)

// DefaultRefreshInterval is how often AgentOS recomputes the daily
// metrics in the background (agno recomputes them only on POST
// /metrics/refresh). Every replica may do it: the upsert is idempotent.
const DefaultRefreshInterval = 15 * time.Minute

// Config configures the daily metrics.
type Config struct {
	// RefreshInterval is how often they are recomputed in the background
	// (0: DefaultRefreshInterval; negative: never, only on POST
	// /metrics/refresh).
	RefreshInterval time.Duration
}

// Host is what the group needs of the OS.
type Host interface {
	// DB holds agno_metrics.
	DB() *sqldb.DB
	// Store is the store whose sessions and runs are counted (nil:
	// nothing to count, the routes answer 503).
	Store() storage.Store
	Logger() *slog.Logger
	// DataStore resolves the database a data route of feature names by
	// db_id and table (agno's get_db); its error is answered as it is
	// (httpapi.Fail).
	DataStore(r *http.Request, feature, table string) (storage.Store, error)
}

// Group is the metrics part of the control plane: New, then Routes,
// Start and Stop.
type Group struct {
	host Host
	cfg  Config
	// store is nil until Start, and without a Host store.
	store *dailymetrics.Store
	// stop ends the background refresh; done closes when it has.
	stop context.CancelFunc
	done chan struct{}
	once sync.Once
}

// New is the group serving h's metrics.
func New(h Host, cfg Config) *Group { return &Group{host: h, cfg: cfg} }

// Routes are agno's /metrics routes (tag Metrics).
func (g *Group) Routes() []httpapi.Route {
	dates := []httpapi.Param{
		{Name: "starting_date", Type: "string", Desc: "Starting date for metrics range (YYYY-MM-DD format)"},
		{Name: "ending_date", Type: "string", Desc: "Ending date for metrics range (YYYY-MM-DD format)"},
	}
	return []httpapi.Route{
		{Pattern: "GET /metrics", Handler: g.handleGetMetrics, Access: httpapi.Needs("metrics:read"), Tag: "Metrics", Summary: "Get AgentOS Metrics",
			Desc:  "Daily aggregated metrics (runs and sessions per agent/team/workflow, users, tokens, runs per model) for a date range, both ends inclusive; all days without one.",
			Query: append(dates, httpapi.DBQuery, httpapi.TableQuery),
			Result: "{metrics: [DayAggregatedMetrics{id, agent_runs_count, agent_sessions_count, team_runs_count, team_sessions_count, " +
				"workflow_runs_count, workflow_sessions_count, users_count, token_metrics, model_metrics, date, created_at, updated_at}], updated_at}"},
		{Pattern: "POST /metrics/refresh", Handler: g.handleRefreshMetrics, Access: httpapi.Needs("metrics:write"), Tag: "Metrics", Summary: "Refresh Metrics",
			Desc:   "Recompute the daily metrics from the stored sessions and runs: the days after the last completed one, through today.",
			Query:  []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			Result: "[DayAggregatedMetrics] of the days recomputed"},
	}
}

// Start opens agno_metrics and starts the background refresh.
func (g *Group) Start() error {
	sessions := g.host.Store()
	if sessions == nil {
		return nil // nothing to count: the routes answer 503
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := dailymetrics.New(ctx, dailymetrics.Config{DB: g.host.DB(), Sessions: sessions})
	if err != nil {
		return fmt.Errorf("agentos: metrics: %w", err)
	}
	g.store, g.done = st, make(chan struct{})
	var bg context.Context
	bg, g.stop = context.WithCancel(context.Background())
	every := DefaultRefreshInterval
	switch d := g.cfg.RefreshInterval; {
	case d < 0:
		every = 0
	case d > 0:
		every = d
	}
	go g.refreshEvery(bg, every)
	return nil
}

// Stop ends the background refresh and waits for it.
func (g *Group) Stop() {
	if g.stop == nil {
		return
	}
	g.once.Do(func() {
		g.stop()
		<-g.done
	})
}

// refreshEvery recomputes the metrics every interval until ctx ends.
func (g *Group) refreshEvery(ctx context.Context, interval time.Duration) {
	defer close(g.done)
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := g.store.Refresh(ctx); err != nil && ctx.Err() == nil {
				g.host.Logger().Warn("agentos: background metrics refresh failed", "error", err)
			}
		}
	}
}

// dayAggregatedMetrics is agno's DayAggregatedMetrics.
type dayAggregatedMetrics struct {
	ID                    string                    `json:"id"`
	AgentRunsCount        int                       `json:"agent_runs_count"`
	AgentSessionsCount    int                       `json:"agent_sessions_count"`
	TeamRunsCount         int                       `json:"team_runs_count"`
	TeamSessionsCount     int                       `json:"team_sessions_count"`
	WorkflowRunsCount     int                       `json:"workflow_runs_count"`
	WorkflowSessionsCount int                       `json:"workflow_sessions_count"`
	UsersCount            int                       `json:"users_count"`
	TokenMetrics          dailymetrics.TokenMetrics `json:"token_metrics"`
	ModelMetrics          []dailymetrics.ModelCount `json:"model_metrics"`
	Date                  string                    `json:"date"`
	CreatedAt             string                    `json:"created_at"`
	UpdatedAt             string                    `json:"updated_at"`
}

// metricsResponse is agno's MetricsResponse.
type metricsResponse struct {
	Metrics   []dayAggregatedMetrics `json:"metrics"`
	UpdatedAt any                    `json:"updated_at"`
}

func dayResponses(days []dailymetrics.Day) []dayAggregatedMetrics {
	out := make([]dayAggregatedMetrics, len(days))
	for i, d := range days {
		out[i] = dayAggregatedMetrics{
			ID: d.ID, AgentRunsCount: d.AgentRunsCount, AgentSessionsCount: d.AgentSessionsCount,
			TeamRunsCount: d.TeamRunsCount, TeamSessionsCount: d.TeamSessionsCount,
			WorkflowRunsCount: d.WorkflowRunsCount, WorkflowSessionsCount: d.WorkflowSessionsCount,
			UsersCount: d.UsersCount, TokenMetrics: d.TokenMetrics, ModelMetrics: d.ModelMetrics,
			// datetimes as pydantic renders UTC ones
			Date:      d.Date.UTC().Format("2006-01-02T15:04:05Z"),
			CreatedAt: time.Unix(d.CreatedAt, 0).UTC().Format("2006-01-02T15:04:05Z"),
			UpdatedAt: time.Unix(d.UpdatedAt, 0).UTC().Format("2006-01-02T15:04:05Z"),
		}
	}
	return out
}

// metricsStore resolves db_id and table for the metrics routes.
func (g *Group) metricsStore(r *http.Request) (*dailymetrics.Store, error) {
	if _, err := g.host.DataStore(r, "Metrics", dailymetrics.Table); err != nil {
		return nil, err
	}
	if g.store == nil {
		return nil, httpapi.ErrStatus(http.StatusServiceUnavailable, "Metrics not available: pass a `db` to AgentOS to enable this feature.")
	}
	return g.store, nil
}

func (g *Group) handleGetMetrics(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// FastAPI validates every parameter before the handler runs and
	// reports all the bad ones.
	var bad []httpapi.ValidationItem
	var dates [2]time.Time
	for i, name := range []string{"starting_date", "ending_date"} {
		if !q.Has(name) {
			continue
		}
		d, item := queryDate(name, q.Get(name))
		if item != nil {
			bad = append(bad, *item)
			continue
		}
		dates[i] = d
	}
	if len(bad) > 0 {
		httpapi.WriteValidation(w, bad...)
		return
	}
	st, err := g.metricsStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	days, latest, err := st.List(r.Context(), dates[0], dates[1])
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error getting metrics: "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, metricsResponse{Metrics: dayResponses(days), UpdatedAt: httpapi.IsoSeconds(latest)})
}

func (g *Group) handleRefreshMetrics(w http.ResponseWriter, r *http.Request) {
	st, err := g.metricsStore(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	days, err := st.Refresh(r.Context())
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error refreshing metrics: "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, dayResponses(days))
}

// queryDate validates a date query parameter as pydantic does for a
// `date` (lax): YYYY-MM-DD, or a datetime or unix timestamp at exactly
// 00:00; other input gets pydantic's error naming the fault.
func queryDate(name, s string) (time.Time, *httpapi.ValidationItem) {
	reject := func(typ, msg string) (time.Time, *httpapi.ValidationItem) {
		return time.Time{}, &httpapi.ValidationItem{Type: typ, Loc: []any{"query", name}, Msg: msg, Input: s}
	}
	inexact := func() (time.Time, *httpapi.ValidationItem) {
		return reject("date_from_datetime_inexact", "Datetimes provided to dates should have zero time - e.g. be exact dates")
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && s != "" && (s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9')) {
		if n > 2e10 || n < -2e10 { // speedate reads large values as milliseconds
			n /= 1000
		}
		sec := int64(n)
		if float64(sec) != n || sec%86400 != 0 {
			return inexact()
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	d, zero, fault := parseDateTime(s)
	if fault != "" {
		return reject("date_from_datetime_parsing", "Input should be a valid date or datetime, "+fault)
	}
	if !zero {
		return inexact()
	}
	return d, nil
}

// parseDateTime parses an RFC 3339 date or datetime as speedate does,
// returning speedate's description of the first fault; zero reports a
// time of exactly 00:00:00.
func parseDateTime(s string) (d time.Time, zero bool, fault string) {
	digits := func(from, to int) (int, bool) {
		n := 0
		for i := from; i < to; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	if len(s) < 10 {
		return d, false, "input is too short"
	}
	year, ok := digits(0, 4)
	if !ok {
		return d, false, "invalid character in year"
	}
	if s[4] != '-' {
		return d, false, "invalid date separator, expected `-`"
	}
	month, ok := digits(5, 7)
	if !ok {
		return d, false, "invalid character in month"
	}
	if s[7] != '-' {
		return d, false, "invalid date separator, expected `-`"
	}
	day, ok := digits(8, 10)
	if !ok {
		return d, false, "invalid character in day"
	}
	if month < 1 || month > 12 {
		return d, false, "month value is outside expected range of 1-12"
	}
	d = time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if day < 1 || d.Day() != day {
		return time.Time{}, false, "day value is outside expected range"
	}
	if len(s) == 10 {
		return d, true, ""
	}
	switch s[10] {
	case 'T', 't', '_', ' ':
	default:
		return time.Time{}, false, "invalid datetime separator, expected `T`, `t`, `_` or space"
	}
	// HH:MM[:SS[.ffffff]] then Z or ±HH[:]MM.
	i := 11
	field := func(name string, maxv int) (int, string) {
		if len(s) < i+2 {
			return 0, "input is too short"
		}
		n, ok := digits(i, i+2)
		if !ok {
			return 0, "invalid character in " + name
		}
		if n > maxv {
			return 0, fmt.Sprintf("%s value is outside expected range of 0-%d", name, maxv)
		}
		i += 2
		return n, ""
	}
	hour, f := field("hour", 23)
	if f != "" {
		return time.Time{}, false, f
	}
	if len(s) <= i {
		return time.Time{}, false, "input is too short"
	}
	if s[i] != ':' {
		return time.Time{}, false, "invalid time separator, expected `:`"
	}
	i++
	minute, f := field("minute", 59)
	if f != "" {
		return time.Time{}, false, f
	}
	second, frac := 0, false
	if len(s) > i && s[i] == ':' {
		i++
		if second, f = field("second", 59); f != "" {
			return time.Time{}, false, f
		}
		if len(s) > i && (s[i] == '.' || s[i] == ',') {
			i++
			start := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				if s[i] != '0' {
					frac = true
				}
				i++
			}
			if i == start {
				return time.Time{}, false, "second fraction value is missing"
			}
		}
	}
	if len(s) > i {
		switch s[i] {
		case 'Z', 'z':
			i++
		case '+', '-':
			i++
			if _, f := field("timezone hour", 23); f != "" {
				return time.Time{}, false, "invalid timezone hour"
			}
			if len(s) > i && s[i] == ':' {
				i++
			}
			if _, f := field("timezone minute", 59); f != "" {
				return time.Time{}, false, "invalid timezone minute"
			}
		default:
			return time.Time{}, false, "invalid timezone sign"
		}
	}
	if len(s) > i {
		return time.Time{}, false, "unexpected extra characters at the end of the input"
	}
	return d, hour == 0 && minute == 0 && second == 0 && !frac, ""
}
