package httpapi

// The pagination query parameters, as documented for the routes whose
// handlers read them with Query.Int and Query.Enum: shared by the groups
// in agentos and those in their own packages.
var (
	PageQuery      = Param{Name: "page", Type: "integer", Desc: "Page number", Default: 1, Min: 1}
	LimitQuery     = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: MaxPageLimit}
	SortOrderQuery = Param{Name: "sort_order", Type: "string", Desc: "Sort direction", Enum: []string{"asc", "desc"}}
)
