package chunk

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
)

// MarkdownConfig configures a Markdown chunker.
type MarkdownConfig struct {
	Config
	// SplitOnHeadings is agno's split_on_headings: 0 (False) packs
	// sections by size; 1 to 6 start a new chunk at every heading of that
	// level or higher (6, like True, splits on all headings).
	SplitOnHeadings int
}

// Markdown is agno's MarkdownChunking. With SplitOnHeadings every heading
// section is a chunk of its own, sections longer than Size are split by
// paragraph (then by word) and repeat their heading line. Without it, a
// document that fits is returned as it is and sections are packed into
// chunks of at most Size code points joined by "\n\n".
//
// agno partitions markdown with the unstructured library when not
// splitting on headings; that library is Python-only, so here sections are
// cut at every heading and packed the same way. Chunk boundaries can
// therefore differ from agno's in that mode, never in heading mode.
type Markdown struct {
	cfg     MarkdownConfig
	heading *regexp.Regexp
}

var headingLine = regexp.MustCompile(`^#{1,6}\s+`)

func init() {
	Register(TypeMarkdown, func(c Config) (Chunker, error) { return NewMarkdown(MarkdownConfig{Config: c}) })
}

// NewMarkdown validates cfg and returns the chunker.
func NewMarkdown(cfg MarkdownConfig) (*Markdown, error) {
	cfg.Config = cfg.Config.withDefaults()
	if cfg.SplitOnHeadings < 0 || cfg.SplitOnHeadings > 6 {
		return nil, fmt.Errorf("%w: split_on_headings must be between 1 and 6 (or 0 for off), got %d", ErrInvalidConfig, cfg.SplitOnHeadings)
	}
	if cfg.Size < 0 || cfg.Overlap < 0 {
		return nil, cfg.validate()
	}
	level := cfg.SplitOnHeadings
	if level == 0 {
		level = 6
	}
	return &Markdown{cfg: cfg, heading: regexp.MustCompile(fmt.Sprintf(`(?m)^#{1,%d}\s+.+$`, level))}, nil
}

// Type implements Chunker.
func (*Markdown) Type() string { return TypeMarkdown }

// Chunk implements Chunker.
func (m *Markdown) Chunk(_ context.Context, doc *document.Document) ([]*document.Document, error) {
	if doc.Content == "" {
		return unchanged(doc), nil
	}
	split := m.cfg.SplitOnHeadings > 0
	if !split && textutil.Len(doc.Content) <= m.cfg.Size {
		return unchanged(doc), nil
	}
	var (
		chunks  []*document.Document
		current []string
		size    int
		number  = 1
	)
	add := func(content string) {
		chunks = append(chunks, newChunk(doc, number, content, textutil.Len(content)))
		number++
	}
	for _, section := range m.sections(doc.Content) {
		section = strings.TrimFunc(section, textutil.IsSpace)
		n := textutil.Len(section)
		switch {
		case split:
			for _, sub := range m.splitLarge(section) {
				add(sub)
			}
		case !split && n > m.cfg.Size:
			// Not in agno's loop (unstructured never yields an element
			// above max_characters); split the same way heading mode does.
			if len(current) > 0 {
				add(strings.Join(current, "\n\n"))
				current, size = nil, 0
			}
			for _, sub := range m.splitLarge(section) {
				add(sub)
			}
		case size+n <= m.cfg.Size:
			current = append(current, section)
			size += n
		default:
			if len(current) > 0 {
				add(strings.Join(current, "\n\n"))
			}
			current, size = []string{section}, n
		}
	}
	if len(current) > 0 && !split {
		add(strings.Join(current, "\n\n"))
	}
	return withOverlap(doc, chunks, m.cfg.Overlap), nil
}

// sections is agno's _split_by_headings: each heading starts a section
// that keeps the text up to the next heading, joined to it by "\n\n".
func (m *Markdown) sections(content string) []string {
	var parts []string
	last := 0
	for _, loc := range m.heading.FindAllStringIndex(content, -1) {
		parts = append(parts, content[last:loc[0]], content[loc[0]:loc[1]])
		last = loc[1]
	}
	parts = append(parts, content[last:])

	var sections []string
	current := ""
	for i, part := range parts {
		if strings.TrimFunc(part, textutil.IsSpace) == "" {
			continue
		}
		if i%2 == 1 { // a heading matched by the split pattern
			if strings.TrimFunc(current, textutil.IsSpace) != "" {
				sections = append(sections, strings.TrimFunc(current, textutil.IsSpace))
			}
			current = part
			continue
		}
		if current != "" {
			current += "\n\n" + part
		} else {
			current = part
		}
	}
	if strings.TrimFunc(current, textutil.IsSpace) != "" {
		sections = append(sections, strings.TrimFunc(current, textutil.IsSpace))
	}
	if len(sections) == 0 {
		return []string{content}
	}
	return sections
}

var paragraphBreak = regexp.MustCompile(`\n\n+`)

// splitLarge is agno's _split_large_section: a section longer than Size
// is split into paragraph groups (and over-long paragraphs into word
// groups), each repeating the section's heading line.
func (m *Markdown) splitLarge(section string) []string {
	size := m.cfg.Size
	if textutil.Len(section) <= size {
		return []string{section}
	}
	lines := strings.Split(section, "\n")
	heading, body := "", lines
	if headingLine.MatchString(lines[0]) {
		heading, body = lines[0], lines[1:]
	}
	content := strings.TrimFunc(strings.Join(body, "\n"), textutil.IsSpace)
	if content == "" {
		return []string{section}
	}
	headingSize := 0
	if heading != "" {
		headingSize = textutil.Len(heading) + 2
	}
	withHeading := func(text string) string {
		if heading != "" {
			text = heading + "\n\n" + text
		}
		return strings.TrimFunc(text, textutil.IsSpace)
	}
	var chunks, current []string
	for _, para := range paragraphBreak.Split(content, -1) {
		para = strings.TrimFunc(para, textutil.IsSpace)
		if para == "" {
			continue
		}
		currentSize := 2 * len(current)
		for _, p := range current {
			currentSize += textutil.Len(p)
		}
		paraSize := textutil.Len(para)
		if len(current) > 0 && headingSize+currentSize+paraSize+2 > size {
			chunks = append(chunks, withHeading(strings.Join(current, "\n\n")))
			current = nil
		}
		if paraSize+headingSize <= size {
			current = append(current, para)
			continue
		}
		if len(current) > 0 {
			chunks = append(chunks, withHeading(strings.Join(current, "\n\n")))
			current = nil
		}
		available := size - headingSize
		var words []string
		wordsLen := 0
		for _, w := range textutil.Fields(para) {
			n := textutil.Len(w)
			if wordsLen+n+1 > available && len(words) > 0 {
				chunks = append(chunks, withHeading(strings.Join(words, " ")))
				words, wordsLen = nil, 0
			}
			words = append(words, w)
			wordsLen += n + 1
		}
		if len(words) > 0 {
			current = append(current, strings.Join(words, " "))
		}
	}
	if len(current) > 0 {
		chunks = append(chunks, withHeading(strings.Join(current, "\n\n")))
	}
	if len(chunks) == 0 {
		return []string{section}
	}
	return chunks
}
