package run

import (
	"reflect"
	"strings"
	"testing"
)

// Every event type decodes back to itself from its own Kind, and agent
// events also under their team name.
func TestDecodeEveryKind(t *testing.T) {
	check := func(name string, ctor func() Event, teamID string) {
		t.Helper()
		e := ctor()
		e.Base().TeamID = teamID
		b, err := EncodeJSON(Stamp(e))
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if reflect.TypeOf(got) != reflect.TypeOf(e) || got.Kind() != e.Kind() {
			t.Fatalf("%s decoded as %T (%s), want %T (%s)", name, got, got.Kind(), e, e.Kind())
		}
	}
	for name, ctor := range eventTypes {
		check(name, ctor, "")
		team := ctor()
		team.Base().TeamID = "t"
		if team.Kind() != "Team"+name {
			t.Fatalf("team kind of %s = %s", name, team.Kind())
		}
		check("Team"+name, ctor, "t")
	}
	for name, ctor := range otherEventTypes {
		if _, clash := eventTypes[strings.TrimPrefix(name, "Team")]; clash {
			t.Fatalf("%s is in both tables", name)
		}
		check(name, ctor, "")
	}
	if len(eventTypes) != 30 || len(otherEventTypes) != 35 {
		t.Fatalf("%d agent and %d other event types, want 30 and 35", len(eventTypes), len(otherEventTypes))
	}
	if _, err := DecodeEvent([]byte(`{"event":"NoSuchEvent"}`)); err == nil {
		t.Fatal("unknown event decoded")
	}
}
