package httpapi

// Limit100Query is the limit of the registry and component listings,
// which take at most 100 items a page (agno's le=100).
var Limit100Query = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: 100}
