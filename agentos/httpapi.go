package agentos

import "github.com/agno-go/agno/agentos/internal/httpapi"

// The route row and agno's answer shapes live in the core every route
// group builds on (agentos/internal/httpapi); these are the package's
// names for them.

// Param is one documented parameter of a Route: a query parameter or a
// field of a form or JSON body.
type Param = httpapi.Param

// Route is one route, declared once: the mux serves Handler under
// Pattern, the key and JWT checks apply Access (route.go), and the rest
// documents it in /openapi.json and /docs. An Interface declares its
// routes as rows too.
type Route = httpapi.Route

// Access is a route's decision on who may call it. Exactly one field is
// set (TestEveryRouteDecidesAccess): build it with Needs, Open or
// CheckedBy.
type Access = httpapi.Access

// Needs is a route a JWT must grant scope for.
func Needs(scope string) Access { return httpapi.Needs(scope) }

// Open is a route that needs no key or token, for the reason why.
func Open(why string) Access { return httpapi.Open(why) }

// CheckedBy is a route whose handler checks access (the check names the
// function that does); the middleware wants any valid key or token.
func CheckedBy(check string) Access { return httpapi.CheckedBy(check) }

type (
	apiParam  = Param
	apiRoute  = Route
	httpError = httpapi.StatusError
)

// The package's own rows use the short names.
var (
	needs = Needs
	open  = Open
)

var (
	marshal    = httpapi.Marshal
	writeJSON  = httpapi.WriteJSON
	writeError = httpapi.WriteError
	errStatus  = httpapi.ErrStatus
)

// The request helpers and the caller live in the core too.
type (
	caller    = httpapi.Caller
	principal = httpapi.Principal
)

var (
	withCaller      = httpapi.WithCaller
	callerOf        = httpapi.CallerOf
	decodePrincipal = httpapi.DecodePrincipal
	scopedUser      = httpapi.ScopedUser
	nullString      = httpapi.NullString
	isNil           = httpapi.IsNil
)

// A stored run's document is read as the core reads it, shared with the
// run and session routes.
var readStored = httpapi.ReadStored

// PaginationInfo is agno's PaginationInfo.
type PaginationInfo = httpapi.PaginationInfo

// PaginatedResponse is agno's PaginatedResponse[T]; Data is a slice of
// the route's item model.
type PaginatedResponse = httpapi.PaginatedResponse

// limits bound a form request (forms.go; the knowledge uploads read
// forms in the core too).
type limits = httpapi.FormLimits

// How a run that could not start is answered is the core's, shared with
// the run routes (agentos/runsapi).
const shuttingDown = httpapi.ShuttingDown

var (
	refusedText = httpapi.RefusedText
	runError    = httpapi.RunError
)
