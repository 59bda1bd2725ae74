// Package reader turns files, bytes and web pages into documents: agno's
// readers for text, markdown, PDF, CSV, JSON, HTML and websites, each
// chunking what it read with its default chunker unless told otherwise.
//
// Documents carry agno's metadata names ("page" for PDF pages and JSON
// items, "url" for web pages, "row_number" for CSV rows, "chunk" and
// "chunk_size" from chunking).
//
// Readers are registered by key (Register), with the extensions and MIME
// types they read; a knowledge base picks one by file type (KeyForType)
// and refuses types no reader reads.
//
// Readers fetch web pages with reader.DefaultClient unless given a
// client: it refuses internal addresses (package netguard), because the
// URLs come from callers and models.
package reader

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
)

// ErrNoInput is returned when a Source has nothing the reader can read.
var ErrNoInput = errors.New("reader: nothing to read")

// Reader reads one source into documents. Implementations are safe for
// concurrent use.
type Reader interface {
	Read(ctx context.Context, src Source) ([]*document.Document, error)
}

// ClassNamer is implemented by readers that report agno's reader class
// name ("PDFReader", ...); the content hash of topic content includes it.
type ClassNamer interface {
	ClassName() string
}

// Source is what to read. File readers take Data when set, else Path;
// web readers take URL; topic readers take Topic.
type Source struct {
	// Name is the document name; readers derive one from the path or use
	// their own default when it is empty.
	Name     string
	Path     string
	Data     []byte
	URL      string
	Topic    string
	Password string
}

// bytes returns the source's content: Data, else the file at Path.
func (s Source) bytes() ([]byte, error) {
	if s.Data != nil {
		return s.Data, nil
	}
	if s.Path == "" {
		return nil, fmt.Errorf("%w: set Data or Path", ErrNoInput)
	}
	b, err := os.ReadFile(s.Path)
	if err != nil {
		return nil, fmt.Errorf("reader: %w", err)
	}
	return b, nil
}

// text decodes the source as UTF-8; invalid bytes become U+FFFD.
func (s Source) text() (string, error) {
	b, err := s.bytes()
	if err != nil {
		return "", err
	}
	if utf8.Valid(b) {
		return string(b), nil
	}
	return strings.ToValidUTF8(string(b), "\ufffd"), nil
}

// name is the document name agno's readers use: the given name, else the
// file stem, else the reader's fallback.
func (s Source) name(fallback string) string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Path != "":
		return Stem(s.Path)
	}
	return fallback
}

// Stem is Python's Path(p).stem: the last element without its final
// extension.
func Stem(p string) string {
	base := filepath.Base(p)
	if ext := filepath.Ext(base); ext != base {
		return strings.TrimSuffix(base, ext)
	}
	return base
}

// Options are the settings every reader shares (agno's Reader base).
type Options struct {
	// ChunkSize sizes the default chunker; zero means 5000.
	ChunkSize int
	// Chunker replaces the reader's default chunker.
	Chunker chunk.Chunker
	// DisableChunking returns whole documents (agno's chunk=False).
	DisableChunking bool
}

// chunking applies a reader's chunk settings.
type chunking struct {
	enabled bool
	chunker chunk.Chunker
}

func newChunking(o Options, def func(chunk.Config) (chunk.Chunker, error)) (chunking, error) {
	if o.DisableChunking {
		return chunking{}, nil
	}
	if o.Chunker != nil {
		return chunking{enabled: true, chunker: o.Chunker}, nil
	}
	c, err := def(chunk.Config{Size: o.ChunkSize})
	if err != nil {
		return chunking{}, err
	}
	return chunking{enabled: true, chunker: c}, nil
}

func (c chunking) apply(ctx context.Context, docs []*document.Document) ([]*document.Document, error) {
	if !c.enabled {
		return docs, nil
	}
	var out []*document.Document
	for _, d := range docs {
		chunks, err := c.chunker.Chunk(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, chunks...)
	}
	return out, nil
}

func fixedSize(cfg chunk.Config) (chunk.Chunker, error) { return chunk.NewFixedSize(cfg) }
