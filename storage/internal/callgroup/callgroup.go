// Package callgroup sends concurrent calls to a database together: while
// one group is on its way, the calls that arrive wait, and then one of
// them sends them all as the next group. A statement or a round trip
// costs more than the rows it carries, so under concurrency this is most
// of a hot write's or read's cost; alone, a call goes at once.
package callgroup

import "sync"

// Queue groups calls carrying items of type T. The zero Queue sends up to
// DefaultMax items a group.
type Queue[T any] struct {
	// Max bounds a group (0: DefaultMax).
	Max int
	// Fits reports whether item may join group (nil: any may): items that
	// must not go together (two writes of one new row) wait for a later
	// group, in their order.
	Fits func(group []T, item T) bool
	// Gather, when set, runs as a caller begins to lead, before it takes
	// its group: a chance for calls on their way to join.
	Gather func()

	mu      sync.Mutex
	pending []*waiter[T]
	leading bool
}

// DefaultMax is a group's size when Queue.Max is 0.
const DefaultMax = 64

type waiter[T any] struct {
	item T
	// done says true when the item's group was sent, false when this
	// caller is to send the next group.
	done chan bool
}

// Do returns once item was sent in a group: by this caller, with the
// items pending beside it, or by another. send gets each group once, in
// the order the items came, item first when this caller sends; it
// reports results through the items.
func (q *Queue[T]) Do(item T, send func(group []T)) {
	w := &waiter[T]{item: item, done: make(chan bool, 1)}
	q.mu.Lock()
	q.pending = append(q.pending, w)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead && <-w.done {
		return
	}
	// Leading: w is the first pending, so it is in the group.
	if q.Gather != nil {
		q.Gather()
	}
	q.mu.Lock()
	group := q.take()
	q.mu.Unlock()
	items := make([]T, len(group))
	for i, g := range group {
		items[i] = g.item
	}
	send(items)
	q.mu.Lock()
	if len(q.pending) > 0 {
		q.pending[0].done <- false
	} else {
		q.leading = false
		q.pending = nil
	}
	q.mu.Unlock()
	for _, g := range group[1:] {
		g.done <- true
	}
}

// Pending is how many calls wait for a group.
func (q *Queue[T]) Pending() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.pending)
}

// take removes the next group from pending; needs q.mu.
func (q *Queue[T]) take() []*waiter[T] {
	limit := q.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	var group, rest []*waiter[T]
	var items []T
	for _, w := range q.pending {
		if len(group) < limit && (q.Fits == nil || len(group) == 0 || q.Fits(items, w.item)) {
			group = append(group, w)
			items = append(items, w.item)
			continue
		}
		rest = append(rest, w)
	}
	q.pending = rest
	return group
}
