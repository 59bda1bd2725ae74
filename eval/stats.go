package eval

import (
	"math"
	"slices"
)

// The statistics agno computes with Python's statistics module.

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// stdev is the sample standard deviation (statistics.stdev); 0 for fewer
// than two values, as agno reports.
func stdev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// median is statistics.median of a sorted slice.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// p95 is statistics.quantiles(data, n=100)[94] (the default "exclusive"
// method) of a sorted slice; 0 for fewer than two values, as agno.
func p95(sorted []float64) float64 {
	ld := len(sorted)
	if ld < 2 {
		return 0
	}
	const n, i = 100, 95
	m := ld + 1
	j := i * m / n
	j = max(1, min(j, ld-1))
	delta := i*m - j*n
	return (sorted[j-1]*float64(n-delta) + sorted[j]*float64(delta)) / n
}

// summary is avg, min, max, std dev, median and p95 of xs (agno's
// safe_stats); all 0 when xs is empty.
type summary struct{ avg, min, max, std, median, p95 float64 }

func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return summary{avg: mean(s), min: s[0], max: s[len(s)-1], std: stdev(s), median: median(s), p95: p95(s)}
}
