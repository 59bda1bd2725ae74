package reader

import (
	"fmt"
	"strings"
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

// Info describes a reader as agno's ReaderFactory.READER_METADATA does.
type Info struct {
	Key         string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Known lists the readers New builds, with agno's names and descriptions.
var Known = []Info{
	{KeyWebsite, "Website Reader", "Scrapes and extracts content from web pages with HTML parsing and text cleaning"},
	{KeyCSV, "CSV Reader", "Parses CSV files with custom delimiter support"},
	{KeyHTML, "HTML Reader", "Extracts the main text content of HTML pages"},
	{KeyJSON, "JSON Reader", "Processes JSON data structures and API responses with nested object handling"},
	{KeyMarkdown, "Markdown Reader", "Processes Markdown documentation with header-aware chunking and formatting preservation"},
	{KeyPDF, "PDF Reader", "Processes PDF documents with OCR support for images and text extraction"},
	{KeyText, "Text Reader", "Handles plain text files with customizable chunking strategies and encoding detection"},
}

// New returns the reader for key with default settings.
func New(key string) (Reader, error) {
	switch key {
	case KeyPDF:
		return NewPDF(PDFOptions{})
	case KeyCSV:
		return NewCSV(CSVOptions{})
	case KeyJSON:
		return NewJSON(Options{})
	case KeyMarkdown:
		return NewMarkdown(Options{})
	case KeyText:
		return NewText(Options{})
	case KeyWebsite:
		return NewWebsite(WebsiteOptions{})
	case KeyHTML:
		return NewHTML(HTMLOptions{})
	}
	return nil, fmt.Errorf("reader: unknown reader %q", key)
}

// KeyForExtension is agno's ReaderFactory.get_reader_for_extension for the
// readers this package has: a file extension (".pdf") or MIME type
// ("application/pdf") picks pdf, csv, json or markdown, and anything else,
// .txt included, text. HTML files (.html, .htm, text/html) get the html
// reader, where agno would index their markup as text.
func KeyForExtension(ext string) string {
	switch strings.ToLower(ext) {
	case ".pdf", "application/pdf":
		return KeyPDF
	case ".csv", "text/csv":
		return KeyCSV
	case ".json":
		return KeyJSON
	case ".md", ".markdown":
		return KeyMarkdown
	case ".html", ".htm", "text/html":
		return KeyHTML
	}
	return KeyText
}

// KeyForDownload is agno's _select_reader_by_extension, used for files a
// Knowledge downloads from a URL: only ".markdown" (not ".md") is
// markdown there. HTML is handled as in KeyForExtension.
func KeyForDownload(ext string) string {
	switch strings.ToLower(ext) {
	case ".csv":
		return KeyCSV
	case ".pdf":
		return KeyPDF
	case ".json":
		return KeyJSON
	case ".markdown":
		return KeyMarkdown
	case ".html", ".htm":
		return KeyHTML
	}
	return KeyText
}
