package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
)

// JSON is agno's JSONReader: an object is one document, an array one
// document per item with "page" (1-based) in its metadata. Each content is
// the item as Python's json.dumps(item, ensure_ascii=False) writes it,
// keys in file order. Chunked by FixedSize by default.
type JSON struct{ chunking chunking }

func init() {
	Register(KeyJSON, Spec{
		Name: "JSON Reader", Description: "Processes JSON data structures and API responses with nested object handling",
		ContentTypes: []string{"file", ".json", "application/json"},
		Chunkers:     []string{chunk.TypeFixedSize, chunk.TypeDocument, chunk.TypeRecursive},
		New:          func(o FactoryOptions) (Reader, error) { return NewJSON(o.Options) },
	})
}

// NewJSON returns a JSON reader.
func NewJSON(o Options) (*JSON, error) {
	c, err := newChunking(o, fixedSize)
	return &JSON{c}, err
}

// ClassName implements ClassNamer.
func (*JSON) ClassName() string { return "JSONReader" }

// Read implements Reader.
func (r *JSON) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	data, err := src.bytes()
	if err != nil {
		return nil, err
	}
	name := src.name("json_file")
	data = bytes.TrimSpace(data)
	var items []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("reader: json %s: %w", name, err)
		}
	} else {
		if !json.Valid(data) {
			return nil, fmt.Errorf("reader: json %s: not valid JSON", name)
		}
		items = []json.RawMessage{data}
	}
	docs := make([]*document.Document, 0, len(items))
	for i, item := range items {
		// A RawMessage keeps the file's key order through pyjson, as a
		// Python dict keeps json.load's order.
		content, err := pyjson.DumpsOpts(item, pyjson.Options{NoEnsureASCII: true})
		if err != nil {
			return nil, fmt.Errorf("reader: json %s item %d: %w", name, i+1, err)
		}
		docs = append(docs, &document.Document{Name: name, ID: uuid.NewString(), MetaData: map[string]any{"page": i + 1}, Content: content})
	}
	return r.chunking.apply(ctx, docs)
}
