package main

import (
	"context"
	"strings"
	"testing"
)

func TestReasoningOffline(t *testing.T) {
	var out strings.Builder
	if err := runReasoning(context.Background(), "Is 1001 a prime number?", true, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"· ## Try small primes", "Result: 1001 = 7 × 11 × 13", "· ## Conclude", "→\nNo: 1001 = 7 × 11 × 13."} {
		if !strings.Contains(got, want) {
			t.Fatalf("output lacks %q:\n%s", want, got)
		}
	}
}

func TestReasoningNamesEnvVars(t *testing.T) {
	t.Setenv("AGNO_BASE_URL", "")
	err := runReasoning(context.Background(), "x", false, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "AGNO_BASE_URL") {
		t.Fatalf("error %v", err)
	}
}
