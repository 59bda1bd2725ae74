package agentos

import (
	"cmp"

	"github.com/agno-go/agno/agentos/knowledgeapi"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/reader"
)

// addKnowledge adds a knowledge base of an agent, a team or the OS
// (agno's registry walks knowledge → vector_db and contents_db); the
// same instance is added once.
func (r *Registry) addKnowledge(k *knowledge.Knowledge) {
	if k == nil || !r.claim(k) {
		return
	}
	r.knowledge = append(r.knowledge, k)
}

// knowledgeEntries are the knowledge bases (those with a contents DB,
// as agno lists them) and their vector stores, deduplicated by id, else
// name (agno's add_vector_db).
func (r *Registry) knowledgeEntries(list []*knowledge.Knowledge, dbID string, want func(ResourceType) bool) []RegistryEntry {
	var out []RegistryEntry
	seen := map[string]bool{}
	for _, k := range list {
		vdb := k.VectorDB()
		if k.ContentsDB() != nil && want(ResourceKnowledge) {
			id, name := knowledgeapi.Describe(k, dbID)
			md := map[string]any{"class_path": "agno.knowledge.knowledge.Knowledge", "contents_db_class": typePath(k.ContentsDB()),
				"max_results": k.MaxResults(), "num_readers": len(reader.Names())}
			if vdb != nil {
				md["vector_db_class"] = typePath(vdb)
			}
			out = append(out, RegistryEntry{Name: name, Type: ResourceKnowledge, ID: id, Description: k.Description(), Metadata: md})
		}
		if vdb == nil || !want(ResourceVectorDB) {
			continue
		}
		info := vdb.Info()
		key := cmp.Or(info.ID, info.Name)
		if seen[key] {
			continue
		}
		seen[key] = true
		md := map[string]any{"class_path": typePath(vdb), "vector_db_id": info.ID}
		if t, ok := vdb.(interface{ Table() string }); ok {
			md["table_name"] = t.Table()
		}
		out = append(out, RegistryEntry{Name: cmp.Or(info.Name, info.ID), Type: ResourceVectorDB, ID: info.ID, Description: info.Description, Metadata: compact(md)})
	}
	return out
}

// knowledgeCounts counts the entries knowledgeEntries lists.
func (r *Registry) knowledgeCounts(list []*knowledge.Knowledge, counts map[ResourceType]int) {
	for _, e := range r.knowledgeEntries(list, "", func(ResourceType) bool { return true }) {
		counts[e.Type]++
	}
}
