package httpapi

// PageQuery is the page of a paginated listing, from 1.
var PageQuery = Param{Name: "page", Type: "integer", Desc: "Page number", Default: 1, Min: 1}
