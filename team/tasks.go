package team

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/engine"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// Tasks mode keeps its task list in session_state["_team_tasks"], as agno.
const tasksKey = "_team_tasks"

// Task statuses.
const (
	statusPending    = "pending"
	statusInProgress = "in_progress"
	statusCompleted  = "completed"
	statusFailed     = "failed"
	statusBlocked    = "blocked"
)

type task struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description"`
	Status       string   `json:"status"`
	Assignee     string   `json:"assignee,omitempty"`
	ParentID     string   `json:"parent_id,omitempty"`
	Dependencies []string `json:"dependencies"`
	Result       string   `json:"result,omitempty"`
	Notes        []string `json:"notes"`
	CreatedAt    float64  `json:"created_at"`
}

type taskList struct {
	Tasks             []*task `json:"tasks"`
	GoalComplete      bool    `json:"goal_complete"`
	CompletionSummary string  `json:"completion_summary,omitempty"`
}

func (l *taskList) find(id string) *task {
	for _, t := range l.Tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

func terminal(s string) bool { return s == statusCompleted || s == statusFailed }

// blockedBy reports unmet dependencies; an unknown dependency blocks
// (fail-closed).
func (l *taskList) blockedBy(t *task) bool {
	for _, d := range t.Dependencies {
		dep := l.find(d)
		if dep == nil || dep.Status != statusCompleted {
			return true
		}
	}
	return false
}

func (l *taskList) dependencyFailed(t *task) bool {
	for _, d := range t.Dependencies {
		if dep := l.find(d); dep != nil && dep.Status == statusFailed {
			return true
		}
	}
	return false
}

// updateBlocked recomputes blocked statuses (agno's _update_blocked_statuses).
func (l *taskList) updateBlocked() {
	for _, t := range l.Tasks {
		switch t.Status {
		case statusBlocked:
			if l.dependencyFailed(t) {
				t.Status, t.Result = statusFailed, "Automatically failed: a dependency failed."
			} else if !l.blockedBy(t) {
				t.Status = statusPending
			}
		case statusPending:
			if l.blockedBy(t) {
				t.Status = statusBlocked
			}
		}
	}
}

func (l *taskList) allTerminal() bool {
	if len(l.Tasks) == 0 {
		return false
	}
	for _, t := range l.Tasks {
		if !terminal(t.Status) {
			return false
		}
	}
	return true
}

func (l *taskList) anyFailed() bool {
	for _, t := range l.Tasks {
		if t.Status == statusFailed {
			return true
		}
	}
	return false
}

// summary is agno's TaskList.get_summary_string().
func (l *taskList) summary() string {
	if len(l.Tasks) == 0 {
		return "No tasks created yet."
	}
	counts := map[string]int{}
	var order []string
	for _, t := range l.Tasks {
		if counts[t.Status] == 0 {
			order = append(order, t.Status)
		}
		counts[t.Status]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	lines := []string{fmt.Sprintf("Tasks (%d total: %s):", len(l.Tasks), strings.Join(parts, ", "))}
	for _, t := range l.Tasks {
		line := fmt.Sprintf("  [%s] %s - %s", t.ID, t.Title, strings.ToUpper(t.Status))
		if t.Assignee != "" {
			line += " (assigned: " + t.Assignee + ")"
		} else {
			line += " (unassigned)"
		}
		lines = append(lines, line)
		if len(t.Dependencies) > 0 {
			lines = append(lines, "      Depends on: "+pyList(t.Dependencies))
		}
		if t.Result != "" {
			r := t.Result
			if len([]rune(r)) > 200 {
				r = string([]rune(r)[:200]) + "..."
			}
			lines = append(lines, "      Result: "+r)
		}
		notes := t.Notes
		if len(notes) > 3 {
			notes = notes[len(notes)-3:]
		}
		for _, n := range notes {
			lines = append(lines, "      Note: "+n)
		}
	}
	if l.GoalComplete && l.CompletionSummary != "" {
		lines = append(lines, "\nGoal marked complete: "+l.CompletionSummary)
	}
	return strings.Join(lines, "\n")
}

func pyList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (l *taskList) data() []run.TaskData {
	out := make([]run.TaskData, len(l.Tasks))
	for i, t := range l.Tasks {
		out[i] = run.TaskData{ID: t.ID, Title: t.Title, Description: t.Description, Status: t.Status,
			Assignee: t.Assignee, Dependencies: t.Dependencies, Result: t.Result}
	}
	return out
}

// withTasks loads the task list from the session state, lets fn change it
// and stores it back, all under the state lock so concurrent task tools
// never lose each other's updates.
func withTasks(rc *run.Context, fn func(l *taskList)) {
	rc.State(func(s map[string]any) {
		l := &taskList{}
		if raw, ok := s[tasksKey]; ok {
			if b, err := json.Marshal(raw); err == nil {
				_ = json.Unmarshal(b, l)
			}
		}
		l.updateBlocked()
		fn(l)
		b, _ := json.Marshal(l)
		var m map[string]any
		_ = run.DecodeJSON(b, &m)
		s[tasksKey] = m
	})
}

// emitTask sends a task event when the run streams events.
func emitTask(ctx context.Context, e run.Event) {
	rc := run.FromContext(ctx)
	if rc == nil || !rc.StreamEvents {
		return
	}
	if emit := run.EmitterFrom(ctx); emit != nil {
		emit(run.Stamp(e))
	}
}

type createTaskArgs struct {
	Title       string   `json:"title" description:"A short, actionable title for the task."`
	Description string   `json:"description,omitempty" description:"Detailed description of what needs to be done."`
	Assignee    string   `json:"assignee,omitempty" description:"The member_id to assign this task to. Must be a valid member_id."`
	DependsOn   []string `json:"depends_on,omitempty" description:"List of task IDs that must complete before this task can start."`
}

type updateTaskArgs struct {
	TaskID string  `json:"task_id" description:"The ID of the task to update."`
	Status string  `json:"status" description:"New status. One of: pending, in_progress, completed, failed."`
	Result *string `json:"result,omitempty" description:"The result or outcome of the task (when completing)."`
}

type taskNoteArgs struct {
	TaskID string `json:"task_id" description:"The ID of the task."`
	Note   string `json:"note" description:"The note to add."`
}

type completeArgs struct {
	Summary string `json:"summary" description:"A summary of the work done and the final outcome."`
}

type executeTaskArgs struct {
	TaskID   string `json:"task_id" description:"The ID of the task to execute."`
	MemberID string `json:"member_id" description:"The ID of the member to execute the task."`
}

type executeParallelArgs struct {
	TaskIDs []string `json:"task_ids" description:"List of task IDs to execute concurrently."`
}

// taskTools are the leader's tools in tasks mode.
func (t *Team) taskTools() []tool.Provider {
	return []tool.Provider{
		tool.Must(tool.New("create_task", "Create a new task for the team to work on.", t.createTask)),
		tool.Must(tool.New("update_task_status", "Update the status of a task. Use this to mark tasks you handle yourself as completed.", t.updateTaskStatus)),
		tool.Must(tool.New("list_tasks", "List all tasks with their current status, assignees, and dependencies.", func(ctx context.Context, _ struct{}) (string, error) {
			var s string
			withTasks(run.FromContext(ctx), func(l *taskList) { s = l.summary() })
			return s, nil
		})),
		tool.Must(tool.New("add_task_note", "Add a note to a task for tracking progress or communicating context.", func(ctx context.Context, a taskNoteArgs) (string, error) {
			res := fmt.Sprintf("Task with ID '%s' not found.", a.TaskID)
			withTasks(run.FromContext(ctx), func(l *taskList) {
				if tk := l.find(a.TaskID); tk != nil {
					tk.Notes = append(tk.Notes, a.Note)
					res = fmt.Sprintf("Note added to task [%s].", tk.ID)
				}
			})
			return res, nil
		})),
		tool.Must(tool.New("mark_all_complete", "Signal that the overall goal has been achieved. Call this when all tasks are done.", func(ctx context.Context, a completeArgs) (string, error) {
			withTasks(run.FromContext(ctx), func(l *taskList) { l.GoalComplete, l.CompletionSummary = true, a.Summary })
			return "Goal marked as complete. Summary: " + a.Summary, nil
		})),
		tool.Must(tool.New("execute_task", "Execute a task by delegating it to a team member. The member will receive the task\ndescription and return a result.", t.executeTask)),
		tool.Must(tool.New("execute_tasks_parallel", "Execute multiple independent tasks in parallel by delegating each to its assigned member.\nAll tasks must be pending with no unresolved dependencies.", t.executeParallel)),
	}
}

func (t *Team) createTask(ctx context.Context, a createTaskArgs) (string, error) {
	rc := run.FromContext(ctx)
	var res string
	var created *task
	withTasks(rc, func(l *taskList) {
		for _, ex := range l.Tasks {
			if strings.EqualFold(strings.TrimSpace(ex.Title), strings.TrimSpace(a.Title)) {
				res = fmt.Sprintf("Task already exists: [%s] %s (status: %s). Use this task instead of creating a duplicate.", ex.ID, ex.Title, ex.Status)
				return
			}
		}
		tk := &task{ID: run.NewID()[:8], Title: a.Title, Description: a.Description, Status: statusPending,
			Assignee: a.Assignee, Dependencies: append([]string{}, a.DependsOn...), Notes: []string{},
			CreatedAt: float64(time.Now().UnixNano()) / 1e9}
		if l.blockedBy(tk) {
			tk.Status = statusBlocked
		}
		l.Tasks = append(l.Tasks, tk)
		created = tk
		res = fmt.Sprintf("Task created: [%s] %s (status: %s)", tk.ID, tk.Title, tk.Status)
	})
	if created != nil {
		emitTask(ctx, &run.TeamTaskCreated{EventBase: run.BaseFor(rc), TaskID: created.ID, Title: created.Title,
			Description: created.Description, Assignee: created.Assignee, Status: created.Status, Dependencies: created.Dependencies})
	}
	return res, nil
}

func (t *Team) updateTaskStatus(ctx context.Context, a updateTaskArgs) (string, error) {
	switch a.Status {
	case statusPending, statusInProgress, statusCompleted, statusFailed:
	case statusBlocked:
		return "Cannot manually set status to 'blocked'. Blocked status is managed automatically based on task dependencies.", nil
	default:
		return fmt.Sprintf("Invalid status '%s'. Must be one of: pending, in_progress, completed, failed.", a.Status), nil
	}
	rc := run.FromContext(ctx)
	res := fmt.Sprintf("Task with ID '%s' not found.", a.TaskID)
	var ev *run.TeamTaskUpdated
	withTasks(rc, func(l *taskList) {
		tk := l.find(a.TaskID)
		if tk == nil {
			return
		}
		prev := tk.Status
		tk.Status = a.Status
		if a.Result != nil {
			tk.Result = *a.Result
		}
		res = fmt.Sprintf("Task [%s] '%s' updated to %s.", tk.ID, tk.Title, tk.Status)
		ev = &run.TeamTaskUpdated{EventBase: run.BaseFor(rc), TaskID: tk.ID, Title: tk.Title, Status: tk.Status, PreviousStatus: prev, Assignee: tk.Assignee}
		if terminal(tk.Status) {
			ev.Result = tk.Result
		}
	})
	if ev != nil {
		emitTask(ctx, ev)
	}
	return res, nil
}

// finishTask applies a member's outcome to a task and returns the line
// for the leader.
func finishTask(l *taskList, tk *task, m run.Executor, out *run.Output, err error, parallel bool) string {
	switch {
	case err != nil:
		tk.Status, tk.Result = statusFailed, "Member execution error: "+err.Error()
		if parallel {
			return fmt.Sprintf("Task [%s] failed: %s", tk.ID, err)
		}
		return fmt.Sprintf("Task [%s] failed due to member execution error: %s", tk.ID, err)
	case out.Status == run.StatusPaused:
		tk.Status = statusPending
		if parallel {
			return fmt.Sprintf("Task [%s]: Member '%s' requires human input. Task paused.", tk.ID, displayName(m))
		}
		return fmt.Sprintf("Member '%s' requires human input before continuing. Task [%s] paused.", displayName(m), tk.ID)
	case out.Status == run.StatusError:
		tk.Status, tk.Result = statusFailed, out.ContentString()
		if tk.Result == "" {
			tk.Result = "Task failed"
		}
		return fmt.Sprintf("Task [%s] failed: %s", tk.ID, tk.Result)
	case out.ContentString() != "":
		tk.Status, tk.Result = statusCompleted, out.ContentString()
		return fmt.Sprintf("Task [%s] completed. Result: %s", tk.ID, tk.Result)
	}
	tk.Status, tk.Result = statusCompleted, "No content returned"
	return fmt.Sprintf("Task [%s] completed with no content.", tk.ID)
}

func (t *Team) executeTask(ctx context.Context, a executeTaskArgs) (tool.Result, error) {
	rc := run.FromContext(ctx)
	var fail string
	var tk task
	var started run.Event
	withTasks(rc, func(l *taskList) {
		cur := l.find(a.TaskID)
		switch {
		case cur == nil:
			fail = fmt.Sprintf("Task with ID '%s' not found.", a.TaskID)
		case cur.Status != statusPending && cur.Status != statusInProgress:
			fail = fmt.Sprintf("Task [%s] is %s and cannot be executed.", a.TaskID, cur.Status)
		case t.findMember(a.MemberID) == nil:
			fail = fmt.Sprintf("Member with ID %s not found. Available members:\n%s", a.MemberID, t.roster())
		default:
			prev := cur.Status
			cur.Status, cur.Assignee = statusInProgress, a.MemberID
			tk = *cur
			started = &run.TeamTaskUpdated{EventBase: run.BaseFor(rc), TaskID: cur.ID, Title: cur.Title, Status: cur.Status, PreviousStatus: prev, Assignee: cur.Assignee}
		}
	})
	if fail != "" {
		return tool.Text(fail), nil
	}
	emitTask(ctx, started)
	m := t.findMember(a.MemberID)
	input := tk.Description
	if input == "" {
		input = tk.Title
	}
	out, err := t.runMember(ctx, m, input, run.EmitterFrom(ctx))
	var line string
	var ev *run.TeamTaskUpdated
	withTasks(rc, func(l *taskList) {
		cur := l.find(tk.ID)
		if cur == nil {
			cur = &tk
		}
		line = finishTask(l, cur, m, out, err, false)
		ev = &run.TeamTaskUpdated{EventBase: run.BaseFor(rc), TaskID: cur.ID, Title: cur.Title, Status: cur.Status, PreviousStatus: statusInProgress, Result: cur.Result, Assignee: cur.Assignee}
	})
	emitTask(ctx, ev)
	res := tool.Result{Content: line}
	if out != nil {
		r := t.memberResult(m, out)
		res.ChildRuns, res.ChildRunID, res.Requirements = r.ChildRuns, r.ChildRunID, r.Requirements
	}
	return res, nil
}

func (t *Team) executeParallel(ctx context.Context, a executeParallelArgs) (tool.Result, error) {
	rc := run.FromContext(ctx)
	var fail string
	var todo []task
	var started []run.Event
	withTasks(rc, func(l *taskList) {
		for _, id := range a.TaskIDs {
			tk := l.find(id)
			switch {
			case tk == nil:
				fail = fmt.Sprintf("Task '%s' not found.", id)
			case tk.Status != statusPending:
				fail = fmt.Sprintf("Task [%s] is %s, cannot execute.", id, tk.Status)
			case tk.Assignee == "":
				fail = fmt.Sprintf("Task [%s] has no assignee. Assign a member_id first.", id)
			case t.findMember(tk.Assignee) == nil:
				fail = fmt.Sprintf("Member '%s' not found for task [%s].", tk.Assignee, id)
			}
			if fail != "" {
				return
			}
			todo = append(todo, *tk)
		}
		if len(todo) == 0 {
			fail = "No valid tasks to execute."
			return
		}
		for _, tk := range todo {
			cur := l.find(tk.ID)
			cur.Status = statusInProgress
			started = append(started, &run.TeamTaskUpdated{EventBase: run.BaseFor(rc), TaskID: cur.ID, Title: cur.Title, Status: statusInProgress, PreviousStatus: statusPending, Assignee: cur.Assignee})
		}
	})
	if fail != "" {
		return tool.Text(fail), nil
	}
	for _, e := range started {
		emitTask(ctx, e)
	}
	outs := make([]*run.Output, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, tk := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			input := tk.Description
			if input == "" {
				input = tk.Title
			}
			errs[i] = safe.Call(t.cfg.Logger, "team "+t.ID()+" task "+tk.ID, func() (err error) {
				outs[i], err = t.runMember(ctx, t.findMember(tk.Assignee), input, nil)
				return err
			})
		}()
	}
	wg.Wait()
	var lines []string
	var res tool.Result
	var evs []run.Event
	withTasks(rc, func(l *taskList) {
		for i, tk := range todo {
			m := t.findMember(tk.Assignee)
			cur := l.find(tk.ID)
			lines = append(lines, finishTask(l, cur, m, outs[i], errs[i], true))
			evs = append(evs, &run.TeamTaskUpdated{EventBase: run.BaseFor(rc), TaskID: cur.ID, Title: cur.Title, Status: cur.Status, PreviousStatus: statusInProgress, Result: cur.Result, Assignee: cur.Assignee})
			if outs[i] != nil {
				r := t.memberResult(m, outs[i])
				res.ChildRuns = append(res.ChildRuns, r.ChildRuns...)
				res.Requirements = append(res.Requirements, r.Requirements...)
			}
		}
	})
	for _, e := range evs {
		emitTask(ctx, e)
	}
	res.Content = strings.Join(lines, "\n")
	return res, ctx.Err()
}

// iterations is the tasks-mode outer loop (agno's _run_tasks).
func (t *Team) iterations() *engine.Iterations {
	max := t.cfg.MaxIterations
	return &engine.Iterations{
		Max: max,
		Before: func(rc *run.Context, i int) (string, []run.Event) {
			evs := []run.Event{&run.TeamTaskIterationStarted{Iteration: i, MaxIterations: max}}
			if i == 1 {
				return "", evs
			}
			var summary string
			withTasks(rc, func(l *taskList) { summary = l.summary() })
			return "<current_task_state>\n" + summary + "\n</current_task_state>\n\n" +
				"Continue working on the tasks. Create, execute, or update tasks as needed. When all tasks are done, call `mark_all_complete` with a summary.", evs
		},
		After: func(rc *run.Context, i int) ([]run.Event, bool) {
			var l taskList
			withTasks(rc, func(cur *taskList) { l = *cur })
			summary := l.summary()
			evs := []run.Event{
				&run.TeamTaskStateUpdated{TaskSummary: summary, GoalComplete: l.GoalComplete, Tasks: l.data(), CompletionSummary: l.CompletionSummary},
				&run.TeamTaskIterationCompleted{Iteration: i, MaxIterations: max, TaskSummary: summary},
			}
			return evs, l.GoalComplete || (l.allTerminal() && !l.anyFailed())
		},
	}
}
