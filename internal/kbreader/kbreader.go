// Package kbreader builds the knowledge readers with chunking settings,
// for the places that configure them from outside Go code: config.toml's
// [knowledge.NAME.chunking] and the reader_id / chunker fields of
// AgentOS uploads.
package kbreader

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/reader"
)

// Chunkers are agno's chunking strategy names this port implements, in
// the order agno's /knowledge/config lists them.
var Chunkers = []string{chunk.TypeDocument, chunk.TypeFixedSize, chunk.TypeMarkdown, chunk.TypeRecursive, chunk.TypeRow}

// New returns the reader of key (reader.KeyPDF, ...) chunking with opts:
// Chunker replaces the reader's default strategy, ChunkSize sizes it.
// The website and HTML readers fetch with client (nil:
// reader.DefaultClient): pass the knowledge base's, so that its
// [outbound] allowlist applies.
func New(key string, opts reader.Options, client *http.Client) (reader.Reader, error) {
	switch key {
	case reader.KeyPDF:
		return reader.NewPDF(reader.PDFOptions{Options: opts})
	case reader.KeyCSV:
		return reader.NewCSV(reader.CSVOptions{Options: opts})
	case reader.KeyJSON:
		return reader.NewJSON(opts)
	case reader.KeyMarkdown:
		return reader.NewMarkdown(opts)
	case reader.KeyText:
		return reader.NewText(opts)
	case reader.KeyWebsite:
		return reader.NewWebsite(reader.WebsiteOptions{Options: opts, HTTPClient: client})
	case reader.KeyHTML:
		return reader.NewHTML(reader.HTMLOptions{Options: opts, HTTPClient: client})
	}
	return nil, fmt.Errorf("unknown reader %q: use one of %s", key, strings.Join(Keys(), ", "))
}

// Keys lists the reader keys New accepts.
func Keys() []string {
	keys := make([]string, len(reader.Known))
	for i, r := range reader.Known {
		keys[i] = r.Key
	}
	slices.Sort(keys)
	return keys
}

// Chunker builds a chunker from agno's strategy name ("FixedSizeChunker",
// ...), size and overlap (zero size: the strategy's default).
func Chunker(strategy string, size, overlap int) (chunk.Chunker, error) {
	if !slices.Contains(Chunkers, strategy) {
		return nil, fmt.Errorf("unknown chunker %q: use one of %s", strategy, strings.Join(Chunkers, ", "))
	}
	return chunk.New(strategy, chunk.Config{Size: size, Overlap: overlap})
}

// ResolveKey is agno's reader_id resolution: lower-cased, "-" and " " as
// "_", and a trailing "reader" dropped ("PDFReader" is "pdf").
func ResolveKey(id string) (string, bool) {
	key := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(id)))
	for _, cand := range []string{key, strings.TrimSuffix(strings.TrimSuffix(key, "reader"), "_")} {
		for _, r := range reader.Known {
			if r.Key == cand {
				return cand, true
			}
		}
	}
	return "", false
}
