package agent_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
)

// Retries wait delay_between_retries, doubled per attempt with
// exponential_backoff (agno: delay * 2**attempt). synctest's virtual
// clock makes the waits exact and instant: no wall-clock time is measured.
func TestRetryBackoff(t *testing.T) {
	for _, tc := range []struct {
		exponential bool
		want        []time.Duration
	}{
		{false, []time.Duration{time.Second, time.Second, time.Second}},
		{true, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
	} {
		synctest.Test(t, func(t *testing.T) {
			var at []time.Time
			fake := modeltest.NewFunc(func(*model.Request) modeltest.Response {
				at = append(at, time.Now())
				if len(at) <= 3 {
					return modeltest.Response{Err: errors.New("flaky")}
				}
				return modeltest.Response{Content: "ok"}
			})
			a := newAgent(t, agent.Config{Model: fake, Retries: 3, DelayBetweenRetries: time.Second, ExponentialBackoff: tc.exponential})
			out, _ := a.Run(context.Background(), "go")
			if out.Status != run.StatusCompleted || out.Content != "ok" || len(at) != 4 {
				t.Fatalf("status %s content %q attempts %d", out.Status, out.Content, len(at))
			}
			for i, w := range tc.want {
				if got := at[i+1].Sub(at[i]); got != w {
					t.Errorf("exponential=%v: wait before attempt %d = %s, want %s", tc.exponential, i+2, got, w)
				}
			}
		})
	}
}
