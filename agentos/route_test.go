package agentos

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/auth"
	"github.com/agno-go/agno/storage/sqldb"
)

// apiRoutes are every row but the interfaces', served or not (the
// control plane's need a DB), for the docs tests. Their handlers are
// bound to an empty OS: only their patterns and docs are read.
var apiRoutes = slices.Concat(new(OS).baseAPIRoutes(nil), new(OS).controlAPIRoutes())

// openPath reports whether a base route serves path with no key or
// token.
func openPath(path string) bool {
	return slices.ContainsFunc(apiRoutes, func(rt apiRoute) bool { return rt.IsOpen() && openAPIPath(rt.Path()) == path })
}

// ExtraInterface is an interface a test of package agentos_test adds
// to everyRouteOS and fullDocsOS (from its init), so the route and docs
// tests check its rows: New builds it for an agent id, Open lists the
// patterns it opens. The built-in interfaces join so
// (builtin_interfaces_test.go): their packages import this one.
type ExtraInterface struct {
	New  func(agentID string) Interface
	Open []string
}

// ExtraInterfaces are the interfaces everyRouteOS and fullDocsOS serve:
// the built-in ones (builtin_interfaces_test.go) and a test's own.
var ExtraInterfaces []ExtraInterface

// extraInterfaces builds ExtraInterfaces for agentID.
func extraInterfaces(agentID string) []Interface {
	var out []Interface
	for _, x := range ExtraInterfaces {
		out = append(out, x.New(agentID))
	}
	return out
}

// everyRouteOS serves every route there is: the control plane (a DB)
// and every interface.
func everyRouteOS(t *testing.T, cfg Config) *OS {
	t.Helper()
	db, err := sqldb.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "agno.db"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agents = []*agent.Agent{newAgent(t, agent.Config{ID: "helper", Name: "Helper"})}
	cfg.DB, cfg.Closers = db, []func() error{db.Close}
	cfg.Interfaces = extraInterfaces("helper")
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close() })
	return o
}

// Every route the mux serves has a decision on who may call it: an agno
// scope, open (and why), or the check its handler makes.
func TestEveryRouteDecidesAccess(t *testing.T) {
	o := everyRouteOS(t, Config{})
	mux := &recordingMux{ServeMux: http.NewServeMux()}
	rows := o.routes(mux)
	byPattern := map[string][]apiRoute{}
	for _, rt := range rows {
		byPattern[rt.MuxPattern()] = append(byPattern[rt.MuxPattern()], rt)
	}
	kinds := map[string]int{}
	var opened []string
	for _, p := range mux.patterns {
		if len(byPattern[p]) == 0 {
			t.Errorf("%s is registered without a row: declare it as an apiRoute", p)
		}
		for _, rt := range byPattern[p] {
			switch a := rt.Access; {
			case !a.Decided():
				t.Errorf("%s has no access decision: give it exactly one of Needs(scope), Open(why) or CheckedBy(check)", rt.Pattern)
			case a.Scope != "":
				kinds["scope"]++
			case a.Open != "":
				kinds["open"]++
				opened = append(opened, rt.Pattern)
			default:
				kinds["checked"]++
			}
		}
	}
	// Opening a route is a decision this list records.
	wantOpen := []string{"GET /{$}", "GET /health", "GET /ready", "GET /info", "GET /openapi.json", "GET /docs", "GET /redoc", "GET /workflows/ws",
		"POST /slack/events", "POST /slack/interactions"}
	for _, x := range ExtraInterfaces {
		wantOpen = append(wantOpen, x.Open...)
	}
	slices.Sort(opened)
	if !slices.Equal(opened, slices.Sorted(slices.Values(wantOpen))) {
		t.Errorf("open routes %q, want %q", opened, wantOpen)
	}
	if len(rows) < 120 || kinds["scope"] < 90 {
		t.Fatalf("%d rows %v: routes are missing", len(rows), kinds)
	}
	t.Logf("%d routes, %d patterns: %d with a scope, %d open, %d checked by their handler", len(rows), len(mux.patterns), kinds["scope"], kinds["open"], kinds["checked"])
}

// The scope a served route needs is the one agno's
// get_default_scope_mappings gives its requests (first match), whatever
// the path's ids; a route whose handler checks access is one agno's table
// does not name.
func TestRouteScopesAreAgnos(t *testing.T) {
	o := everyRouteOS(t, Config{})
	mux := http.NewServeMux()
	rows := o.routes(mux)
	table := newRouteTable(rows)
	// Ids that are also literal segments, and an escaped slash.
	ids := []string{"x", "count", "current", "all", "content", "sources", "runs", "status", "configs", "cancel", "ws", "a%2Fruns%2Fb"}
	checked := 0
	for _, rt := range rows {
		methods := []string{rt.Method()}
		if rt.Method() == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		for _, id := range ids {
			path := openAPIPath(wildcard.ReplaceAllString(rt.Path(), id))
			for _, method := range methods {
				r := httptest.NewRequest(method, path, nil)
				_, pattern := mux.Handler(r)
				served := table.row(pattern, r)
				if served != nil && served.IsOpen() {
					continue // no token is checked
				}
				// HEAD needs its GET's scope: agno names no HEAD route
				// (any valid token), which would let a token without
				// the scope probe what exists.
				agnoMethod := method
				if method == http.MethodHead {
					agnoMethod = http.MethodGet
				}
				want := strings.Join(auth.RouteFor(agnoMethod, r.URL.Path).Scopes, " ")
				switch got := requiredScope(r, served); {
				case served != nil && served.Access.Check != "" && want != "":
					t.Errorf("%s %s (%s): checked by its handler, but agno requires %s: declare needs(%q)", method, path, served.Pattern, want, want)
				case got != want:
					t.Errorf("%s %s (%s): needs %q, agno requires %q", method, path, pattern, got, want)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("%d requests checked", checked)
	}
}

const a2aJWTSecret = "a2a-test-secret-of-32-bytes-long!!"

func a2aToken(t *testing.T, sub string, scopes ...string) string {
	t.Helper()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(map[string]any{"sub": sub, "scopes": scopes, "exp": time.Now().Add(time.Hour).Unix()})
	mac := hmac.New(sha256.New, []byte(a2aJWTSecret))
	mac.Write([]byte(head))
	return head + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// The real middleware enforces each row's decision: for a named scope a
// token with only that scope is let through and one with every other
// scope is refused (403); a route its handler checks needs a valid token;
// an open one none.
func TestRouteScopesEnforced(t *testing.T) {
	o := everyRouteOS(t, Config{Authorization: &auth.Config{VerificationKeys: []string{a2aJWTSecret}, Algorithm: "HS256"}})
	h := o.Handler()
	mux := http.NewServeMux()
	rows := o.routes(mux)
	var all []string
	for _, rt := range rows {
		if s := rt.Access.Scope; s != "" && !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	var sendAs func(rt apiRoute, method, token string) *httptest.ResponseRecorder
	send := func(rt apiRoute, token string) *httptest.ResponseRecorder {
		return sendAs(rt, rt.Method(), token)
	}
	sendAs = func(rt apiRoute, method, token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, openAPIPath(wildcard.ReplaceAllString(rt.Path(), "x")), nil)
		req.RemoteAddr = "127.0.0.1:40000"
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	scoped, heads := 0, 0
	for _, rt := range rows {
		switch a := rt.Access; {
		case a.Scope != "":
			scoped++
			refusal := `{"detail":"Insufficient permissions. Required scope(s): ` + a.Scope + `"}`
			if rec := send(rt, a2aToken(t, "alice", a.Scope)); rec.Code == http.StatusUnauthorized || rec.Body.String() == refusal {
				t.Errorf("%s with only %s: %d %s", rt.Pattern, a.Scope, rec.Code, rec.Body)
			}
			others := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == a.Scope })
			if typ, id := auth.ResourceOf(rt.Path()); typ != "" && id == "" && rt.Method() == http.MethodGet {
				// agno lists what a token may read or run.
				others = slices.DeleteFunc(others, func(s string) bool { return s == typ+":run" })
			}
			if rec := send(rt, a2aToken(t, "alice", others...)); rec.Code != http.StatusForbidden || rec.Body.String() != refusal {
				t.Errorf("%s without %s: %d %s, want 403 %s", rt.Pattern, a.Scope, rec.Code, rec.Body, refusal)
			}
			if rt.Method() == http.MethodGet {
				heads++
				if rec := sendAs(rt, http.MethodHead, a2aToken(t, "alice", others...)); rec.Code != http.StatusForbidden {
					t.Errorf("HEAD %s without %s: %d, want 403", rt.Path(), a.Scope, rec.Code)
				}
			}
		case a.Check != "":
			if rec := send(rt, ""); rec.Code != http.StatusUnauthorized {
				t.Errorf("%s without a token: %d %s, want 401", rt.Pattern, rec.Code, rec.Body)
			}
		default:
			if rec := send(rt, ""); rec.Code == http.StatusUnauthorized || strings.Contains(rec.Body.String(), "Insufficient permissions") {
				t.Errorf("%s is open, but without a token: %d %s", rt.Pattern, rec.Code, rec.Body)
			}
		}
	}
	if scoped < 90 || heads < 40 {
		t.Fatalf("%d routes with a scope, %d of them GET", scoped, heads)
	}
}
