package httpapi

import (
	"cmp"
	"net/http"
	"strings"
)

// Param is one documented parameter of a Route: a query parameter or a
// field of a form or JSON body.
type Param struct {
	Name     string
	Type     string // JSON schema type: string, integer, number, boolean, array, object
	Desc     string
	Required bool
	Default  any
	Enum     []string
	Min, Max int  // integer bounds; 0: none
	NonNeg   bool // minimum 0 (agno's ge=0)
}

// Route is one route, declared once: the mux serves Handler under
// Pattern, the key and JWT checks apply Access (agentos/route.go), and
// the rest documents it in /openapi.json and /docs. An Interface and a
// route group declare their routes as rows too.
type Route struct {
	Pattern string // ServeMux pattern, "GET /agents/{agent_id}"
	Handler http.HandlerFunc
	Access  Access
	// Remote marks a route a service outside this machine calls by design
	// (a webhook it signs, such as Slack's events) with the 403 it answers
	// a bad signature ("Invalid Slack signature"): protected mode lets any
	// client reach it, so its Access must be Open and its handler must
	// check the signature.
	Remote string
	Tag    string
	// TagDesc describes Tag in the documents when the package's own
	// route groups do not (an Interface's tag).
	TagDesc string
	Summary string
	Desc    string
	Query   []Param
	Form    []Param // multipart/form-data or x-www-form-urlencoded body
	JSON    []Param // application/json body
	Status  int     // success status; default 200
	Result  string  // success description
	Schema  string  // components/schemas name of the success body
	Stream  bool    // may answer text/event-stream
	// Served is the ServeMux pattern that serves the route when it is not
	// Pattern: one pattern serves routes ServeMux cannot tell apart
	// (GET /knowledge/content/{id} and GET /knowledge/{id}/sources), each
	// row in turn (register).
	Served string
}

// Method is the method of rt's Pattern.
func (rt Route) Method() string { m, _, _ := strings.Cut(rt.Pattern, " "); return m }

// Path is the path of rt's Pattern.
func (rt Route) Path() string { _, p, _ := strings.Cut(rt.Pattern, " "); return p }

// MuxPattern is the ServeMux pattern serving rt.
func (rt Route) MuxPattern() string { return cmp.Or(rt.Served, rt.Pattern) }

// IsOpen reports whether rt needs no key or token.
func (rt Route) IsOpen() bool { return rt.Access.Open != "" }

// Access is a route's decision on who may call it. Exactly one field is
// set (TestEveryRouteDecidesAccess): build it with Needs, Open or
// CheckedBy.
type Access struct {
	// Scope is the agno scope a JWT must grant ("agents:run"): agno's
	// get_default_scope_mappings for the route, first match
	// (TestRouteScopesAreAgnos). A per-resource scope
	// (agents:<id>:run) grants it for the path's resource.
	Scope string
	// Open says why the route needs no key or token at all.
	Open string
	// Check names what the handler checks itself; the middleware only
	// wants a valid key or token.
	Check string
}

// Needs is a route a JWT must grant scope for.
func Needs(scope string) Access { return Access{Scope: scope} }

// Open is a route that needs no key or token, for the reason why.
func Open(why string) Access { return Access{Open: why} }

// CheckedBy is a route whose handler checks access (the check names the
// function that does); the middleware wants any valid key or token.
func CheckedBy(check string) Access { return Access{Check: check} }

// Decided reports whether exactly one field of a is set.
func (a Access) Decided() bool {
	n := 0
	for _, f := range []string{a.Scope, a.Open, a.Check} {
		if f != "" {
			n++
		}
	}
	return n == 1
}

// Query parameters every data route takes (agno's get_db).
var (
	DBQuery    = Param{Name: "db_id", Type: "string", Desc: "Database to use when several are configured"}
	TableQuery = Param{Name: "table", Type: "string", Desc: "Table to use (needs db_id)"}
)
