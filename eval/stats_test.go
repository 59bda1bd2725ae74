package eval

import (
	"math"
	"testing"
)

// Golden values from Python's statistics module.
func TestStatsMatchPython(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want summary
	}{
		// statistics.quantiles([1,2,3,4,5], n=100)[94] == 5.7; stdev 1.5811388300841898
		{[]float64{5, 1, 4, 2, 3}, summary{avg: 3, min: 1, max: 5, std: 1.5811388300841898, median: 3, p95: 5.7}},
		// quantiles([0.1,0.2], n=100)[94] == 0.2 + 0.1*0.85 (exclusive, clamped)
		{[]float64{0.2, 0.1}, summary{avg: 0.15000000000000002, min: 0.1, max: 0.2, std: 0.07071067811865477, median: 0.15000000000000002, p95: 0.28500000000000003}},
		{[]float64{2}, summary{avg: 2, min: 2, max: 2, median: 2}},
		{nil, summary{}},
	} {
		got := summarize(tc.xs)
		for name, pair := range map[string][2]float64{"avg": {got.avg, tc.want.avg}, "min": {got.min, tc.want.min}, "max": {got.max, tc.want.max},
			"std": {got.std, tc.want.std}, "median": {got.median, tc.want.median}, "p95": {got.p95, tc.want.p95}} {
			if math.Abs(pair[0]-pair[1]) > 1e-12 {
				t.Errorf("%v %s = %v, want %v", tc.xs, name, pair[0], pair[1])
			}
		}
	}
}
