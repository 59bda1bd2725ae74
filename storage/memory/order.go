package memory

import (
	"slices"
	"strings"

	"github.com/agno-go/agno/internal/keyorder"
	"github.com/agno-go/agno/storage"
)

// --- sessions: in creation order (agno's default) ---

// scope is what a session listing filters on: type, owner
// (Session.ComponentID) and user, "" for any. A session is in every scope
// its own values or "" make up.
type scope struct {
	typ         storage.SessionType
	owner, user string
}

// scopesOf lists the scopes s is in (up to eight).
func scopesOf(s *storage.Session) []scope {
	var out []scope
	each3(anyOr(string(s.SessionType)), anyOr(s.ComponentID()), anyOr(s.UserID), func(t, o, u string) {
		out = append(out, scope{storage.SessionType(t), o, u})
	})
	return out
}

// anyOr is the values a filter on v can take and still match: any (""),
// and v when it is set.
func anyOr(v string) []string {
	if v == "" {
		return []string{""}
	}
	return []string{"", v}
}

// each3 calls fn with every combination of a, b and c.
func each3(a, b, c []string, fn func(x, y, z string)) {
	for _, x := range a {
		for _, y := range b {
			for _, z := range c {
				fn(x, y, z)
			}
		}
	}
}

func sessionKey(s *storage.Session) keyorder.Key {
	return keyorder.Key{At: s.CreatedAt, ID: s.SessionID}
}

// sessionOrder keeps the sessions in creation order per scope.
type sessionOrder struct{ keyorder.Order[scope] }

func (o sessionOrder) add(s *storage.Session)    { o.Order.Add(sessionKey(s), scopesOf(s)) }
func (o sessionOrder) remove(s *storage.Session) { o.Order.Remove(sessionKey(s), scopesOf(s)) }

// replace moves a session whose listing keys changed.
func (o sessionOrder) replace(old, next *storage.Session) {
	if sessionKey(old) == sessionKey(next) && old.SessionType == next.SessionType && old.ComponentID() == next.ComponentID() && old.UserID == next.UserID {
		return
	}
	o.remove(old)
	o.add(next)
}

func (o sessionOrder) removeAll(ss []*storage.Session) {
	o.Order.RemoveAll(keyorder.Gather(ss, sessionKey, scopesOf))
}

// inCreationOrder reports whether q is a listing sessionOrder answers:
// in creation order (the default sort).
func inCreationOrder(q storage.SessionQuery) bool {
	return q.SortBy == "" || q.SortBy == "created_at"
}

// page is q's page and total_count, in creation order, from the
// sessions in q's scope; get looks a session up by id.
func (o sessionOrder) page(q storage.SessionQuery, get func(id string) *storage.Session) ([]*storage.Session, int) {
	sc, asc := scope{q.SessionType, q.ComponentID, q.UserID}, q.SortOrder == storage.Asc
	if q.NameContains == "" && q.CreatedAfter == 0 && q.CreatedBefore == 0 {
		// Every session of the scope matches: the page is a range of it.
		ids, total := o.Window(sc, asc, q.Limit, q.Page)
		out := make([]*storage.Session, len(ids))
		for i, id := range ids {
			out[i] = get(id).Clone()
		}
		return out, total
	}
	var matched []*storage.Session
	for _, id := range o.All(sc, asc) {
		x := get(id)
		if q.NameContains != "" && !strings.Contains(strings.ToLower(x.SessionName), strings.ToLower(q.NameContains)) {
			continue
		}
		if (q.CreatedAfter != 0 && x.CreatedAt < q.CreatedAfter) || (q.CreatedBefore != 0 && x.CreatedAt > q.CreatedBefore) {
			continue
		}
		matched = append(matched, x)
	}
	return clonePage(matched, q.Limit, q.Page, (*storage.Session).Clone), len(matched)
}

// --- memories: by update (agno's default) and by creation ---

// memScope is what a memory listing filters on: user, agent and team, ""
// for any.
type memScope struct{ user, agent, team string }

// memScopesOf lists the scopes m is in (up to eight).
func memScopesOf(m *storage.Memory) []memScope {
	var out []memScope
	each3(anyOr(m.UserID), anyOr(m.AgentID), anyOr(m.TeamID), func(u, a, t string) {
		out = append(out, memScope{u, a, t})
	})
	return out
}

// memoryOrder keeps the memories by update and by creation per scope,
// and the users with memories newest first (user memory stats).
type memoryOrder struct {
	updated, created keyorder.Order[memScope]
	users            keyorder.Order[struct{}] // key: minus the user's last update, the user
}

func newMemoryOrder() memoryOrder {
	return memoryOrder{updated: keyorder.Order[memScope]{}, created: keyorder.Order[memScope]{}, users: keyorder.Order[struct{}]{}}
}

var everyone = []struct{}{{}}

// userKey is u's place among the users (ok false: no memories).
func (o memoryOrder) userKey(u string) (k keyorder.Key, ok bool) {
	keys := o.updated[memScope{user: u}]
	if u == "" || len(keys) == 0 {
		return keyorder.Key{}, false
	}
	return keyorder.Key{At: -keys[len(keys)-1].At, ID: u}, true
}

// restat runs change, then moves the given users to their new places.
func (o memoryOrder) restat(users []string, change func()) {
	before := map[string]keyorder.Key{}
	for _, u := range users {
		if k, ok := o.userKey(u); ok {
			before[u] = k
		}
	}
	change()
	done := map[string]bool{}
	for _, u := range users {
		if done[u] {
			continue
		}
		done[u] = true
		old, had := before[u]
		k, has := o.userKey(u)
		if had && has && old == k {
			continue
		}
		if had {
			o.users.Remove(old, everyone)
		}
		if has {
			o.users.Add(k, everyone)
		}
	}
}

// stats is GET /user_memory_stats: each user's memory count and last
// update, newest first, then by user id.
func (o memoryOrder) stats(userID string, limit, page int) ([]storage.UserMemoryStats, int) {
	stat := func(u string) storage.UserMemoryStats {
		keys := o.updated[memScope{user: u}]
		return storage.UserMemoryStats{UserID: u, TotalMemories: len(keys), LastMemoryUpdatedAt: keys[len(keys)-1].At}
	}
	if userID != "" {
		if _, ok := o.userKey(userID); !ok {
			return []storage.UserMemoryStats{}, 0
		}
		return slices.Clone(paginate([]storage.UserMemoryStats{stat(userID)}, limit, page)), 1
	}
	ids, total := o.users.Window(struct{}{}, true, limit, page)
	out := make([]storage.UserMemoryStats, len(ids))
	for i, u := range ids {
		out[i] = stat(u)
	}
	return out, total
}

func updatedKey(m *storage.Memory) keyorder.Key { return keyorder.Key{At: m.UpdatedAt, ID: m.MemoryID} }
func createdKey(m *storage.Memory) keyorder.Key { return keyorder.Key{At: m.CreatedAt, ID: m.MemoryID} }

// put records next in place of old (nil: a new memory).
func (o memoryOrder) put(old, next *storage.Memory) {
	users := []string{next.UserID}
	if old != nil {
		users = append(users, old.UserID)
	}
	o.restat(users, func() {
		if old != nil {
			o.updated.Remove(updatedKey(old), memScopesOf(old))
			o.created.Remove(createdKey(old), memScopesOf(old))
		}
		o.updated.Add(updatedKey(next), memScopesOf(next))
		o.created.Add(createdKey(next), memScopesOf(next))
	})
}

func (o memoryOrder) removeAll(ms []*storage.Memory) {
	users := make([]string, len(ms))
	for i, m := range ms {
		users[i] = m.UserID
	}
	o.restat(users, func() {
		o.updated.RemoveAll(keyorder.Gather(ms, updatedKey, memScopesOf))
		o.created.RemoveAll(keyorder.Gather(ms, createdKey, memScopesOf))
	})
}

// page answers q when it filters on user, agent and team only; ok is
// false for a query the order does not answer (topics, content search).
func (o memoryOrder) page(q storage.MemoryQuery, get func(id string) *storage.Memory) (page []*storage.Memory, total int, ok bool) {
	if len(q.Topics) > 0 || q.ContentSearch != "" {
		return nil, 0, false
	}
	ord := o.updated
	if q.SortBy == "created_at" {
		ord = o.created
	}
	ids, total := ord.Window(memScope{q.UserID, q.AgentID, q.TeamID}, q.SortOrder == storage.Asc, q.Limit, q.Page)
	page = make([]*storage.Memory, len(ids))
	for i, id := range ids {
		page[i] = cloneMemory(get(id))
	}
	return page, total, true
}
