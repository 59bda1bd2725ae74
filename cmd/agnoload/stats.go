package main

import (
	"math"
	"slices"
	"time"
)

// Distribution summarises latency samples in milliseconds.
type Distribution struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summarize sorts samples in place and returns their distribution. Every
// sample is kept, so percentiles are exact rather than bucketed.
func summarize(samples []time.Duration) Distribution {
	if len(samples) == 0 {
		return Distribution{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	return Distribution{
		Count: len(samples),
		Mean:  ms(sum / time.Duration(len(samples))),
		P50:   ms(percentile(samples, 50)),
		P90:   ms(percentile(samples, 90)),
		P99:   ms(percentile(samples, 99)),
		Max:   ms(samples[len(samples)-1]),
	}
}

// percentile is the nearest-rank percentile of sorted samples: the
// smallest sample with at least p% of the samples at or below it.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(rank, 1), n)-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
