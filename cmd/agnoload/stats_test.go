package main

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

func msSamples(vals ...int) []time.Duration {
	out := make([]time.Duration, len(vals))
	for i, v := range vals {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func TestSummarize(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	rand.Shuffle(len(hundred), func(i, j int) { hundred[i], hundred[j] = hundred[j], hundred[i] })
	thousand := make([]int, 1000)
	for i := range thousand {
		thousand[i] = 1000 - i
	}
	for _, tc := range []struct {
		name string
		in   []int
		want Distribution
	}{
		{"empty", nil, Distribution{}},
		{"one", []int{7}, Distribution{Count: 1, Mean: 7, P50: 7, P90: 7, P99: 7, Max: 7}},
		{"two", []int{9, 1}, Distribution{Count: 2, Mean: 5, P50: 1, P90: 9, P99: 9, Max: 9}},
		{"1..100 shuffled", hundred, Distribution{Count: 100, Mean: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}},
		{"1000..1 descending", thousand, Distribution{Count: 1000, Mean: 500.5, P50: 500, P90: 900, P99: 990, Max: 1000}},
		// One slow outlier in 10: p90 is still fast, p99 sees it.
		{"outlier", []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 500}, Distribution{Count: 10, Mean: 50.9, P50: 1, P90: 1, P99: 500, Max: 500}},
	} {
		got := summarize(msSamples(tc.in...))
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestPercentileBounds(t *testing.T) {
	s := msSamples(10, 20, 30)
	for p, want := range map[float64]int{0: 10, 33.3: 10, 33.4: 20, 66.7: 30, 100: 30} {
		if got := percentile(s, p); got != time.Duration(want)*time.Millisecond {
			t.Errorf("p%v: %v, want %dms", p, got, want)
		}
	}
	if percentile(nil, 50) != 0 {
		t.Error("empty")
	}
}

func TestParseStatCPU(t *testing.T) {
	// The command name holds spaces and ')'; utime 150, stime 50 ticks.
	stat := "4242 (agno) x (y)) S 1 4242 4242 0 -1 4194560 2000 0 0 0 150 50 0 0 20 0 12 0 1000 800000000 5000 18446744073709551615\n"
	got, err := parseStatCPU([]byte(stat))
	if err != nil {
		t.Fatal(err)
	}
	if got != 2*time.Second {
		t.Fatalf("cpu %v, want 2s", got)
	}
	for _, bad := range []string{"4242 agno S 1", "4242 (agno) S 1 2 3", "4242 (agno) S 1 4242 4242 0 -1 4194560 2000 0 0 0 x 50 0"} {
		if _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseStatusKB(t *testing.T) {
	status := "Name:\tagno\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\n"
	if got, err := parseStatusKB([]byte(status), "VmHWM"); err != nil || got != 51200 {
		t.Fatalf("VmHWM %d, %v", got, err)
	}
	if _, err := parseStatusKB([]byte("Name:\tagno\n"), "VmHWM"); err == nil || !strings.Contains(err.Error(), "no VmHWM") {
		t.Fatalf("missing: %v", err)
	}
}

func TestReadProcSelf(t *testing.T) {
	s, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.PeakKB <= 0 {
		t.Fatalf("%+v", s)
	}
	buf := make([]byte, 1<<16)
	for i := range 100 {
		for j := range buf {
			buf[j] = byte(i + j)
		}
	}
	s2, err := readProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// CPU time only grows. VmHWM is the kernel's max of a recorded peak
	// and the current RSS, whose per-thread counters are folded in
	// lazily: it may dip by a few pages between two reads.
	if s2.CPU < s.CPU || s2.PeakKB < s.PeakKB-s.PeakKB/100 {
		t.Fatalf("went backwards: %+v then %+v", s, s2)
	}
}
