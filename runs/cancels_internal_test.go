package runs

import (
	"context"
	"sync"
	"testing"
)

// A cancel (a poll or a signal) racing a run's unregister (its end) is
// safe: under -race this failed when cancel read the list that
// unregister clears in place.
func TestCancelRacesUnregister(t *testing.T) {
	c := newCancels()
	var wg sync.WaitGroup
	for range 200 {
		_, cancel := context.WithCancelCause(context.Background())
		keep := c.register("r", cancel)
		unregister := c.register("r", cancel)
		wg.Go(func() { c.cancel("r") })
		wg.Go(unregister)
		wg.Wait()
		keep()
	}
	if c.registered("r") {
		t.Fatal("a run stays registered after both unregistered")
	}
}
