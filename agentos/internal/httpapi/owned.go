package httpapi

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
