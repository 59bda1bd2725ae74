package reader

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/agno-go/agno/internal/registry"
)

// Reader keys (agno's ReaderFactory keys; "html" is this port's own).
const (
	KeyPDF      = "pdf"
	KeyCSV      = "csv"
	KeyJSON     = "json"
	KeyMarkdown = "markdown"
	KeyText     = "text"
	KeyWebsite  = "website"
	KeyHTML     = "html"
)

// FactoryOptions are what a knowledge base gives every reader it builds.
// Each reader takes what applies to it (only the web readers fetch), so
// the knowledge base needs no case per reader.
type FactoryOptions struct {
	// Options are the chunk settings.
	Options
	// HTTPClient fetches URLs; nil is DefaultClient.
	HTTPClient *http.Client
	// MaxBytes bounds one fetched page or file; zero is the reader's
	// default.
	MaxBytes int64
	Logger   *slog.Logger
}

// Factory builds a reader.
type Factory func(FactoryOptions) (Reader, error)

// Spec is a registered reader: agno's READER_METADATA entry, the content
// types it reads and its factory.
type Spec struct {
	// Name and Description are shown in listings ("PDF Reader").
	Name        string
	Description string
	// ContentTypes are agno's get_supported_content_types: the kinds
	// "file", "url" and "text", file extensions (".pdf") and MIME types
	// ("application/pdf"). The extensions and MIME types pick this reader
	// for a file (KeyForType); no two readers may list the same one.
	ContentTypes []string
	// Chunkers are the chunking strategies the reader offers, in agno's
	// order (get_supported_chunking_strategies).
	Chunkers []string
	New      Factory
}

var (
	readers = registry.New[Spec]("reader")
	// byType maps an extension or MIME type to the key of its reader.
	typesMu sync.RWMutex
	byType  = map[string]string{}
)

// Register makes a reader available under key: to knowledge bases, which
// pick it for the extensions and MIME types in s.ContentTypes, and to
// AgentOS's reader_id and /knowledge/config. The built-in readers
// register themselves from this package's init; a program registers its
// own the same way, before building knowledge bases. It panics on an
// empty or taken key, a nil factory, or a type another reader reads.
func Register(key string, s Spec) {
	if s.New == nil {
		panic(fmt.Sprintf("reader: Register %q with a nil factory", key))
	}
	s.ContentTypes = slices.Clone(s.ContentTypes)
	s.Chunkers = slices.Clone(s.Chunkers)
	typesMu.Lock()
	defer typesMu.Unlock()
	var types []string
	for _, t := range s.ContentTypes {
		if !isFileType(t) {
			continue
		}
		t = normType(t)
		if other, taken := byType[t]; taken {
			panic(fmt.Sprintf("reader: Register %q: type %q is already read by %q", key, t, other))
		}
		types = append(types, t)
	}
	readers.Register(key, s)
	for _, t := range types {
		byType[t] = key
	}
}

// Lookup returns the reader registered under key.
func Lookup(key string) (Spec, bool) { return readers.Lookup(key) }

// Names lists the registered reader keys, sorted.
func Names() []string { return readers.Names() }

// Types lists the file extensions and MIME types some reader reads,
// sorted.
func Types() []string {
	typesMu.RLock()
	defer typesMu.RUnlock()
	return slices.Sorted(maps.Keys(byType))
}

// ContentTypeReaders is agno's get_content_types_to_readers_mapping: for
// each content type a reader lists (kinds, extensions, MIME types), the
// keys of the readers that list it, sorted.
func ContentTypeReaders() map[string][]string {
	out := map[string][]string{}
	for _, key := range Names() {
		s, _ := Lookup(key)
		for _, t := range s.ContentTypes {
			if isFileType(t) {
				t = normType(t)
			}
			if !slices.Contains(out[t], key) {
				out[t] = append(out[t], key)
			}
		}
	}
	return out
}

// New returns the reader registered under key with default settings.
func New(key string) (Reader, error) {
	s, ok := Lookup(key)
	if !ok {
		return nil, fmt.Errorf("reader: unknown reader %q: use one of %s", key, strings.Join(Names(), ", "))
	}
	return s.New(FactoryOptions{})
}

// ErrUnknownType is wrapped by the error for a file type no reader reads.
var ErrUnknownType = errors.New("reader: unknown type")

// KeyForType returns the key of the reader for t, agno's
// ReaderFactory.get_reader_for_extension: t is a reader key ("text"), a
// file extension (".pdf") or a MIME type ("application/pdf", parameters
// ignored), in any case. HTML files get the html reader, where agno would
// index their markup as text.
//
// A type no reader lists is an error wrapping ErrUnknownType that names
// it and the known types. agno reads such files as text, which indexes
// images and archives as garbage; choose a reader to read one anyway.
func KeyForType(t string) (string, error) {
	n := normType(t)
	if _, ok := Lookup(n); ok {
		return n, nil
	}
	typesMu.RLock()
	key, ok := byType[n]
	typesMu.RUnlock()
	if ok {
		return key, nil
	}
	what := fmt.Sprintf(" %q", t)
	if n == "" {
		what = " (the content has no extension or type)"
	}
	return "", fmt.Errorf("%w%s: known types are %s; or choose a reader (%s)",
		ErrUnknownType, what, strings.Join(Types(), ", "), strings.Join(Names(), ", "))
}

// KeyForDownload is agno's _select_reader_by_extension, for files a
// Knowledge downloads from a URL: KeyForType of the extension, except
// that a downloaded ".md" is read as text there (only ".markdown" is
// markdown).
func KeyForDownload(ext string) (string, error) {
	if normType(ext) == ".md" {
		return KeyText, nil
	}
	return KeyForType(ext)
}

// ResolveKey is agno's reader_id resolution: lower-cased, "-" and " " as
// "_", and a trailing "reader" dropped ("PDFReader" is "pdf").
func ResolveKey(id string) (string, bool) {
	key := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(id)))
	for _, cand := range []string{key, strings.TrimSuffix(strings.TrimSuffix(key, "reader"), "_")} {
		if _, ok := Lookup(cand); ok {
			return cand, true
		}
	}
	return "", false
}

// isFileType reports whether a content type names files (an extension or
// a MIME type) rather than a kind of content ("file", "url").
func isFileType(t string) bool { return strings.HasPrefix(t, ".") || strings.Contains(t, "/") }

// normType lower-cases a type and drops MIME parameters ("; charset=utf-8").
func normType(t string) string {
	t, _, _ = strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(t))
}
