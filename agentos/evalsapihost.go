package agentos

import (
	"cmp"
	"net/http"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/evalsapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/team"
)

// EvalSchema is agno's EvalSchema: every field is sent, None as null;
// times are ISO 8601 datetimes.
type EvalSchema = evalsapi.EvalSchema

// EvalRunsResponse is agno's PaginatedResponse[EvalSchema].
type EvalRunsResponse = evalsapi.EvalRunsResponse

// evalsHost is what the Evals group (agentos/evalsapi) needs of the OS.
type evalsHost struct{ groupHost }

// DBID is the id of Config.DB, else of the OS store: the eval routes'
// db_id.
func (h evalsHost) DBID() string { return cmp.Or(h.o.cfg.DB.ID, h.o.cfg.DBID) }

func (h evalsHost) Agent(id string) *agent.Agent { return h.o.catalog().agents[id] }

func (h evalsHost) Team(id string) *team.Team { return h.o.catalog().teams[id] }

func (h evalsHost) MayRunAs(w http.ResponseWriter, r *http.Request, typ, id string) bool {
	return h.o.mayRunAs(w, r, typ, id)
}

func (h evalsHost) Model(provider, id string) (model.Model, error) {
	return h.o.namedModel(provider, id)
}
