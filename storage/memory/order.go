package memory

import (
	"cmp"
	"slices"
	"strings"

	"github.com/agno-go/agno/storage"
)

// scope is what a session listing filters on: type, owner
// (Session.ComponentID) and user, "" for any. A session is in every scope
// its own values or "" make up.
type scope struct {
	typ         storage.SessionType
	owner, user string
}

// createdKey orders sessions as the SQL listings do: created_at, then
// session_id.
type createdKey struct {
	created int64
	id      string
}

func compareCreated(a, b createdKey) int {
	return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(a.id, b.id))
}

// sessionOrder keeps, per scope, the sessions in creation order, so a
// listing in that order (agno's default) reads its page from one end and
// its total_count is a length: its cost does not grow with the store.
type sessionOrder map[scope][]createdKey

func keyOf(s *storage.Session) createdKey { return createdKey{s.CreatedAt, s.SessionID} }

// scopesOf lists the scopes s is in (up to eight).
func scopesOf(s *storage.Session) []scope {
	types := []storage.SessionType{""}
	if s.SessionType != "" {
		types = append(types, s.SessionType)
	}
	owners, users := []string{""}, []string{""}
	if o := s.ComponentID(); o != "" {
		owners = append(owners, o)
	}
	if s.UserID != "" {
		users = append(users, s.UserID)
	}
	out := make([]scope, 0, len(types)*len(owners)*len(users))
	for _, t := range types {
		for _, o := range owners {
			for _, u := range users {
				out = append(out, scope{t, o, u})
			}
		}
	}
	return out
}

func (o sessionOrder) add(s *storage.Session) {
	k := keyOf(s)
	for _, sc := range scopesOf(s) {
		keys := o[sc]
		i, _ := slices.BinarySearchFunc(keys, k, compareCreated)
		o[sc] = slices.Insert(keys, i, k)
	}
}

func (o sessionOrder) remove(s *storage.Session) {
	k := keyOf(s)
	for _, sc := range scopesOf(s) {
		keys := o[sc]
		if i, ok := slices.BinarySearchFunc(keys, k, compareCreated); ok {
			keys = slices.Delete(keys, i, i+1)
		}
		o.set(sc, keys)
	}
}

// removeAll removes many sessions with one pass over each scope they are
// in (one removal at a time moves the rest of the scope each time).
func (o sessionOrder) removeAll(ss []*storage.Session) {
	if len(ss) == 1 {
		o.remove(ss[0])
		return
	}
	gone := map[scope]map[createdKey]bool{}
	for _, s := range ss {
		for _, sc := range scopesOf(s) {
			if gone[sc] == nil {
				gone[sc] = map[createdKey]bool{}
			}
			gone[sc][keyOf(s)] = true
		}
	}
	for sc, keys := range gone {
		o.set(sc, slices.DeleteFunc(o[sc], func(k createdKey) bool { return keys[k] }))
	}
}

func (o sessionOrder) set(sc scope, keys []createdKey) {
	if len(keys) == 0 {
		delete(o, sc)
	} else {
		o[sc] = keys
	}
}

// replace moves a session whose listing keys changed.
func (o sessionOrder) replace(old, next *storage.Session) {
	if keyOf(old) == keyOf(next) && old.SessionType == next.SessionType && old.ComponentID() == next.ComponentID() && old.UserID == next.UserID {
		return
	}
	o.remove(old)
	o.add(next)
}

// inCreationOrder reports whether q is a listing sessionOrder answers:
// in creation order (the default sort).
func inCreationOrder(q storage.SessionQuery) bool {
	return q.SortBy == "" || q.SortBy == "created_at"
}

// page is q's page and total_count, in creation order, from the
// sessions in q's scope; get looks a session up by id.
func (o sessionOrder) page(q storage.SessionQuery, get func(id string) *storage.Session) ([]*storage.Session, int) {
	keys := o[scope{q.SessionType, q.ComponentID, q.UserID}]
	at := func(i int) *storage.Session {
		if q.SortOrder == storage.Asc {
			return get(keys[i].id)
		}
		return get(keys[len(keys)-1-i].id)
	}
	if q.NameContains == "" && q.CreatedAfter == 0 && q.CreatedBefore == 0 {
		// Every session of the scope matches: the page is a range of it.
		start, end := pageRange(len(keys), q.Limit, q.Page)
		out := make([]*storage.Session, 0, end-start)
		for i := start; i < end; i++ {
			out = append(out, at(i).Clone())
		}
		return out, len(keys)
	}
	var matched []*storage.Session
	for i := range keys {
		x := at(i)
		if q.NameContains != "" && !strings.Contains(strings.ToLower(x.SessionName), strings.ToLower(q.NameContains)) {
			continue
		}
		if (q.CreatedAfter != 0 && x.CreatedAt < q.CreatedAfter) || (q.CreatedBefore != 0 && x.CreatedAt > q.CreatedBefore) {
			continue
		}
		matched = append(matched, x)
	}
	return clonePage(matched, q.Limit, q.Page), len(matched)
}
