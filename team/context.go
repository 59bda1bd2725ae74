package team

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// interactionsKey holds a team run's member interactions on its run
// context.
type interactionsKey struct{}

type interaction struct{ member, task, response string }

type interactions struct {
	mu   sync.Mutex
	list []interaction
}

// recordInteraction remembers a member's answer for share_member_interactions.
func (t *Team) recordInteraction(rc *run.Context, m run.Executor, task string, out *run.Output) {
	if !t.cfg.ShareMemberInteractions || rc == nil || task == "" {
		return
	}
	in := runInteractions(rc)
	in.mu.Lock()
	in.list = append(in.list, interaction{member: displayName(m), task: task, response: out.ContentString()})
	in.mu.Unlock()
}

// wrapTask prefixes the member task with earlier member interactions of
// this run and the team's history, as agno's format_member_agent_task.
func (t *Team) wrapTask(ctx context.Context, rc *run.Context, task string) string {
	if rc == nil {
		return task
	}
	var inter, hist string
	if t.cfg.ShareMemberInteractions {
		inter = interactionsText(rc)
	}
	if t.cfg.AddTeamHistoryToMembers {
		hist = t.historyText(ctx, rc)
	}
	if inter == "" && hist == "" {
		return task
	}
	var b strings.Builder
	if inter != "" {
		b.WriteString(inter + "\n\n")
	}
	if hist != "" {
		b.WriteString(hist + "\n\n")
	}
	b.WriteString(task)
	return b.String()
}

func runInteractions(rc *run.Context) *interactions {
	if v, ok := rc.Value(interactionsKey{}).(*interactions); ok {
		return v
	}
	v := &interactions{}
	rc.SetValue(interactionsKey{}, v)
	return v
}

func interactionsText(rc *run.Context) string {
	in := runInteractions(rc)
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.list) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<member_interaction_context>\nSee below interactions with other team members.\n")
	for _, i := range in.list {
		fmt.Fprintf(&b, "Member: %s\nTask: %s\nResponse: %s\n\n", i.member, i.task, i.response)
	}
	b.WriteString("</member_interaction_context>\n")
	return b.String()
}

// historyText renders the team's last completed top-level runs of this
// session (agno's get_team_history_context).
func (t *Team) historyText(ctx context.Context, rc *run.Context) string {
	if t.cfg.Store == nil {
		return ""
	}
	recs, err := t.cfg.Store.ListRuns(ctx, storage.RunQuery{
		SessionID: rc.SessionID, ComponentID: t.cfg.ID, TopLevel: true,
		Status: []run.Status{run.StatusCompleted}, Newest: true, Limit: t.cfg.NumTeamHistoryRuns,
	})
	if err != nil || len(recs) == 0 {
		return ""
	}
	lines := []string{"<team_history_context>"}
	for i := len(recs) - 1; i >= 0; i-- {
		var past run.Output
		if json.Unmarshal(recs[i].Data, &past) != nil {
			continue
		}
		lines = append(lines, fmt.Sprintf("[run-%d]", len(recs)-i))
		if past.Input != nil {
			if s, ok := past.Input.Content.(string); ok && s != "" {
				lines = append(lines, "input: "+s)
			}
		}
		if c := past.ContentString(); c != "" {
			lines = append(lines, "response: "+c)
		}
		lines = append(lines, "")
	}
	lines = append(lines, "</team_history_context>", "")
	return strings.Join(lines, "\n")
}
