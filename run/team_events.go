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

// Kind is "TeamTaskIterationStarted".
func (e *TeamTaskIterationStarted) Kind() string { return "TeamTaskIterationStarted" }

// Kind is "TeamTaskIterationCompleted".
func (e *TeamTaskIterationCompleted) Kind() string { return "TeamTaskIterationCompleted" }

// Kind is "TeamTaskStateUpdated".
func (e *TeamTaskStateUpdated) Kind() string { return "TeamTaskStateUpdated" }

// Kind is "TeamTaskCreated".
func (e *TeamTaskCreated) Kind() string { return "TeamTaskCreated" }

// Kind is "TeamTaskUpdated".
func (e *TeamTaskUpdated) Kind() string { return "TeamTaskUpdated" }

// BaseFor returns the event base of a run context's run, for events a
// tool emits into its run's stream through EmitterFrom (a team's task
// events, a CustomEvent).
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
