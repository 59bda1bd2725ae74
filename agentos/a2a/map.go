package a2a

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
	"github.com/google/uuid"
)

func newID() string { return uuid.NewString() }

// State maps a run status to a task state; a paused run waits for the
// client's answer (input-required).
func State(s run.Status) TaskState {
	switch s {
	case run.StatusPending:
		return StateSubmitted
	case run.StatusRunning:
		return StateWorking
	case run.StatusError:
		return StateFailed
	case run.StatusCancelled:
		return StateCanceled
	case run.StatusPaused:
		return StateInputRequired
	}
	return StateCompleted
}

// toMaps renders values as their JSON objects (requirements as agno's
// to_dict).
func toMaps[T any](vs []T) []any {
	out := make([]any, 0, len(vs))
	for _, v := range vs {
		b, err := run.EncodeJSON(v)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// PausedParts are the parts of an input-required message: a note naming
// what the run waits on, then the requirements as a data part
// ({"requirements": [...]}, {"step_requirements": [...]} for a
// workflow) that the client resolves and sends back the same way.
func PausedParts(reqs []*run.Requirement, steps []*workflow.StepRequirement) []Part {
	var pending []string
	for _, r := range reqs {
		if r.ToolExecution != nil && r.ToolExecution.ToolName != "" {
			pending = append(pending, "tool "+r.ToolExecution.ToolName)
		}
	}
	for _, s := range steps {
		if s.StepName != "" {
			pending = append(pending, "step "+s.StepName)
		}
	}
	note := "Run is paused and requires input to continue"
	if len(pending) > 0 {
		note += ": " + strings.Join(pending, ", ")
	}
	parts := []Part{TextPart(note)}
	if len(reqs) > 0 {
		parts = append(parts, DataPart(map[string]any{"requirements": toMaps(reqs)}))
	}
	if len(steps) > 0 {
		parts = append(parts, DataPart(map[string]any{"step_requirements": toMaps(steps)}))
	}
	return parts
}

// imageArtifacts are agno's artifacts of the images a run made.
func imageArtifacts(urls []string) []Artifact {
	var out []Artifact
	for i, u := range urls {
		out = append(out, Artifact{ArtifactID: newID(), Name: fmt.Sprintf("image_%d", i), Description: fmt.Sprintf("Generated image %d", i),
			Parts: []Part{{Kind: "file", File: &FileContent{URI: u, MimeType: "image/jpeg"}}}})
	}
	return out
}

// contentText renders run content as agno's TextPart(text=content):
// text as is, structured output as JSON.
func contentText(c any) string {
	switch v := c.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	if s, err := pyjson.Dumps(c); err == nil {
		return s
	}
	return run.ContentText(c)
}

// FromOutput is agno's map_run_output_to_a2a_task for an agent's or
// team's run: the content as the agent's message, images as artifacts,
// the state from the run's status (a paused run's status message holds
// its requirements).
func FromOutput(o *run.Output) *Task {
	var urls []string
	for _, img := range o.Images {
		if img.URL != "" {
			urls = append(urls, img.URL)
		}
	}
	var paused []Part
	if o.Status == run.StatusPaused {
		paused = PausedParts(o.ActiveRequirements(), nil)
	}
	return build(o.RunID, o.SessionID, o.UserID, contentText(o.Content), o.Status, urls, paused)
}

// FromWorkflow maps a workflow's run.
func FromWorkflow(o *workflow.RunOutput) *Task {
	var paused []Part
	if o.Status == run.StatusPaused {
		paused = PausedParts(nil, o.StepRequirements)
	}
	return build(o.RunID, o.SessionID, o.UserID, contentText(o.Content), o.Status, nil, paused)
}

func build(runID, sessionID, userID, content string, status run.Status, images []string, paused []Part) *Task {
	if runID == "" {
		runID = newID()
	}
	if sessionID == "" {
		sessionID = newID()
	}
	var parts []Part
	if content != "" {
		parts = append(parts, TextPart(content))
	}
	var meta map[string]any
	if userID != "" {
		meta = map[string]any{"userId": userID}
	}
	t := &Task{Kind: KindTask, ID: runID, ContextID: sessionID, Status: TaskStatus{State: State(status)},
		History: []Message{AgentMessage(newID(), sessionID, runID, parts, meta)}, Artifacts: imageArtifacts(images)}
	if paused != nil {
		m := AgentMessage(newID(), sessionID, runID, paused, nil)
		t.Status.Message = &m
	}
	return t
}

// Failed is agno's answer to a run that could not run: a failed task
// with the error as the agent's message.
func Failed(taskID, contextID string, err error) *Task {
	if taskID == "" {
		taskID = newID()
	}
	if contextID == "" {
		contextID = newID()
	}
	return &Task{Kind: KindTask, ID: taskID, ContextID: contextID, Status: TaskStatus{State: StateFailed},
		History: []Message{AgentMessage(newID(), contextID, "", []Part{TextPart("Error: " + err.Error())}, nil)}}
}

// WaitingOn are the ids of the requirements (their tool call id, else
// their id) the client's answer may settle.
func WaitingOn(reqs []*run.Requirement) map[string]bool {
	ids := map[string]bool{}
	for _, r := range reqs {
		ids[reqKey(r)] = true
	}
	return ids
}

func reqKey(r *run.Requirement) string {
	if r.ToolExecution != nil && r.ToolExecution.ToolCallID != "" {
		return r.ToolExecution.ToolCallID
	}
	return r.ID
}

// DecodeRequirements reads the requirements a client sent back; ok is
// false when one is malformed or not among pending.
func DecodeRequirements(raw []any, pending map[string]bool) (reqs []*run.Requirement, ok bool) {
	b, err := json.Marshal(raw)
	if err != nil || json.Unmarshal(b, &reqs) != nil {
		return nil, false
	}
	for _, r := range reqs {
		if r == nil || !pending[reqKey(r)] {
			return nil, false
		}
	}
	return reqs, true
}
