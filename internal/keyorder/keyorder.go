// Package keyorder keeps the ids of in-memory rows in a listing's order
// (a time, then the id, as the SQL listings order them), per scope (what
// a listing filters on), so a page is read from one end and total_count
// is a length: the listing's cost does not grow with the store.
package keyorder

import (
	"cmp"
	"slices"
	"strings"
)

// Key is a row's place: its time, then its id.
type Key struct {
	At int64
	ID string
}

func compare(a, b Key) int {
	return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.ID, b.ID))
}

// Order holds, per scope, the keys of the rows in that scope, ascending.
type Order[S comparable] map[S][]Key

// Add puts k in each of scopes.
func (o Order[S]) Add(k Key, scopes []S) {
	for _, sc := range scopes {
		keys := o[sc]
		i, _ := slices.BinarySearchFunc(keys, k, compare)
		o[sc] = slices.Insert(keys, i, k)
	}
}

// Remove takes k out of each of scopes.
func (o Order[S]) Remove(k Key, scopes []S) {
	for _, sc := range scopes {
		keys := o[sc]
		if i, ok := slices.BinarySearchFunc(keys, k, compare); ok {
			keys = slices.Delete(keys, i, i+1)
		}
		o.set(sc, keys)
	}
}

// RemoveAll removes many rows with one pass over each scope they are in
// (one removal at a time moves the rest of the scope each time); a scope
// losing one row has it found by search.
func (o Order[S]) RemoveAll(gone map[S]map[Key]bool) {
	for sc, keys := range gone {
		if len(keys) == 1 {
			for k := range keys {
				o.Remove(k, []S{sc})
			}
			continue
		}
		o.set(sc, slices.DeleteFunc(o[sc], func(k Key) bool { return keys[k] }))
	}
}

func (o Order[S]) set(sc S, keys []Key) {
	if len(keys) == 0 {
		delete(o, sc)
	} else {
		o[sc] = keys
	}
}

// Window is the ids of one page of scope sc (newest first unless asc)
// and the scope's size.
func (o Order[S]) Window(sc S, asc bool, limit, page int) ([]string, int) {
	keys := o[sc]
	start, end := PageRange(len(keys), limit, page)
	ids := make([]string, 0, end-start)
	for i := start; i < end; i++ {
		if asc {
			ids = append(ids, keys[i].ID)
		} else {
			ids = append(ids, keys[len(keys)-1-i].ID)
		}
	}
	return ids, len(keys)
}

// All is every id of scope sc in listing order.
func (o Order[S]) All(sc S, asc bool) []string {
	ids, _ := o.Window(sc, asc, 0, 1)
	return ids
}

// Gather groups the keys of rows by the scopes they are in, for RemoveAll.
func Gather[T any, S comparable](rows []T, key func(T) Key, scopes func(T) []S) map[S]map[Key]bool {
	gone := map[S]map[Key]bool{}
	for _, r := range rows {
		for _, sc := range scopes(r) {
			if gone[sc] == nil {
				gone[sc] = map[Key]bool{}
			}
			gone[sc][key(r)] = true
		}
	}
	return gone
}

// PageRange is the [start, end) of the 1-based page of limit items out
// of n (limit 0: all of them); a page past the end is empty.
func PageRange(n, limit, page int) (start, end int) {
	if limit <= 0 {
		return 0, n
	}
	page = max(page, 1)
	if page-1 > n/limit {
		return n, n // also guards (page-1)*limit against overflow
	}
	start = min((page-1)*limit, n)
	return start, min(start+limit, n)
}
