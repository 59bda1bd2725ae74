package tracesapi

import "testing"

func TestOTLPTracesURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://collector:4318":                      "http://collector:4318/v1/traces",
		"http://collector:4318/":                     "http://collector:4318/v1/traces",
		"https://collector.example/custom/v1/traces": "https://collector.example/custom/v1/traces",
	} {
		if got := otlpTracesURL(in); got != want {
			t.Errorf("otlpTracesURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for ms, want := range map[int64]string{0: "0ms", 999: "999ms", 1000: "1.00s", 1504: "1.50s", 61234: "61.23s"} {
		if got := formatDuration(ms); got != want {
			t.Errorf("formatDuration(%d) = %q, want %q", ms, got, want)
		}
	}
}
