package agentos

import (
	"net/http"

	"github.com/agno-go/agno/agentos/knowledgeapi"
	"github.com/agno-go/agno/agentos/registryapi"
	"github.com/agno-go/agno/knowledge"
)

// registryHost is what the Registry group needs of the OS
// (registryapi.Host).
type registryHost struct{ o *OS }

func (h registryHost) Registry() *registryapi.Registry { return h.o.registry().Registry }

func (h registryHost) MayRead(r *http.Request, e registryapi.Entry) bool { return h.o.mayRead(r, e) }

// knowledgeNamer lists knowledge bases under the ids and names the
// knowledge routes serve them by, with contents DB dbID.
func knowledgeNamer(dbID string) registryapi.KnowledgeNamer {
	return func(k *knowledge.Knowledge) (id, name string) { return knowledgeapi.Describe(k, dbID) }
}
