// Package chunk splits documents into the pieces that get embedded:
// agno's chunking strategies with their chunk ids and metadata.
//
// Sizes and offsets count code points, as Python's len does, so a chunk of
// non-ASCII text is cut where agno cuts it.
package chunk

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// DefaultSize is agno's chunk_size default.
const DefaultSize = 5000

// ErrInvalidConfig is returned for sizes or overlaps a chunker cannot use.
var ErrInvalidConfig = errors.New("chunk: invalid config")

// Chunker splits one document into chunks. Implementations are safe for
// concurrent use; the input document is not modified.
type Chunker interface {
	Chunk(ctx context.Context, doc *document.Document) ([]*document.Document, error)
	// Type is agno's ChunkingStrategyType value ("FixedSizeChunker", ...).
	Type() string
}

// agno's ChunkingStrategyType values for the chunkers in this package.
const (
	TypeFixedSize = "FixedSizeChunker"
	TypeRecursive = "RecursiveChunker"
	TypeDocument  = "DocumentChunker"
	TypeMarkdown  = "MarkdownChunker"
	TypeRow       = "RowChunker"
)

// Config sizes a chunker.
type Config struct {
	// Size is the maximum chunk length in code points; zero means
	// DefaultSize.
	Size int
	// Overlap is how many code points of one chunk the next repeats.
	Overlap int
}

func (c Config) withDefaults() Config {
	if c.Size == 0 {
		c.Size = DefaultSize
	}
	return c
}

// validate applies agno's FixedSizeChunking and RecursiveChunking checks.
func (c Config) validate() error {
	switch {
	case c.Size <= 0:
		return fmt.Errorf("%w: chunk size (%d) must be greater than 0", ErrInvalidConfig, c.Size)
	case c.Overlap < 0:
		return fmt.Errorf("%w: overlap (%d) must be non-negative", ErrInvalidConfig, c.Overlap)
	case c.Overlap >= c.Size:
		return fmt.Errorf("%w: overlap (%d) must be less than chunk size (%d)", ErrInvalidConfig, c.Overlap, c.Size)
	}
	return nil
}

// ChunkID is agno's _generate_chunk_id: "{doc.id}_{n}", else
// "{doc.name}_{n}", else "chunk_{md5(content)[:12]}_{n}".
func ChunkID(doc *document.Document, n int, content string) string {
	switch {
	case doc.ID != "":
		return doc.ID + "_" + strconv.Itoa(n)
	case doc.Name != "":
		return doc.Name + "_" + strconv.Itoa(n)
	}
	src := content
	if src == "" {
		src = doc.Content
	}
	sum := md5.Sum([]byte(src))
	return "chunk_" + hex.EncodeToString(sum[:])[:12] + "_" + strconv.Itoa(n)
}

// newChunk builds chunk n of doc with the metadata agno adds.
func newChunk(doc *document.Document, n int, content string, size int) *document.Document {
	meta := maps.Clone(doc.MetaData)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["chunk"] = n
	meta["chunk_size"] = size
	return &document.Document{
		ID:       ChunkID(doc, n, content),
		Name:     doc.Name,
		MetaData: meta,
		Content:  content,
	}
}

// withOverlap prefixes every chunk after the first with the last overlap
// code points of the chunk before it, as agno's DocumentChunking and
// MarkdownChunking do after splitting.
func withOverlap(doc *document.Document, chunks []*document.Document, overlap int) []*document.Document {
	if overlap <= 0 {
		return chunks
	}
	out := make([]*document.Document, len(chunks))
	for i, c := range chunks {
		if i == 0 {
			out[i] = c
			continue
		}
		prev := textutil.Tail(chunks[i-1].Content, overlap)
		if prev == "" {
			out[i] = c
			continue
		}
		meta := maps.Clone(doc.MetaData)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["chunk"] = c.MetaData["chunk"]
		content := prev + c.Content
		meta["chunk_size"] = textutil.Len(content)
		out[i] = &document.Document{ID: c.ID, Name: doc.Name, MetaData: meta, Content: content}
	}
	return out
}

// unchanged returns the document itself as the only chunk, as agno's
// chunkers do for content that already fits.
func unchanged(doc *document.Document) []*document.Document {
	return []*document.Document{doc.Clone()}
}
