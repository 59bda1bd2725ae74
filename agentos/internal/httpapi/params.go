package httpapi

// The query parameters of the list and per-user data routes, as
// documented for the handlers that read them with Query.Int and
// Query.Enum: shared by the groups in agentos and those in their own
// packages.
var (
	UserQuery      = Param{Name: "user_id", Type: "string", Desc: "Restrict to this user's data"}
	PageQuery      = Param{Name: "page", Type: "integer", Desc: "Page number", Default: 1, Min: 1}
	Page0Query     = Param{Name: "page", Type: "integer", Desc: "Page number (0 reads the first page too)", Default: 1, NonNeg: true}
	LimitQuery     = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: MaxPageLimit}
	SortOrderQuery = Param{Name: "sort_order", Type: "string", Desc: "Sort direction", Enum: []string{"asc", "desc"}}
	// Limit100Query is the limit of the registry and component listings,
	// which take at most 100 items a page (agno's le=100).
	Limit100Query = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: 100}
)
