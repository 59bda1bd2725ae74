package shell

import (
	"context"
	"testing"
)

// BenchmarkRunTrue is the overhead of one command: process group, pipes,
// exit observation and reaping.
func BenchmarkRunTrue(b *testing.B) {
	r, err := newRunner(Config{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.call(ctx, []string{"true"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
