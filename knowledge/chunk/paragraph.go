package chunk

import (
	"context"
	"strings"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// Paragraph is agno's DocumentChunking: a document that fits is returned
// as it is; otherwise paragraphs (split on "\n\n", each cleaned) are packed
// into chunks of at most Size code points joined by "\n\n". A paragraph
// longer than Size is split into sentences (after ".", "!" or "?"), which
// are packed joined by " ". With Overlap, every chunk after the first is
// prefixed with the last Overlap code points of the one before.
type Paragraph struct{ cfg Config }

// agno's DocumentChunker splits by paragraphs.
func init() {
	Register(TypeDocument, func(c Config) (Chunker, error) { return NewParagraph(c) })
}

// NewParagraph returns the chunker. agno does not validate this
// strategy's sizes beyond the reader's; only negative values are refused.
func NewParagraph(cfg Config) (*Paragraph, error) {
	cfg = cfg.withDefaults()
	if cfg.Size < 0 || cfg.Overlap < 0 {
		return nil, cfg.validate()
	}
	return &Paragraph{cfg: cfg}, nil
}

// Type implements Chunker.
func (*Paragraph) Type() string { return TypeDocument }

// Chunk implements Chunker.
func (p *Paragraph) Chunk(_ context.Context, doc *document.Document) ([]*document.Document, error) {
	if textutil.Len(doc.Content) <= p.cfg.Size {
		return unchanged(doc), nil
	}
	var (
		chunks  []*document.Document
		current []string
		size    int
		number  = 1
	)
	flush := func(sep string) {
		content := strings.Join(current, sep)
		chunks = append(chunks, newChunk(doc, number, content, textutil.Len(content)))
		number++
	}
	for _, raw := range strings.Split(doc.Content, "\n\n") {
		para := strings.TrimFunc(textutil.Clean(raw), textutil.IsSpace)
		if para == "" {
			continue
		}
		paraSize := textutil.Len(para)
		switch {
		case paraSize > p.cfg.Size:
			if len(current) > 0 {
				flush("\n\n")
				current, size = nil, 0
			}
			for _, sentence := range sentences(para) {
				sentence = strings.TrimFunc(sentence, textutil.IsSpace)
				if sentence == "" {
					continue
				}
				n := textutil.Len(sentence)
				if size+n <= p.cfg.Size {
					current = append(current, sentence)
					size += n
					continue
				}
				if len(current) > 0 {
					flush(" ")
				}
				current, size = []string{sentence}, n
			}
		case size+paraSize <= p.cfg.Size:
			current = append(current, para)
			size += paraSize
		default:
			if len(current) > 0 {
				flush("\n\n")
			}
			current, size = []string{para}, paraSize
		}
	}
	if len(current) > 0 {
		flush("\n\n")
	}
	return withOverlap(doc, chunks, p.cfg.Overlap), nil
}

// sentences is Python's re.split(r"(?<=[.!?])\s+", s): it splits at every
// whitespace run that follows a sentence end and drops the run.
func sentences(s string) []string {
	var out []string
	start := 0
	runes := []rune(s)
	for i := 1; i < len(runes); i++ {
		prev := runes[i-1]
		if !textutil.IsSpace(runes[i]) || (prev != '.' && prev != '!' && prev != '?') {
			continue
		}
		j := i
		for j < len(runes) && textutil.IsSpace(runes[j]) {
			j++
		}
		out = append(out, string(runes[start:i]))
		start = j
		i = j
	}
	return append(out, string(runes[start:]))
}
