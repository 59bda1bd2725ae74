package runsapi

import (
	"fmt"
	"testing"
	"time"
)

// Intents are bounded in time and count, and used once, by their owner
// on their component only.
func TestCancelIntents(t *testing.T) {
	var c cancelIntents
	now := time.Now()
	c.add("r1", "alice", "agent-a", now)
	if c.take("r1", "bob", "agent-a", now) {
		t.Error("bob's run took alice's intent")
	}
	if c.take("r1", "alice", "agent-a", now) {
		t.Error("an intent outlived a run that was not its owner's")
	}
	c.add("r2", "alice", "agent-a", now)
	if c.take("r2", "alice", "agent-b", now) {
		t.Error("an intent on agent-a cancelled agent-b's run")
	}
	c.add("r3", "alice", "agent-a", now)
	if c.take("r3", "alice", "agent-a", now.Add(cancelIntentTTL)) {
		t.Error("an intent outlived its minute")
	}
	c.add("r4", "alice", "agent-a", now)
	if !c.take("r4", "alice", "agent-a", now.Add(time.Second)) {
		t.Error("an intent was not used by its owner's run")
	}
	if c.take("r4", "alice", "agent-a", now.Add(time.Second)) {
		t.Error("an intent was used twice")
	}

	for i := range maxCancelIntents {
		if !c.add(fmt.Sprint("fill-", i), "alice", "agent-a", now) {
			t.Fatalf("intent %d refused below the bound", i)
		}
	}
	if c.add("one-more", "alice", "agent-a", now) {
		t.Error("the table grew past its bound")
	}
	if !c.add("later", "alice", "agent-a", now.Add(cancelIntentTTL)) {
		t.Error("expired intents were not dropped for a new one")
	}
	if n := len(c.m); n != 1 {
		t.Errorf("%d intents after the expired ones went, want 1", n)
	}
}
