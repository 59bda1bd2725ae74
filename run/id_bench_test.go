package run_test

import (
	"testing"
	"time"

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

// uuid reads NewID's ids as version 7, RFC 9562 variant, carrying the
// time they were made; ids made in a later millisecond sort later, and
// ids made in the same one differ.
func TestNewIDIsTimeOrdered(t *testing.T) {
	before := time.Now().UnixMilli()
	first := run.NewID()
	u, err := uuid.Parse(first)
	if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
		t.Fatalf("NewID = %v (%v): version %v variant %v", u, err, u.Version(), u.Variant())
	}
	sec, nsec := u.Time().UnixTime()
	if ms := sec*1000 + nsec/1e6; ms < before || ms > time.Now().UnixMilli() {
		t.Fatalf("NewID's time %d ms, made at %d ms", ms, before)
	}
	seen := map[string]bool{first: true}
	prev := first
	for range 1000 {
		id := run.NewID()
		if seen[id] {
			t.Fatalf("NewID repeated %s", id)
		}
		seen[id] = true
		if id[:13] < prev[:13] { // the millisecond part never goes back
			t.Fatalf("NewID %s after %s", id, prev)
		}
		prev = id
	}
	time.Sleep(2 * time.Millisecond)
	if later := run.NewID(); later <= prev {
		t.Fatalf("an id made 2 ms later (%s) sorts before %s", later, prev)
	}
}
