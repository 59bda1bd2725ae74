package reader

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/uuid"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
)

// Text is agno's TextReader: one document named after the file stem with
// a random id, chunked by FixedSize by default.
type Text struct{ chunking chunking }

func init() {
	Register(KeyText, Spec{
		Name: "Text Reader", Description: "Handles plain text files with customizable chunking strategies and encoding detection",
		ContentTypes: []string{"text", "file", ".txt", ".text", "text/plain"},
		Chunkers:     []string{chunk.TypeFixedSize, chunk.TypeDocument, chunk.TypeRecursive},
		New:          func(o FactoryOptions) (Reader, error) { return NewText(o.Options) },
	})
	Register(KeyMarkdown, Spec{
		Name: "Markdown Reader", Description: "Processes Markdown documentation with header-aware chunking and formatting preservation",
		ContentTypes: []string{"file", ".md", ".markdown", "text/markdown"},
		Chunkers:     []string{chunk.TypeMarkdown, chunk.TypeDocument, chunk.TypeRecursive, chunk.TypeFixedSize},
		New:          func(o FactoryOptions) (Reader, error) { return NewMarkdown(o.Options) },
	})
	Register(KeyCSV, Spec{
		Name: "CSV Reader", Description: "Parses CSV files with custom delimiter support",
		ContentTypes: []string{"file", ".csv", "text/csv"},
		Chunkers:     []string{chunk.TypeRow, chunk.TypeFixedSize, chunk.TypeDocument, chunk.TypeRecursive},
		New:          func(o FactoryOptions) (Reader, error) { return NewCSV(CSVOptions{Options: o.Options}) },
	})
}

// NewText returns a text reader.
func NewText(o Options) (*Text, error) {
	c, err := newChunking(o, fixedSize)
	return &Text{c}, err
}

// ClassName implements ClassNamer.
func (*Text) ClassName() string { return "TextReader" }

// Read implements Reader.
func (r *Text) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	text, err := src.text()
	if err != nil {
		return nil, err
	}
	doc := &document.Document{Name: src.name("text_file"), ID: uuid.NewString(), Content: text, MetaData: map[string]any{}}
	return r.chunking.apply(ctx, []*document.Document{doc})
}

// Markdown is agno's MarkdownReader: like Text, chunked by the Markdown
// chunker by default.
type Markdown struct{ chunking chunking }

// NewMarkdown returns a markdown reader.
func NewMarkdown(o Options) (*Markdown, error) {
	c, err := newChunking(o, func(cfg chunk.Config) (chunk.Chunker, error) {
		return chunk.NewMarkdown(chunk.MarkdownConfig{Config: cfg})
	})
	return &Markdown{c}, err
}

// ClassName implements ClassNamer.
func (*Markdown) ClassName() string { return "MarkdownReader" }

// Read implements Reader.
func (r *Markdown) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	text, err := src.text()
	if err != nil {
		return nil, err
	}
	doc := &document.Document{Name: src.name("file"), ID: uuid.NewString(), Content: text, MetaData: map[string]any{}}
	return r.chunking.apply(ctx, []*document.Document{doc})
}

// CSVOptions configures a CSV reader.
type CSVOptions struct {
	Options
	// Delimiter separates fields; zero means ','.
	Delimiter rune
}

// CSV is agno's CSVReader: every record becomes a line of its fields
// joined by ", ", all in one document, which the Row chunker (the default)
// splits into one chunk per row with "row_number" metadata.
type CSV struct {
	chunking  chunking
	delimiter rune
}

// NewCSV returns a CSV reader.
func NewCSV(o CSVOptions) (*CSV, error) {
	c, err := newChunking(o.Options, func(chunk.Config) (chunk.Chunker, error) {
		return chunk.NewRow(chunk.RowConfig{}), nil
	})
	d := o.Delimiter
	if d == 0 {
		d = ','
	}
	return &CSV{chunking: c, delimiter: d}, err
}

// ClassName implements ClassNamer.
func (*CSV) ClassName() string { return "CSVReader" }

// Read implements Reader.
func (r *CSV) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	text, err := src.text()
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "\ufeff")))
	cr.Comma = r.delimiter
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	var b strings.Builder
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reader: csv %s: %w", src.name("csv_file"), err)
		}
		b.WriteString(strings.Join(rec, ", "))
		b.WriteByte('\n')
	}
	doc := &document.Document{Name: src.name("csv_file"), ID: uuid.NewString(), Content: b.String(), MetaData: map[string]any{}}
	return r.chunking.apply(ctx, []*document.Document{doc})
}
