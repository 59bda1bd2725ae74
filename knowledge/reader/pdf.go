package reader

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/ledongthuc/pdf"

	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/document"
)

// agno's page marker formats; {page_nr} is replaced by the page number.
const (
	DefaultPageStartFormat = "<start page {page_nr}>"
	DefaultPageEndFormat   = "<end page {page_nr}>"
)

// pageNumberRatio is agno's PAGE_NUMBERING_CORRECTNESS_RATIO_FOR_REMOVAL.
const pageNumberRatio = 0.4

// ErrPassword is returned for an encrypted PDF without the right password.
var ErrPassword = errors.New("reader: pdf password required or wrong")

// PDFOptions configures a PDF reader.
type PDFOptions struct {
	Options
	// SinglePage joins all pages into one document instead of one per
	// page (agno's split_on_pages=False).
	SinglePage bool
	// PageStartFormat and PageEndFormat wrap a page's text when printed
	// page numbers were detected; empty means agno's defaults.
	PageStartFormat string
	PageEndFormat   string
	// NoPageMarkers drops detected page numbers without adding markers
	// (agno's empty format strings).
	NoPageMarkers bool
	// Password opens encrypted files when the Source has none.
	Password string
}

// PDF is agno's PDFReader: one document per page with "page" metadata
// and a random id, chunked by the Paragraph (agno's DocumentChunking)
// chunker by default. Printed page numbers are detected as agno does and
// replaced by page markers. Text comes from a pure Go extractor, so
// spacing can differ from pypdf's.
type PDF struct {
	chunking chunking
	opts     PDFOptions
}

func init() {
	Register(KeyPDF, Spec{
		Name: "PDF Reader", Description: "Processes PDF documents with OCR support for images and text extraction",
		ContentTypes: []string{"file", ".pdf", "application/pdf"},
		Chunkers:     []string{chunk.TypeDocument, chunk.TypeFixedSize, chunk.TypeRecursive},
		New:          func(o FactoryOptions) (Reader, error) { return NewPDF(PDFOptions{Options: o.Options}) },
	})
}

// NewPDF returns a PDF reader.
func NewPDF(o PDFOptions) (*PDF, error) {
	c, err := newChunking(o.Options, func(cfg chunk.Config) (chunk.Chunker, error) { return chunk.NewParagraph(cfg) })
	if !o.NoPageMarkers {
		if o.PageStartFormat == "" {
			o.PageStartFormat = DefaultPageStartFormat
		}
		if o.PageEndFormat == "" {
			o.PageEndFormat = DefaultPageEndFormat
		}
	} else {
		o.PageStartFormat, o.PageEndFormat = "", ""
	}
	return &PDF{chunking: c, opts: o}, err
}

// ClassName implements ClassNamer.
func (*PDF) ClassName() string { return "PDFReader" }

// Read implements Reader.
func (r *PDF) Read(ctx context.Context, src Source) ([]*document.Document, error) {
	data, err := src.bytes()
	if err != nil {
		return nil, err
	}
	name := strings.ReplaceAll(src.name("pdf_file"), " ", "_")
	pages, err := extractPages(data, cmp.Or(src.Password, r.opts.Password))
	if err != nil {
		return nil, fmt.Errorf("reader: pdf %s: %w", name, err)
	}
	pages, shift := cleanPageNumbers(pages, r.opts.PageStartFormat, r.opts.PageEndFormat)
	var docs []*document.Document
	if r.opts.SinglePage {
		docs = []*document.Document{{Name: name, ID: uuid.NewString(), MetaData: map[string]any{}, Content: strings.Join(pages, "\n")}}
	} else {
		first := 1
		if shift != nil {
			first = *shift
		}
		for i, p := range pages {
			docs = append(docs, &document.Document{Name: name, ID: uuid.NewString(), MetaData: map[string]any{"page": first + i}, Content: p})
		}
	}
	return r.chunking.apply(ctx, docs)
}

// extractPages returns each page's text. The extractor panics on some
// malformed files; that becomes an error.
func extractPages(data []byte, password string) (pages []string, err error) {
	defer func() {
		if x := recover(); x != nil {
			pages, err = nil, fmt.Errorf("malformed PDF: %v", x)
		}
	}()
	tried := false
	r, err := pdf.NewReaderEncrypted(bytes.NewReader(data), int64(len(data)), func() string {
		// Called after the blank password failed: offer ours once.
		if tried {
			return ""
		}
		tried = true
		return password
	})
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			if password == "" {
				return nil, fmt.Errorf("%w: the file is password protected and no password was given", ErrPassword)
			}
			return nil, fmt.Errorf("%w: the password does not open the file", ErrPassword)
		}
		return nil, err
	}
	n := r.NumPage()
	for i := 1; i <= n; i++ {
		text, err := r.Page(i).GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i, err)
		}
		pages = append(pages, strings.TrimSpace(text))
	}
	return pages, nil
}

var pageNumber = regexp.MustCompile(`^\s*(\d+)\s*|\s*(\d+)\s*$`)

// cleanPageNumbers is agno's _clean_page_numbers: when at least 40% of
// the pages start or end with the number their position predicts (for a
// shift of -2 to 2), those numbers are removed and each page is wrapped in
// the start and end markers. It returns the detected shift, or nil.
func cleanPageNumbers(pages []string, startFormat, endFormat string) ([]string, *int) {
	found := make([]*int, len(pages))
	useful := false
	for i, p := range pages {
		m := pageNumber.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1] + m[2])
		if err != nil {
			continue
		}
		found[i] = &n
		if n <= 5 {
			useful = true
		}
	}
	if !useful || len(pages) == 0 {
		// agno: the approach is unreliable for higher page numbers.
		return pages, nil
	}
	bestShift, bestCount := 0, 0
	for _, shift := range []int{-2, -1, 0, 1, 2} {
		count := 0
		for i, actual := range found {
			expected := strconv.Itoa(i + shift)
			a := "None"
			if actual != nil {
				a = strconv.Itoa(*actual)
			}
			if a == expected || strings.HasPrefix(a, expected) || strings.HasSuffix(a, expected) {
				count++
			}
		}
		if count > bestCount {
			bestShift, bestCount = shift, count
		}
	}
	if bestCount == 0 || float64(bestCount)/float64(len(pages)) < pageNumberRatio {
		return pages, nil
	}
	out := make([]string, len(pages))
	for i, p := range pages {
		expected := strconv.Itoa(i + bestShift)
		strip := regexp.MustCompile(`^\s*` + expected + `\s*|\s*` + expected + `\s*$`)
		p = strip.ReplaceAllString(p, "")
		if startFormat != "" {
			p = strings.ReplaceAll(startFormat, "{page_nr}", expected) + "\n" + p
		}
		if endFormat != "" {
			p += "\n" + strings.ReplaceAll(endFormat, "{page_nr}", expected)
		}
		out[i] = p
	}
	return out, &bestShift
}
