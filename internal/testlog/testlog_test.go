package testlog

import (
	"log/slog"
	"sync"
	"testing"
)

func TestBuffer(t *testing.T) {
	var b Buffer
	log := slog.New(slog.NewJSONHandler(&b, nil))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { log.Info("hit", "n", 1) })
	}
	wg.Wait()
	_, _ = b.Write([]byte("not json\n"))
	log.Warn("other")
	if n := len(b.Messages("hit")); n != 8 {
		t.Errorf("%d hit records", n)
	}
	if n := len(b.Records()); n != 9 {
		t.Errorf("%d records", n)
	}
}
