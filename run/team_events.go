package run

// TaskData is one task in a TeamTaskStateUpdated event.
type TaskData struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Description  string   `json:"description,omitempty"`
	Status       string   `json:"status"`
	Assignee     string   `json:"assignee,omitempty"`
	Dependencies []string `json:"dependencies,omitempty"`
	Result       string   `json:"result,omitempty"`
}

// TeamTaskIterationStarted opens one iteration of a tasks-mode team.
type TeamTaskIterationStarted struct {
	EventBase
	Iteration     int `json:"iteration"`
	MaxIterations int `json:"max_iterations"`
}

// TeamTaskIterationCompleted closes one iteration.
type TeamTaskIterationCompleted struct {
	EventBase
	Iteration     int    `json:"iteration"`
	MaxIterations int    `json:"max_iterations"`
	TaskSummary   string `json:"task_summary,omitempty"`
}

// TeamTaskStateUpdated reports the task list after an iteration.
type TeamTaskStateUpdated struct {
	EventBase
	TaskSummary       string     `json:"task_summary,omitempty"`
	GoalComplete      bool       `json:"goal_complete"`
	Tasks             []TaskData `json:"tasks"`
	CompletionSummary string     `json:"completion_summary,omitempty"`
}

// TeamTaskCreated reports a new task.
type TeamTaskCreated struct {
	EventBase
	TaskID       string   `json:"task_id"`
	Title        string   `json:"title"`
	Description  string   `json:"description,omitempty"`
	Assignee     string   `json:"assignee,omitempty"`
	Status       string   `json:"status"`
	Dependencies []string `json:"dependencies,omitempty"`
}

// TeamTaskUpdated reports a task status change.
type TeamTaskUpdated struct {
	EventBase
	TaskID         string `json:"task_id"`
	Title          string `json:"title"`
	Status         string `json:"status"`
	PreviousStatus string `json:"previous_status,omitempty"`
	Result         string `json:"result,omitempty"`
	Assignee       string `json:"assignee,omitempty"`
}

func (e *TeamTaskIterationStarted) Kind() string   { return "TeamTaskIterationStarted" }
func (e *TeamTaskIterationCompleted) Kind() string { return "TeamTaskIterationCompleted" }
func (e *TeamTaskStateUpdated) Kind() string       { return "TeamTaskStateUpdated" }
func (e *TeamTaskCreated) Kind() string            { return "TeamTaskCreated" }
func (e *TeamTaskUpdated) Kind() string            { return "TeamTaskUpdated" }

func init() {
	RegisterEvent("TeamTaskIterationStarted", func() Event { return new(TeamTaskIterationStarted) })
	RegisterEvent("TeamTaskIterationCompleted", func() Event { return new(TeamTaskIterationCompleted) })
	RegisterEvent("TeamTaskStateUpdated", func() Event { return new(TeamTaskStateUpdated) })
	RegisterEvent("TeamTaskCreated", func() Event { return new(TeamTaskCreated) })
	RegisterEvent("TeamTaskUpdated", func() Event { return new(TeamTaskUpdated) })
}

// BaseFor returns the event base of a run context's run, for events that
// tools emit on behalf of their run (task events of a team).
func BaseFor(rc *Context) EventBase {
	if rc == nil {
		return EventBase{}
	}
	return EventBase{
		AgentID: rc.AgentID, AgentName: rc.AgentName, TeamID: rc.TeamID, TeamName: rc.TeamName,
		RunID: rc.RunID, ParentRunID: rc.ParentRunID, SessionID: rc.SessionID,
		WorkflowID: rc.WorkflowID, WorkflowName: rc.WorkflowName,
	}
}
