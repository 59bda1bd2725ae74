package chunk

import (
	"context"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// Recursive is agno's RecursiveChunking: a document that fits is returned
// as it is; otherwise each chunk ends after the last newline in its window,
// else after the last ".", else at the limit, and is then cleaned. When the
// overlap would not move forward, the next chunk starts a tenth of Size
// further on.
type Recursive struct{ cfg Config }

func init() {
	Register(TypeRecursive, func(c Config) (Chunker, error) { return NewRecursive(c) })
}

// NewRecursive validates cfg and returns the chunker.
func NewRecursive(cfg Config) (*Recursive, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Recursive{cfg: cfg}, nil
}

// Type implements Chunker.
func (*Recursive) Type() string { return TypeRecursive }

// Chunk implements Chunker.
func (c *Recursive) Chunk(_ context.Context, doc *document.Document) ([]*document.Document, error) {
	text := []rune(doc.Content)
	n := len(text)
	if n <= c.cfg.Size {
		return unchanged(doc), nil
	}
	var out []*document.Document
	for start, number := 0, 1; start < n; number++ {
		end := min(start+c.cfg.Size, n)
		if end < n {
			for _, sep := range []rune{'\n', '.'} {
				if i := lastIndex(text[start:end], sep); i >= 0 {
					end = start + i + 1
					break
				}
			}
		}
		chunk := textutil.Clean(string(text[start:end]))
		out = append(out, newChunk(doc, number, chunk, textutil.Len(chunk)))
		if end >= n {
			break
		}
		next := end - c.cfg.Overlap
		if next <= start {
			next = min(n, start+max(1, c.cfg.Size/10))
		}
		start = next
	}
	return out, nil
}

func lastIndex(s []rune, r rune) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == r {
			return i
		}
	}
	return -1
}
