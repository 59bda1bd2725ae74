package httpapi

import "reflect"

// Query parameters of agno's paged lists: the page, and the limit of the
// registry's and the components' lists (at most 100; others allow
// MaxPageLimit).
var (
	PageQuery          = Param{Name: "page", Type: "integer", Desc: "Page number", Default: 1, Min: 1}
	RegistryLimitQuery = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: 100}
)

// IsNil reports a nil interface or an interface holding a nil pointer
// (a typed nil model or store), which v == nil misses.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}
