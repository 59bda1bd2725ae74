package team_test

import (
	"context"
	"errors"
	"testing"

	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// The team loop is the agent's: TeamToolCallError only with stream_events.
func TestTeamToolCallErrorOnlyWithStreamEvents(t *testing.T) {
	fail := tool.Must(tool.New("fail", "errors", func(context.Context, struct{}) (string, error) { return "", errors.New("disk full") }))
	for _, events := range []bool{false, true} {
		leader := modeltest.New(call("c1", "fail", `{}`), text("recovered"))
		tm := newTeam(t, team.Config{Name: "T", Model: leader, Tools: []tool.Provider{fail},
			Members: []run.Executor{member(t, "M", "", modeltest.New(text("m")))}})
		evs := collect(t, tm.RunStream(context.Background(), "go", run.WithStreamEvents(events)))
		n := 0
		for i, e := range evs {
			if e.Kind() != "TeamToolCallError" {
				continue
			}
			n++
			if evs[i-1].Kind() != "TeamToolCallCompleted" || e.(*run.ToolCallError).Error != "disk full" {
				t.Fatalf("events %s", kinds(evs))
			}
		}
		if want := map[bool]int{false: 0, true: 1}[events]; n != want {
			t.Fatalf("stream_events=%v: %d TeamToolCallError in %s", events, n, kinds(evs))
		}
	}
}

// A cancelled team stream ends TeamRunCancelled then TeamRunCompleted.
func TestTeamCancelStreamEndsCancelledThenCompleted(t *testing.T) {
	started := make(chan struct{})
	block := tool.Must(tool.New("block", "blocks", func(ctx context.Context, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	}))
	tm := newTeam(t, team.Config{Name: "T", Model: modeltest.New(call("c1", "block", `{}`)), Tools: []tool.Provider{block},
		Members: []run.Executor{member(t, "M", "", modeltest.New(text("m")))}})
	go func() {
		<-started
		_, _ = tm.Cancel(context.Background(), "team-c")
	}()
	evs := collect(t, tm.RunStream(context.Background(), "go", run.WithRunID("team-c")))
	if got := kinds(evs); got != "TeamRunCancelled TeamRunCompleted" {
		t.Fatalf("events %s", got)
	}
	if done := evs[1].(*run.RunCompleted); done.Content != evs[0].(*run.RunCancelled).Reason || done.Base().TeamID != "t" {
		t.Fatalf("completed %+v", done)
	}
}
