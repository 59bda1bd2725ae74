package agent

import (
	"encoding/json"
	"fmt"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/run"
)

// MessageReferences is agno's MessageReferences: the documents one query
// retrieved from the knowledge base, and how long it took (seconds).
type MessageReferences struct {
	Query      string          `json:"query"`
	References []document.Dict `json:"references"`
	Time       float64         `json:"time"`
}

// References decodes the references of a run output (agno's
// run_response.references): one entry per search_knowledge_base call
// that found documents, and one for add_knowledge_to_context.
func References(out *run.Output) ([]MessageReferences, error) {
	if out == nil || len(out.References) == 0 {
		return nil, nil
	}
	var refs []MessageReferences
	if err := json.Unmarshal(out.References, &refs); err != nil {
		return nil, fmt.Errorf("agent: run %s has unreadable references: %w", out.RunID, err)
	}
	return refs, nil
}
