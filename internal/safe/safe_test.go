package safe

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestCallTurnsAPanicIntoAnErrorAndLogsIt(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	err := Call(log, "tool crash", func() error {
		var m map[string]int
		//lint:ignore SA5000 the panic is what the test recovers
		m["x"] = 1 // nil map write
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want *PanicError", err)
	}
	if strings.Contains(err.Error(), "nil map") || !strings.Contains(err.Error(), "tool crash") {
		t.Errorf("Error() = %q: must name where, not the panic", err)
	}
	if !strings.Contains(logged.String(), "nil map") || !strings.Contains(logged.String(), "safe_test.go") {
		t.Errorf("log lacks the panic value or stack: %s", logged.String())
	}
	if got := Call(log, "x", func() error { return errSentinel }); got != errSentinel {
		t.Errorf("plain error = %v", got)
	}
}

var errSentinel = errors.New("sentinel")

func TestGoContainsAPanicAndReportsIt(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	var got *PanicError
	Go(slog.New(slog.DiscardHandler), "background run", func() { panic(errSentinel) }, func(pe *PanicError) {
		got = pe
		wg.Done()
	})
	wg.Wait()
	if got == nil || !errors.Is(got, errSentinel) || got.Where != "background run" {
		t.Fatalf("got %+v", got)
	}
}

func TestAPanicReRaisedFromBelowKeepsItsOrigin(t *testing.T) {
	inner := Call(nil, "tool a", func() error { panic("deep") })
	outer := Call(slog.New(slog.DiscardHandler), "agent run", func() error { panic(inner) })
	var pe *PanicError
	if !errors.As(outer, &pe) || pe.Where != "tool a" {
		t.Fatalf("outer = %v", outer)
	}
}
