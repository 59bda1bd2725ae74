package run_test

import (
	"testing"

	"github.com/agno-go/agno/run"
	"github.com/google/uuid"
)

// BenchmarkNewID and BenchmarkUUIDNewString back the allocation figures
// in NewID's comment.
func BenchmarkNewID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = run.NewID()
	}
}

func BenchmarkUUIDNewString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = uuid.NewString()
	}
}

// uuid reads NewID's ids as version 4, RFC 4122 variant.
func TestNewIDParsesAsV4(t *testing.T) {
	u, err := uuid.Parse(run.NewID())
	if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("NewID = %v (%v): version %v variant %v", u, err, u.Version(), u.Variant())
	}
}
