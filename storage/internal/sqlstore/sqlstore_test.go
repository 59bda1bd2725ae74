package sqlstore

import (
	"math"
	"strconv"
	"testing"
)

func TestLimitOffset(t *testing.T) {
	maxInt := strconv.Itoa(math.MaxInt)
	for _, c := range []struct {
		limit, page int
		want        string
	}{
		{0, 3, ""},
		{-1, 1, ""},
		{20, 0, " LIMIT 20 OFFSET 0"},
		{20, -5, " LIMIT 20 OFFSET 0"},
		{20, 1, " LIMIT 20 OFFSET 0"},
		{20, 3, " LIMIT 20 OFFSET 40"},
		{20, math.MaxInt, " LIMIT 0"},
		{math.MaxInt, 2, " LIMIT " + maxInt + " OFFSET " + maxInt},
		{math.MaxInt, 3, " LIMIT 0"},
	} {
		if got := LimitOffset(c.limit, c.page); got != c.want {
			t.Errorf("LimitOffset(%d, %d) = %q, want %q", c.limit, c.page, got, c.want)
		}
	}
}
