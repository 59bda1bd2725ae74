package chunk

import (
	"context"
	"strings"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// RowConfig configures a Row chunker.
type RowConfig struct {
	// SkipHeader drops the first line; row numbers then start at 2.
	SkipHeader bool
	// KeepWhitespace only trims rows instead of collapsing their inner
	// whitespace (agno's clean_rows=False).
	KeepWhitespace bool
}

// Row is agno's RowChunking, the CSV reader's default: one chunk per
// non-empty line, with "row_number" in its metadata and id
// "{doc.id}_{row_number}".
type Row struct{ cfg RowConfig }

// Row chunks by line, so sizes do not apply.
func init() {
	Register(TypeRow, func(Config) (Chunker, error) { return NewRow(RowConfig{}), nil })
}

// NewRow returns the chunker.
func NewRow(cfg RowConfig) *Row { return &Row{cfg: cfg} }

// Type implements Chunker.
func (*Row) Type() string { return TypeRow }

// Chunk implements Chunker.
func (c *Row) Chunk(_ context.Context, doc *document.Document) ([]*document.Document, error) {
	if doc.Content == "" {
		return nil, nil
	}
	rows := textutil.SplitLines(doc.Content)
	first := 1
	if c.cfg.SkipHeader && len(rows) > 0 {
		rows, first = rows[1:], 2
	}
	var out []*document.Document
	for i, row := range rows {
		var content string
		if c.cfg.KeepWhitespace {
			content = strings.TrimFunc(row, textutil.IsSpace)
		} else {
			content = strings.Join(textutil.Fields(row), " ")
		}
		if content == "" {
			continue
		}
		meta := make(map[string]any, len(doc.MetaData)+1)
		for k, v := range doc.MetaData {
			meta[k] = v
		}
		meta["row_number"] = first + i
		out = append(out, &document.Document{
			ID:       ChunkID(doc, first+i, content),
			Name:     doc.Name,
			MetaData: meta,
			Content:  content,
		})
	}
	return out, nil
}
