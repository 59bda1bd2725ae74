package agentos

import (
	"net/http"
	"net/url"
	"strings"
)

// Every route AgentOS serves is one Route row (docs.go): its pattern,
// handler, access decision and documentation. The mux, /openapi.json and
// /docs, and the key and JWT checks are all built from the rows, so a
// route cannot be served without a decision on who may call it.

// requiredScope is the scope r needs by the decision of rt, the row
// serving it ("" for none; nil rt: no row takes r). HEAD runs the GET
// handler (only the body is dropped, its status and length still tell),
// so it needs the GET's scope; agno's table names no HEAD route and lets
// any valid token through, which would let a token without the scope
// probe what exists.
func requiredScope(r *http.Request, rt *apiRoute) string {
	if rt == nil {
		return ""
	}
	if m := rt.Method(); r.Method != m && !(r.Method == http.MethodHead && m == http.MethodGet) {
		return ""
	}
	return rt.Access.Scope
}

// routeMux is what registering rows needs of a mux (tests record the
// patterns through it).
type routeMux interface {
	HandleFunc(pattern string, handler func(http.ResponseWriter, *http.Request))
}

// register serves rows on mux, each under its pattern; rows sharing a
// Served pattern are served by one handler trying them in order.
func register(mux routeMux, rows []apiRoute) {
	shared := map[string][]apiRoute{}
	var order []string
	for _, rt := range rows {
		if rt.Served == "" {
			mux.HandleFunc(rt.Pattern, rt.Handler)
			continue
		}
		if _, ok := shared[rt.Served]; !ok {
			order = append(order, rt.Served)
		}
		shared[rt.Served] = append(shared[rt.Served], rt)
	}
	for _, p := range order {
		mux.HandleFunc(p, serveFirst(shared[p]))
	}
}

// serveFirst serves a request with the first of rows whose pattern takes
// its path, as FastAPI tries routes in order; none: 404.
func serveFirst(rows []apiRoute) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range rows {
			if vals, ok := matchPath(rt.Path(), r); ok {
				for _, v := range vals {
					r.SetPathValue(v[0], v[1])
				}
				rt.Handler(w, r)
				return
			}
		}
		writeError(w, http.StatusNotFound, "Not Found")
	}
}

// matchPath matches r's path against a pattern's path of literal and
// {name} segments, segment by segment as ServeMux does (on the unescaped
// segments); it returns the wildcards' names and values.
func matchPath(pattern string, r *http.Request) (vals [][2]string, ok bool) {
	want := strings.Split(pattern, "/")
	got := strings.Split(r.URL.EscapedPath(), "/")
	if len(want) != len(got) {
		return nil, false
	}
	for i, seg := range want {
		v, err := url.PathUnescape(got[i])
		if err != nil {
			return nil, false
		}
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			vals = append(vals, [2]string{strings.TrimSuffix(name, "}"), v})
		} else if seg != v {
			return nil, false
		}
	}
	return vals, true
}

// routeTable finds the row serving a request from the pattern the mux
// matched.
type routeTable map[string][]*apiRoute

func newRouteTable(rows []apiRoute) routeTable {
	t := routeTable{}
	for i := range rows {
		rt := &rows[i]
		t[rt.MuxPattern()] = append(t[rt.MuxPattern()], rt)
	}
	return t
}

// row is the row serving r, matched by the mux to pattern; nil when the
// pattern's rows take none of r (a shared pattern's handler then answers
// 404). A path ServeMux redirects to its clean form (/a/../b) gets the
// row of the route it redirects to.
func (t routeTable) row(pattern string, r *http.Request) *apiRoute {
	rows := t[pattern]
	if len(rows) == 1 && rows[0].Served == "" {
		return rows[0]
	}
	for _, rt := range rows {
		if _, ok := matchPath(rt.Path(), r); ok {
			return rt
		}
	}
	return nil
}

// gate decides whether r may reach the row serving it (nil: none does),
// and returns r as the handler should see it.
type gate func(w http.ResponseWriter, r *http.Request, rt *apiRoute) (*http.Request, bool)

// serveRows serves rows on mux behind pass: a request no route takes is
// answered as FastAPI does, before any authentication (agno's key check
// is a route dependency), and every other one passes pass with its row.
func (o *OS) serveRows(mux *http.ServeMux, rows []apiRoute, pass gate) http.Handler {
	table := newRouteTable(rows)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern == "" {
			o.unmatched(w, r, h)
			return
		}
		if r, ok := pass(w, r, table.row(pattern, r)); ok {
			mux.ServeHTTP(w, r)
		}
	})
}
