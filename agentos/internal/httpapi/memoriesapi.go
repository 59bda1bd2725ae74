package httpapi

// Helpers the memory routes (agentos/memoriesapi) share with routes still
// in agentos.

// Query parameters of the list and per-user data routes.
var (
	UserQuery      = Param{Name: "user_id", Type: "string", Desc: "Restrict to this user's data"}
	Page0Query     = Param{Name: "page", Type: "integer", Desc: "Page number (0 reads the first page too)", Default: 1, NonNeg: true}
	LimitQuery     = Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: MaxPageLimit}
	SortOrderQuery = Param{Name: "sort_order", Type: "string", Desc: "Sort direction", Enum: []string{"asc", "desc"}}
)

// OwnedIDs keeps the ids that owned reports as the user's; with no user
// every id is kept.
func OwnedIDs(ids []string, userID string, owned func(id string) (bool, error)) ([]string, error) {
	if userID == "" {
		return ids, nil
	}
	var keep []string
	for _, id := range ids {
		ok, err := owned(id)
		if err != nil {
			return nil, err
		}
		if ok {
			keep = append(keep, id)
		}
	}
	return keep, nil
}
