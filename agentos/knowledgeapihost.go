package agentos

import (
	"github.com/agno-go/agno/agentos/knowledgeapi"
	"github.com/agno-go/agno/knowledge"
)

// knowledgeHost is what the Knowledge group needs of the OS
// (knowledgeapi.Host).
type knowledgeHost struct{ *Host }

// Knowledge are the agents' knowledge bases, then the teams', then
// Config.Knowledge, as the catalog serves them now.
func (h knowledgeHost) Knowledge() []*knowledge.Knowledge {
	var out []*knowledge.Knowledge
	c := h.o.catalog()
	for _, a := range c.Agents {
		out = append(out, asKnowledge(a.Config().Knowledge))
	}
	for _, t := range c.Teams {
		out = append(out, asKnowledge(t.Config().Knowledge))
	}
	return append(out, h.o.cfg.Knowledge...)
}

// Instance is the run engine's instance id.
func (h knowledgeHost) Instance() string { return h.o.eng.Instance() }

// asKnowledge is the knowledge base behind an agent's or team's
// Knowledge (the registry walks them too).
var asKnowledge = knowledgeapi.AsKnowledge
