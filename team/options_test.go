package team_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/team"
)

// The leader runs as an agent with the team's options: every team.Config
// field an agent also has (same name and type) reaches it with no list to
// keep; the others are the team's own. A field named like an agent option
// but typed differently would silently not reach the leader, so it fails
// here.
func TestTeamOptionsReachTheLeader(t *testing.T) {
	teamOnly := []string{"Members", "Mode", "RespondDirectly", "DelegateToAllMembers", "DetermineInputForMembers",
		"MaxIterations", "AddTeamHistoryToMembers", "NumTeamHistoryRuns", "ShareMemberInteractions",
		"GetMemberInformationTool", "AddMemberToolsToContext", "StreamMemberEvents", "StoreMemberResponses"}
	tt, at := reflect.TypeFor[team.Config](), reflect.TypeFor[agent.Config]()
	shared := engine.SharedFields(tt)
	for i := range tt.NumField() {
		f := tt.Field(i)
		switch {
		case slices.Contains(shared, f.Name):
		case slices.Contains(teamOnly, f.Name):
			if g, ok := at.FieldByName(f.Name); ok {
				t.Errorf("team.Config.%s is %s, agent.Config.%s is %s: one option, two types", f.Name, f.Type, f.Name, g.Type)
			}
		default:
			t.Errorf("team.Config.%s (%s) neither reaches the leader nor is a team-only option", f.Name, f.Type)
		}
	}
	if len(shared) < 30 {
		t.Errorf("only %d shared options: %v", len(shared), shared)
	}
}
