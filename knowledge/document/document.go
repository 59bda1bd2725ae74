// Package document holds Document, the unit the knowledge pipeline reads,
// chunks, embeds, stores and returns from searches (agno's
// knowledge.document.Document).
package document

import (
	"maps"

	"github.com/agno-go/agno/knowledge/embedder"
)

// Document is a piece of text with its metadata. Readers produce them,
// chunkers split them, vector stores keep and return them.
type Document struct {
	Content string `json:"content"`
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
	// MetaData keeps agno's field name; chunkers add "chunk" and
	// "chunk_size", search results add "similarity_score".
	MetaData       map[string]any  `json:"meta_data"`
	Embedding      []float32       `json:"embedding,omitempty"`
	Usage          *embedder.Usage `json:"usage,omitempty"`
	RerankingScore *float64        `json:"reranking_score,omitempty"`
	// ContentID is the id of the Content the document was read from.
	ContentID     string `json:"content_id,omitempty"`
	ContentOrigin string `json:"content_origin,omitempty"`
	// Size is the content's length in UTF-8 bytes when the pipeline
	// computed it (URL and topic sources), else zero.
	Size int64 `json:"size,omitempty"`
}

// Clone returns a copy whose metadata map and embedding can be changed
// without touching d.
func (d *Document) Clone() *Document {
	c := *d
	c.MetaData = maps.Clone(d.MetaData)
	if c.MetaData == nil {
		c.MetaData = map[string]any{}
	}
	if d.Embedding != nil {
		c.Embedding = append([]float32(nil), d.Embedding...)
	}
	if d.Usage != nil {
		u := *d.Usage
		c.Usage = &u
	}
	return &c
}

// Dict is agno's Document.to_dict(): name and meta_data when set, and
// content always. agno builds it from a Python set, so its key order is
// not stable; this one writes name, meta_data, content.
type Dict struct {
	Name     *string        `json:"name,omitempty"`
	MetaData map[string]any `json:"meta_data"`
	Content  string         `json:"content"`
}

// ToDict returns d as agno's to_dict does. An empty name is agno's None.
func (d *Document) ToDict() Dict {
	out := Dict{Content: d.Content, MetaData: d.MetaData}
	if d.Name != "" {
		name := d.Name
		out.Name = &name
	}
	if out.MetaData == nil {
		// agno's meta_data defaults to {} and is never None.
		out.MetaData = map[string]any{}
	}
	return out
}
