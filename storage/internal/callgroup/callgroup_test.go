package callgroup

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type item struct {
	key  int
	sent atomic.Int32
}

// Every call is sent once, in a group that fits, no larger than Max, and
// calls that arrive during a send go together afterwards.
func TestEveryCallIsSentOnceInAGroupThatFits(t *testing.T) {
	q := &Queue[*item]{Max: 8, Fits: func(group []*item, it *item) bool {
		for _, g := range group {
			if g.key == it.key {
				return false
			}
		}
		return true
	}}
	const callers, each = 32, 50
	var groups atomic.Int32
	var mu sync.Mutex
	largest := 0
	var wg sync.WaitGroup
	items := make([]*item, 0, callers*each)
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				it := &item{key: (c*each + i) % 5}
				mu.Lock()
				items = append(items, it)
				mu.Unlock()
				q.Do(it, func(group []*item) {
					if group[0] != it {
						t.Error("the sender's own item is not first in its group")
					}
					n := groups.Add(1)
					keys := map[int]bool{}
					for _, g := range group {
						if keys[g.key] {
							t.Errorf("group %d holds key %d twice", n, g.key)
						}
						keys[g.key] = true
						g.sent.Add(1)
					}
					mu.Lock()
					largest = max(largest, len(group))
					mu.Unlock()
					time.Sleep(50 * time.Microsecond) // a round trip
				})
				if it.sent.Load() != 1 {
					t.Errorf("Do returned before its item was sent (%d sends)", it.sent.Load())
				}
			}
		})
	}
	wg.Wait()
	for _, it := range items {
		if it.sent.Load() != 1 {
			t.Fatalf("an item was sent %d times", it.sent.Load())
		}
	}
	if l := largest; l > 8 || l < 2 {
		t.Errorf("largest group %d: want calls grouped, at most Max (8)", l)
	}
	if g := groups.Load(); g >= callers*each {
		t.Errorf("%d groups for %d calls: nothing was grouped", g, callers*each)
	}
}

// A call alone is sent at once, by its caller.
func TestALoneCallIsSentAtOnce(t *testing.T) {
	var q Queue[int]
	for i := range 3 {
		sent := false
		q.Do(i, func(group []int) {
			if len(group) != 1 || group[0] != i {
				t.Errorf("group %v, want [%d]", group, i)
			}
			sent = true
		})
		if !sent {
			t.Fatal("a lone call was not sent by its caller")
		}
	}
}

// Gather runs as a caller begins to lead: a call that arrives meanwhile
// goes in its group.
func TestGatherLetsACallJoin(t *testing.T) {
	var q Queue[int]
	var wg sync.WaitGroup
	var groups [][]int
	var mu sync.Mutex
	send := func(group []int) {
		mu.Lock()
		groups = append(groups, append([]int(nil), group...))
		mu.Unlock()
	}
	first := true
	q.Gather = func() {
		if !first {
			return
		}
		first = false
		wg.Go(func() { q.Do(2, send) })
		for q.Pending() < 2 {
			time.Sleep(time.Millisecond)
		}
	}
	q.Do(1, send)
	wg.Wait()
	if len(groups) != 1 || len(groups[0]) != 2 || groups[0][0] != 1 || groups[0][1] != 2 {
		t.Fatalf("groups %v, want [[1 2]]", groups)
	}
}
