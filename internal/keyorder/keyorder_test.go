package keyorder

import (
	"math"
	"slices"
	"testing"
)

func TestWindowAndRemoval(t *testing.T) {
	o := Order[string]{}
	for _, k := range []Key{{3, "c"}, {1, "a"}, {3, "b"}, {2, "z"}} {
		o.Add(k, []string{"", "x"})
	}
	if ids, n := o.Window("", false, 2, 1); n != 4 || !slices.Equal(ids, []string{"c", "b"}) {
		t.Fatalf("newest page: %v of %d", ids, n)
	}
	if ids, _ := o.Window("x", true, 3, 2); !slices.Equal(ids, []string{"c"}) {
		t.Fatalf("oldest, page 2: %v", ids)
	}
	o.Remove(Key{3, "b"}, []string{""})
	o.RemoveAll(Gather([]Key{{1, "a"}, {2, "z"}}, func(k Key) Key { return k }, func(Key) []string { return []string{"x"} }))
	if got := o.All("", true); !slices.Equal(got, []string{"a", "z", "c"}) {
		t.Fatalf("all after removals: %v", got)
	}
	if got := o.All("x", true); !slices.Equal(got, []string{"b", "c"}) {
		t.Fatalf("scope x after removals: %v", got)
	}
	o.RemoveAll(Gather([]Key{{3, "b"}, {3, "c"}}, func(k Key) Key { return k }, func(Key) []string { return []string{"x"} }))
	if _, ok := o["x"]; ok {
		t.Fatal("an emptied scope is kept")
	}
}

func TestPageRange(t *testing.T) {
	for _, c := range []struct{ n, limit, page, start, end int }{
		{10, 0, 5, 0, 10}, {10, 3, 0, 0, 3}, {10, 3, 4, 9, 10}, {10, 3, 5, 10, 10},
		{10, 3, math.MaxInt, 10, 10}, {10, math.MaxInt, 2, 10, 10},
	} {
		if s, e := PageRange(c.n, c.limit, c.page); s != c.start || e != c.end {
			t.Errorf("PageRange(%d, %d, %d) = [%d, %d), want [%d, %d)", c.n, c.limit, c.page, s, e, c.start, c.end)
		}
	}
}
