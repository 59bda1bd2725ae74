package agentos

import (
	"context"
	"maps"
	"net/http"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/runsapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// AgentResponse is agno's AgentResponse (GET /agents, exclude_none: unset
// fields are absent; is_factory and is_component are false, not absent).
type AgentResponse = runsapi.AgentResponse

// TeamResponse is agno's TeamResponse (exclude_none), members included
// as AgentResponse or TeamResponse.
type TeamResponse = runsapi.TeamResponse

// WorkflowSummaryResponse is agno's WorkflowSummaryResponse (GET
// /workflows and /config, exclude_none).
type WorkflowSummaryResponse = runsapi.WorkflowSummaryResponse

// WorkflowResponse is agno's WorkflowResponse (exclude_none;
// workflow_agent, is_factory and is_component always present).
type WorkflowResponse = runsapi.WorkflowResponse

// pFiles is the run form's uploads field, which /docs draws as a file
// input.
var pFiles = runsapi.FilesForm

// runsHost is what the agents', teams' and workflows' group
// (agentos/runsapi) needs of the OS: the catalog, the access checks, the
// request form, the SSE stream and the run engine stay here.
type runsHost struct{ groupHost }

func (h runsHost) DBID() string { return h.o.cfg.DBID }

func (h runsHost) Agents() []*agent.Agent { return h.o.catalog().Agents }

func (h runsHost) Teams() []*team.Team { return h.o.catalog().Teams }

func (h runsHost) Workflows() []*workflow.Workflow { return h.o.catalog().Workflows }

func (h runsHost) Agent(id string) *agent.Agent { return h.o.catalog().agents[id] }

func (h runsHost) Team(id string) *team.Team { return h.o.catalog().teams[id] }

func (h runsHost) Workflow(id string) *workflow.Workflow { return h.o.catalog().workflows[id] }

func (h runsHost) IsComponent(obj any) bool { return h.o.isComponent(obj) }

func (h runsHost) AgentKnowledge(cfg agent.Config) map[string]any {
	return h.o.knowledge.AgentInfo(cfg)
}

func (h runsHost) Readable(w http.ResponseWriter, r *http.Request, typ string) (func(id string) bool, bool) {
	return h.o.readable(w, r, typ)
}

func (h runsHost) MayRun(w http.ResponseWriter, r *http.Request, id string) bool {
	return h.o.mayRun(w, r, id)
}

func (h runsHost) OwnRun(w http.ResponseWriter, r *http.Request, runID, sessionID string) bool {
	return h.o.ownRun(w, r, runID, sessionID)
}

func (h runsHost) RunOwnedBy(ctx context.Context, runID, sessionID, user string) bool {
	return h.o.runOwnedBy(ctx, runID, sessionID, user)
}

func (h runsHost) SessionOpenTo(ctx context.Context, sessionID, user string) bool {
	return h.o.sessionOpenTo(ctx, sessionID, user)
}

func (h runsHost) ApprovalGate(w http.ResponseWriter, r *http.Request, runID string) bool {
	return h.o.approvalGate(w, r, runID)
}

func (h runsHost) ParseForm(w http.ResponseWriter, r *http.Request, known ...string) (runsapi.Form, error) {
	f, err := h.o.parseForm(w, r, known...)
	if err != nil {
		return nil, err
	}
	return runForm{f}, nil
}

func (h runsHost) SSE(w http.ResponseWriter) runsapi.Stream { return runStream{newSSE(w)} }

func (h runsHost) NoteRunID(ctx context.Context, runID string) { noteRunID(ctx, runID) }

func (h runsHost) ServeWorkflowWS(w http.ResponseWriter, r *http.Request) {
	h.o.handleWorkflowWS(w, r)
}

func (h runsHost) Draining() bool { return h.o.draining.Load() }

func (h runsHost) Launch(ctx context.Context, l runs.Launch) error { return h.o.eng.Launch(ctx, l) }

func (h runsHost) Follow(ctx context.Context, runID, componentID string, last int64) (*runs.Follow, error) {
	return h.o.eng.Follow(ctx, runID, componentID, last)
}

func (h runsHost) Running(runID string) bool { return h.o.eng.Running(runID) }

func (h runsHost) KnownRun(ctx context.Context, runID, componentID string) bool {
	return h.o.knownRun(ctx, runID, componentID)
}

// knownRun reports a run of the component that this process runs or
// storage holds. Cancelling any other id is refused: an intent stored
// for it would cancel whatever run later got that id.
func (o *OS) knownRun(ctx context.Context, runID, componentID string) bool {
	if o.eng.Running(runID) {
		return true
	}
	if o.cfg.Store == nil {
		return false
	}
	rec, err := o.cfg.Store.GetRun(ctx, runID)
	return err == nil && rec.ComponentID == componentID
}

// runForm is a parsed form as the run routes read it (runsapi.Form).
type runForm struct{ f *form }

func (r runForm) Has(field string) bool   { return r.f.has(field) }
func (r runForm) Str(field string) string { return r.f.str(field) }
func (r runForm) Bool(field string, def bool) (bool, error) {
	return r.f.boolean(field, def)
}
func (r runForm) Images() []model.Image { return r.f.images }
func (r runForm) Files() []model.File   { return r.f.files }
func (r runForm) Release()              { r.f.release() }

func (r runForm) Unknown() map[string]string {
	out := maps.Clone(r.f.Values)
	maps.DeleteFunc(out, func(k, _ string) bool { return r.f.Known[k] })
	return out
}

// runStream is an SSE answer as the run routes write it
// (runsapi.Stream): events without event_index.
type runStream struct{ s *sseWriter }

func (s runStream) Event(e run.Event) bool               { return s.s.send(e, -1) }
func (s runStream) Raw(name string, payload []byte) bool { return s.s.raw(name, payload) }
func (s runStream) JSON(name string, v any) bool         { return s.s.json(name, v) }
func (s runStream) Comment(text string) bool             { return s.s.comment(text) }
