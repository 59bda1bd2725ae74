package chunk

import (
	"context"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// FixedSize is agno's FixedSizeChunking: it cleans the text (every
// whitespace run becomes one space), then cuts chunks of at most Size code
// points at the last whitespace before the limit, or hard at the limit when
// a chunk has none. The next chunk starts Overlap code points before the
// previous end, and always at least one code point further on; chunking
// stops once fewer than Overlap code points are left after the start.
type FixedSize struct{ cfg Config }

func init() {
	Register(TypeFixedSize, func(c Config) (Chunker, error) { return NewFixedSize(c) })
}

// NewFixedSize validates cfg and returns the chunker.
func NewFixedSize(cfg Config) (*FixedSize, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &FixedSize{cfg: cfg}, nil
}

// Type implements Chunker.
func (*FixedSize) Type() string { return TypeFixedSize }

// Chunk implements Chunker. Chunk metadata adds "chunk" (1-based) and
// "chunk_size" (the chunk's length) to the document's metadata.
func (f *FixedSize) Chunk(_ context.Context, doc *document.Document) ([]*document.Document, error) {
	text := []rune(textutil.Clean(doc.Content))
	n := len(text)
	var out []*document.Document
	// agno v2.6.13 loops while start+overlap < len; later agno versions
	// loop while start < len and add tail chunks. The spec's golden
	// chunks are v2.6.13's.
	for start, number := 0, 1; start+f.cfg.Overlap < n; number++ {
		end := min(start+f.cfg.Size, n)
		if end < n {
			for end > start && !isCut(text[end]) {
				end--
			}
		}
		if end == start {
			end = min(start+f.cfg.Size, n)
		}
		chunk := string(text[start:end])
		out = append(out, newChunk(doc, number, chunk, end-start))
		start = max(start+1, end-f.cfg.Overlap)
	}
	return out, nil
}

// isCut is the set agno's fixed chunker cuts at.
func isCut(r rune) bool { return r == ' ' || r == '\n' || r == '\r' || r == '\t' }
