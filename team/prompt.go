package team

import (
	"strings"

	"github.com/agno-go/agno/run"
)

// The leader's prompt texts (agno v2.6.13 team/_messages.py).
const (
	opening = "You coordinate a team of specialized AI agents to fulfill the user's request. Delegate to members when their expertise or tools are needed. For straightforward requests you can handle directly — including using your own tools — respond without delegating.\n"

	coordinateText = "You operate in coordinate mode. For requests that need member expertise, select the best member(s), delegate with clear task descriptions, and synthesize their outputs into a unified response. For requests you can handle directly — simple questions, using your own tools, or general conversation — respond without delegating.\n" +
		"\n" +
		"Delegation:\n" +
		"- Match each sub-task to the member whose role and tools are the best fit. Delegate to multiple members when the request spans different areas of expertise.\n" +
		"- Write task descriptions that are self-contained: state the goal, provide relevant context from the conversation, and describe what a good result looks like.\n" +
		"- Use only the member's ID when delegating — do not prefix it with the team ID.\n" +
		"\n" +
		"After receiving member responses:\n" +
		"- If a response is incomplete or off-target, re-delegate with clearer instructions or try a different member.\n" +
		"- Synthesize all results into a single coherent response. Resolve contradictions, fill gaps with your own reasoning, and add structure — do not simply concatenate member outputs.\n"

	routeText = "You operate in route mode. For requests that need member expertise, identify the single best member and delegate to them — their response is returned directly to the user. For requests you can handle directly — simple questions, using your own tools, or general conversation — respond without delegating.\n" +
		"\n" +
		"When routing to a member:\n" +
		"- Analyze the request to determine which member's role and tools are the best match.\n" +
		"- Delegate to exactly one member. Use only the member's ID — do not prefix it with the team ID.\n" +
		"- Write the task to faithfully represent the user's full intent. Do not reinterpret or narrow the request.\n" +
		"- If no member is a clear fit, choose the closest match and include any additional context the member might need.\n"

	broadcastText = "You operate in broadcast mode. For requests that benefit from multiple perspectives, send the request to all members simultaneously and synthesize their collective responses. For requests you can handle directly — simple questions, using your own tools, or general conversation — respond without delegating.\n" +
		"\n" +
		"When broadcasting:\n" +
		"- Call `delegate_task_to_members` exactly once with a clear task description. This sends the task to every member in parallel.\n" +
		"- Write the task so each member can respond independently from their own perspective.\n" +
		"\n" +
		"After receiving member responses:\n" +
		"- Compare perspectives: note agreements, highlight complementary insights, and reconcile any contradictions.\n" +
		"- Synthesize into a unified answer that integrates the strongest contributions thematically — do not list each member's response sequentially.\n"

	tasksText = "You operate in autonomous task mode. Decompose the user's goal into discrete tasks, execute them by delegating to team members, and deliver the final result.\n" +
		"\n" +
		"Planning:\n" +
		"- Break the goal into tasks with clear, actionable titles and self-contained descriptions. Each task should be a single unit of work for one member.\n" +
		"- Assign each task to the member whose role and tools are best suited.\n" +
		"- Set `depends_on` when a task requires another task's output. Leave tasks independent when they can run in any order.\n" +
		"\n" +
		"Execution:\n" +
		"- Use `execute_task` for sequential or dependent tasks.\n" +
		"- Use `execute_tasks_parallel` for groups of independent tasks to maximize throughput.\n" +
		"- Review each result before proceeding. If a task fails, decide whether to retry with the same member, reassign to a different member, or adjust the plan.\n" +
		"\n" +
		"Completion:\n" +
		"- When all tasks are done and results are satisfactory, call `mark_all_complete` with a summary of the outcome.\n" +
		"- Use `list_tasks` to check progress at any point, and `add_task_note` to record observations.\n" +
		"\n" +
		"Write task descriptions that give the member everything they need: the objective, relevant context from the conversation or prior task results, and what a good result looks like.\n"

	memberInfoHint = "If you need to get information about your team members, you can use the `get_member_information` tool at any time.\n"
)

func (t *Team) modeText() string {
	switch t.mode {
	case ModeRoute:
		return routeText
	case ModeBroadcast:
		return broadcastText
	case ModeTasks:
		return tasksText
	}
	return coordinateText
}

// teamContext is the opening, the member roster and the mode's
// <how_to_respond> block.
func (t *Team) teamContext(*run.Context) string {
	var b strings.Builder
	b.WriteString(opening)
	b.WriteString("\n<team_members>\n")
	b.WriteString(t.roster())
	if t.cfg.GetMemberInformationTool {
		b.WriteString(memberInfoHint)
	}
	b.WriteString("</team_members>\n")
	b.WriteString("\n<how_to_respond>\n" + t.modeText() + "</how_to_respond>\n\n")
	return b.String()
}

// roster renders <member> entries, nested teams indented (agno's
// get_members_system_message_content).
func (t *Team) roster() string {
	var b strings.Builder
	t.writeRoster(&b, 0)
	return b.String()
}

type described interface {
	Role() string
	Description() string
	ToolNames() []string
}

func (t *Team) writeRoster(b *strings.Builder, indent int) {
	pad := strings.Repeat(" ", indent)
	for _, m := range t.cfg.Members {
		d, _ := m.(described)
		if sub, ok := m.(*Team); ok {
			b.WriteString(pad + `<member id="` + sub.ID() + `" name="` + nameOrNone(sub) + `" type="team">` + "\n")
			if sub.Description() != "" {
				b.WriteString(pad + "  Description: " + sub.Description() + "\n")
			}
			sub.writeRoster(b, indent+2)
			b.WriteString(pad + "</member>\n")
			continue
		}
		b.WriteString(pad + `<member id="` + m.ID() + `" name="` + nameOrNone(m) + `">` + "\n")
		if d != nil {
			if d.Role() != "" {
				b.WriteString(pad + "  Role: " + d.Role() + "\n")
			}
			if d.Description() != "" {
				b.WriteString(pad + "  Description: " + d.Description() + "\n")
			}
			if names := d.ToolNames(); t.cfg.AddMemberToolsToContext && len(names) > 0 {
				b.WriteString(pad + "  Tools: " + strings.Join(names, ", ") + "\n")
			}
		}
		b.WriteString(pad + "</member>\n")
	}
}

func nameOrNone(m run.Executor) string {
	if m.Name() == "" {
		return "None"
	}
	return m.Name()
}
