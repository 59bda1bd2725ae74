// Package runsapi is the route group of the agents, teams and workflows
// of AgentOS: agno's /agents, /teams and /workflows routes, which list
// and describe them and start, continue, cancel, follow and list their
// runs. It builds on the core (agentos/internal/httpapi) and on Host,
// what it needs of the OS: the catalog, the access checks, the run
// engine, the request form and the SSE stream stay there; agentos serves
// its rows.
package runsapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// Host is what the group needs of the OS.
type Host interface {
	Logger() *slog.Logger
	// Store keeps the runs and sessions; nil without one.
	Store() storage.Store
	// DBID is the store's id in the responses (db_id).
	DBID() string

	// The agents, teams and workflows served now (a reload changes
	// them); a lookup is nil when id is not served.
	Agents() []*agent.Agent
	Teams() []*team.Team
	Workflows() []*workflow.Workflow
	Agent(id string) *agent.Agent
	Team(id string) *team.Team
	Workflow(id string) *workflow.Workflow
	// Executor is the served agent or team id (kind "agent" or "team").
	Executor(kind, id string) run.Executor
	// IsComponent is agno's is_component: obj comes from a stored
	// component.
	IsComponent(obj any) bool
	// AgentKnowledge is AgentResponse's knowledge (nil: none).
	AgentKnowledge(cfg agent.Config) map[string]any

	// The access checks; each has answered the request when it fails.
	//
	// Readable filters a listing of typ ("agents") to what the caller
	// may read or run (403 when nothing).
	Readable(w http.ResponseWriter, r *http.Request, typ string) (keep func(id string) bool, ok bool)
	// MayRun checks the caller's run scope on the path's resource id.
	MayRun(w http.ResponseWriter, r *http.Request, id string) bool
	// OwnRun checks that an isolated caller owns runID in sessionID.
	OwnRun(w http.ResponseWriter, r *http.Request, runID, sessionID string) bool
	// RunOwnedBy reports whether runID is a run of sessionID, a session
	// of user.
	RunOwnedBy(ctx context.Context, runID, sessionID, user string) bool
	// SessionOpenTo reports whether user may add runs to sessionID.
	SessionOpenTo(ctx context.Context, sessionID, user string) bool
	// ApprovalGate refuses to continue a run whose approvals are pending.
	ApprovalGate(w http.ResponseWriter, r *http.Request, runID string) bool

	// ParseForm reads a run form within the upload limits (fields known
	// are the endpoint's; only with "files" are files kept); the caller
	// releases it.
	ParseForm(w http.ResponseWriter, r *http.Request, known ...string) (Form, error)
	// SSE starts an event-stream answer.
	SSE(w http.ResponseWriter) Stream
	// NoteRunID tells the access log which run a request is about.
	NoteRunID(ctx context.Context, runID string)
	// ServeWorkflowWS serves agno's workflow WebSocket.
	ServeWorkflowWS(w http.ResponseWriter, r *http.Request)

	// The run engine, wherever the run executes.
	//
	// Draining reports that the OS shuts down: no run starts.
	Draining() bool
	Launch(ctx context.Context, l runs.Launch) error
	Follow(ctx context.Context, runID, componentID string, last int64) (*runs.Follow, error)
	Cancel(ctx context.Context, runID string) (bool, error)
	// Running reports a run this process executes.
	Running(runID string) bool
	// KnownRun reports a run of componentID that this process runs or
	// the store holds.
	KnownRun(ctx context.Context, runID, componentID string) bool
}

// Form is a parsed run form: multipart/form-data or
// x-www-form-urlencoded, as agno's run endpoints take.
type Form interface {
	Has(field string) bool
	Str(field string) string
	// Bool reads a boolean with FastAPI's spellings; def when absent.
	Bool(field string, def bool) (bool, error)
	// Images and Files are the uploads, spooled until Release.
	Images() []model.Image
	Files() []model.File
	// Unknown are the fields outside the endpoint's signature.
	Unknown() map[string]string
	// Release removes the spooled uploads.
	Release()
}

// Stream is an SSE answer in agno's framing; each write reports false
// once the client is gone.
type Stream interface {
	// Event writes a run event.
	Event(e run.Event) bool
	Raw(name string, payload []byte) bool
	// JSON writes v as one event named name.
	JSON(name string, v any) bool
	// Comment writes an SSE comment (heartbeats).
	Comment(text string) bool
}

// Group is the agents', teams' and workflows' routes: New, then Routes.
type Group struct {
	host Host
	// intents are cancels that came before their run (cancelintent.go).
	intents cancelIntents
}

// New is the group serving h's agents, teams and workflows.
func New(h Host) *Group { return &Group{host: h} }

// The run routes' documented parameters.
var (
	sessionQuery = httpapi.Param{Name: "session_id", Type: "string", Desc: "Session the run belongs to"}
	statusQuery  = httpapi.Param{Name: "status", Type: "string", Desc: "Run status filter", Enum: []string{"PENDING", "RUNNING", "COMPLETED", "PAUSED", "CANCELLED", "ERROR"}}

	messageForm    = httpapi.Param{Name: "message", Type: "string", Desc: "The input (a JSON object text when the workflow has an input schema)", Required: true}
	streamForm     = httpapi.Param{Name: "stream", Type: "boolean", Desc: "Answer with Server-Sent Events", Default: true}
	backgroundForm = httpapi.Param{Name: "background", Type: "boolean", Desc: "Run in the background; with stream=false answers 202 at once", Default: false}
	sessionForm    = httpapi.Param{Name: "session_id", Type: "string", Desc: "Session to run in; a new one when empty"}
	sessionReqForm = httpapi.Param{Name: "session_id", Type: "string", Desc: "Session of the paused run", Required: true}
	userForm       = httpapi.Param{Name: "user_id", Type: "string", Desc: "User the run is for"}
	versionForm    = httpapi.Param{Name: "version", Type: "string", Desc: "Component version"}
	factoryForm    = httpapi.Param{Name: "factory_input", Type: "string", Desc: "JSON input of a component factory"}
	lastEventForm  = httpapi.Param{Name: "last_event_index", Type: "integer", Desc: "Index of the last event the client has; later ones are replayed, then the live stream follows"}
	sessionOptForm = httpapi.Param{Name: "session_id", Type: "string", Desc: "Session of the run"}
	runFormExtra   = "Form fields not listed here are passed to the run: session_state, dependencies, metadata, knowledge_filters and output_schema as JSON (dropped when not valid JSON), \"true\"/\"false\" as booleans, \"null\"/\"none\" as null (stream_events, add_history_to_context, …). Fields the run has no use for are ignored."
)

// FilesForm is the run form's uploads field, which /docs draws as a
// file input.
var FilesForm = httpapi.Param{Name: "files", Type: "array", Desc: "Images and documents (PDF, text, CSV, JSON, DOCX) attached to the input; audio and video are refused"}

// Routes are agno's /agents, /teams (tags Agents, Teams) and /workflows
// (tag Workflows) routes.
func (g *Group) Routes() []httpapi.Route {
	var routes []httpapi.Route
	// Agents and teams share one route shape.
	for _, c := range []struct {
		k                                                      kind
		list, get                                              http.HandlerFunc
		tag, a, extraForm, continueField, continueDesc, output string
	}{
		{agentKind, g.handleAgents, g.handleAgent, "Agents", "an", "", "tools", "JSON list of ToolExecution objects with the human's decisions or results", "RunOutput"},
		{teamKind, g.handleTeams, g.handleTeam, "Teams", "a", "monitor", "requirements", "JSON list of RunRequirement objects with the human's decisions", "TeamRunOutput"},
	} {
		form := []httpapi.Param{messageForm, streamForm, sessionForm, userForm, FilesForm, versionForm, backgroundForm, factoryForm}
		form[0].Desc = "The input"
		if c.extraForm != "" {
			form = append(form, httpapi.Param{Name: c.extraForm, Type: "boolean", Default: true})
		}
		k, noun := c.k, c.k.name
		p := "/" + noun + "s"
		id := p + "/{" + noun + "_id}"
		read, run := httpapi.Needs(noun+"s:read"), httpapi.Needs(noun+"s:run")
		routes = append(routes,
			httpapi.Route{Pattern: "GET " + p, Handler: c.list, Access: read, Tag: c.tag, Summary: "List " + noun + "s", Result: "[" + c.tag[:len(c.tag)-1] + "Response]"},
			httpapi.Route{Pattern: "GET " + id, Handler: c.get, Access: read, Tag: c.tag, Summary: "Get " + c.a + " " + noun, Result: c.tag[:len(c.tag)-1] + "Response"},
			httpapi.Route{Pattern: "POST " + id + "/runs", Handler: g.handleRun(k), Access: run, Tag: c.tag, Summary: "Run " + c.a + " " + noun, Desc: runFormExtra, Form: form, Stream: true,
				Result: c.output + "; an SSE stream when stream=true; 202 {run_id, session_id, status} for a background run"},
			httpapi.Route{Pattern: "POST " + id + "/runs/{run_id}/cancel", Handler: g.handleCancel(k), Access: run, Tag: c.tag, Summary: "Cancel " + c.a + " " + noun + " run", Query: []httpapi.Param{sessionQuery}, Result: "{}"},
			httpapi.Route{Pattern: "POST " + id + "/runs/{run_id}/continue", Handler: g.handleContinue(k), Access: run, Tag: c.tag, Summary: "Continue a paused " + noun + " run", Desc: runFormExtra,
				Form:   []httpapi.Param{{Name: c.continueField, Type: "string", Desc: c.continueDesc}, sessionReqForm, userForm, streamForm, backgroundForm},
				Stream: true, Result: c.output + ", or an SSE stream"},
			// agno's table names no resume route: its handler checks the run scope.
			httpapi.Route{Pattern: "POST " + id + "/runs/{run_id}/resume", Handler: g.handleResume(k), Access: httpapi.CheckedBy("OS.mayRun: " + noun + "s:run on the path's " + noun),
				Tag: c.tag, Summary: "Resume " + c.a + " " + noun + " run's event stream", Form: []httpapi.Param{lastEventForm, sessionOptForm}, Stream: true, Result: "SSE stream: missed events, then live ones"},
			httpapi.Route{Pattern: "GET " + id + "/runs/{run_id}", Handler: g.handleGetRun(k), Access: read, Tag: c.tag, Summary: "Get " + c.a + " " + noun + " run", Query: []httpapi.Param{sessionQuery}, Result: c.output},
			httpapi.Route{Pattern: "GET " + id + "/runs", Handler: g.handleListRuns(k), Access: read, Tag: c.tag, Summary: "List a session's " + noun + " runs", Query: []httpapi.Param{{Name: "session_id", Type: "string", Desc: "Session to list", Required: true}, statusQuery}, Result: "[RunSchema]"},
		)
	}
	return append(routes, g.workflowRoutes()...)
}
