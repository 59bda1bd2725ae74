// Package filegeneration is agno's FileGenerationTools: the model writes
// JSON, CSV, PDF, text and HTML files, returned as the tool result's
// files (agno's File artifacts) and, with save_files or
// output_directory, also saved in that directory.
//
// agno's generate_docx_file needs python-docx, and agno leaves it out
// when that is not installed; this toolkit has no DOCX writer and always
// leaves it out.
package filegeneration

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"codeberg.org/go-pdf/fpdf"
	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/internal/pyrepr"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/file"
	"golang.org/x/text/unicode/norm"
)

// DefaultMaxFileSize bounds a generated file when Config.MaxFileSize is 0.
const DefaultMaxFileSize = 10 << 20

// Config configures the toolkit.
type Config struct {
	// The enable_* flags and all of agno; EnableDOCX is accepted and has
	// no effect (no DOCX writer).
	EnableJSON, EnableCSV, EnablePDF, EnableDOCX, EnableTXT, EnableHTML bool
	All                                                                 bool
	// SaveFiles saves every generated file in OutputDirectory (the
	// current directory when empty); a non-empty OutputDirectory implies
	// SaveFiles, as in agno.
	SaveFiles       bool
	OutputDirectory string
	// MaxFileSize bounds a generated file in bytes; 0 means 10 MiB.
	MaxFileSize int

	Instructions    string
	AddInstructions bool
	Logger          *slog.Logger
}

type generator struct {
	out     *file.Base // nil: files are not saved
	maxSize int
	log     *slog.Logger
}

type textArgs struct {
	Content  string  `json:"content" description:"The text content to write to the file."`
	Filename *string `json:"filename,omitempty" description:"Optional filename for the generated file. If not provided, a UUID will be used."`
}

type htmlArgs struct {
	Content  string  `json:"content" description:"A complete, valid HTML5 document (including doctype, html, head, and body tags)."`
	Filename *string `json:"filename,omitempty" description:"Optional filename for the generated file. If not provided, a UUID will be used."`
}

type pdfArgs struct {
	Content  string  `json:"content" description:"The text content to write to the PDF file."`
	Filename *string `json:"filename,omitempty" description:"Optional filename for the generated file. If not provided, a UUID will be used."`
	Title    *string `json:"title,omitempty" description:"Optional title for the PDF document."`
}

// New validates the configuration and returns agno's "file_generation".
func New(cfg Config) (*tool.Toolkit, error) {
	g := &generator{maxSize: cfg.MaxFileSize, log: cfg.Logger}
	if g.maxSize < 0 {
		return nil, errors.New("filegeneration: MaxFileSize must not be negative (0 means 10 MiB)")
	}
	if g.maxSize == 0 {
		g.maxSize = DefaultMaxFileSize
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	if cfg.SaveFiles || cfg.OutputDirectory != "" {
		out, err := file.OpenBase(cfg.OutputDirectory)
		if err != nil {
			return nil, fmt.Errorf("filegeneration: OutputDirectory: %w", err)
		}
		g.out = out
	}
	e := tool.Enabled{All: cfg.All}
	e.If(cfg.EnableJSON)(tool.New("generate_json_file", jsonDoc, g.generateJSON))
	e.If(cfg.EnableCSV)(tool.New("generate_csv_file", csvDoc, g.generateCSV))
	e.If(cfg.EnablePDF)(tool.New("generate_pdf_file", "Generate a PDF file from the provided content.", g.generatePDF))
	e.If(cfg.EnableTXT)(tool.New("generate_text_file", "Generate a text file from the provided content.", g.generateText))
	e.If(cfg.EnableHTML)(tool.New("generate_html_file", "Generate an HTML file from the provided content.", g.generateHTML))
	fns, err := e.Functions()
	if err != nil {
		return nil, err
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: "file_generation", Functions: fns, Instructions: cfg.Instructions, AddInstructions: cfg.AddInstructions})
}

const (
	jsonDoc = "Generate a JSON file from the provided data."
	csvDoc  = "Generate a CSV file from the provided data."
	// agno's schemas of Union[Dict, List, str] and Union[List[List],
	// List[Dict], str], as its get_json_schema writes them.
	jsonSchema = `{"type":"object","properties":{"data":{"anyOf":[{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"string"}},{"type":"array","items":{"type":"string"}},{"type":"string"}],"description":"The data to write to the JSON file. Can be a dictionary, list, or JSON string."},"filename":{"type":"string","description":"Optional filename for the generated file. If not provided, a UUID will be used."}},"required":["data"]}`
	csvSchema  = `{"type":"object","properties":{"data":{"anyOf":[{"type":"array","items":{"type":"array","items":{"type":"string"}}},{"type":"array","items":{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{"type":"string"}}},{"type":"string"}],"description":"The data to write to the CSV file. Can be a list of lists, list of dictionaries, or CSV string."},"filename":{"type":"string","description":"Optional filename for the generated file. If not provided, a UUID will be used."},"headers":{"type":"array","items":{"type":"string"},"description":"Optional headers for the CSV. Used when data is a list of lists."}},"required":["data"]}`
)

type jsonArgs struct {
	Data     json.RawMessage `json:"data"`
	Filename *string         `json:"filename,omitempty"`
}

// JSONSchema is agno's schema of generate_json_file's parameters.
func (jsonArgs) JSONSchema() json.RawMessage { return json.RawMessage(jsonSchema) }

type csvArgs struct {
	Data     json.RawMessage `json:"data"`
	Filename *string         `json:"filename,omitempty"`
	Headers  []any           `json:"headers,omitempty"`
}

// JSONSchema is agno's schema of generate_csv_file's parameters.
func (csvArgs) JSONSchema() json.RawMessage { return json.RawMessage(csvSchema) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (g *generator) generateJSON(_ context.Context, a jsonArgs) (tool.Result, error) {
	var content string
	var s string
	if err := json.Unmarshal(a.Data, &s); err == nil {
		if json.Valid([]byte(s)) {
			content = s // valid JSON text is kept as given
		} else {
			// Not JSON: wrapped, as json.dumps({"content": data}, indent=2).
			out, err := pyjson.DumpsOpts(map[string]any{"content": s}, pyjson.Options{Indent: 2})
			if err != nil {
				return tool.Text("Error generating JSON file: " + err.Error()), nil
			}
			content = out
		}
	} else {
		if len(bytes.TrimSpace(a.Data)) == 0 {
			return tool.Text("Error generating JSON file: data is required"), nil
		}
		// json.dumps(data, indent=2, ensure_ascii=False), keys in the
		// model's order.
		out, err := pyjson.DumpsOpts(a.Data, pyjson.Options{Indent: 2, NoEnsureASCII: true})
		if err != nil {
			return tool.Text("Error generating JSON file: " + err.Error()), nil
		}
		content = out
	}
	return g.artifact([]byte(content), true, deref(a.Filename), "json", "application/json", "JSON"), nil
}

func (g *generator) generateCSV(_ context.Context, a csvArgs) (tool.Result, error) {
	var content string
	var s string
	var rows []json.RawMessage
	if err := json.Unmarshal(a.Data, &s); err == nil {
		content = s // a CSV string is used as is
	} else if err := json.Unmarshal(a.Data, &rows); err == nil && len(rows) > 0 {
		out, err := writeCSV(rows, a.Headers)
		if err != nil {
			return tool.Text("Error generating CSV file: " + err.Error()), nil
		}
		content = out
	}
	return g.artifact([]byte(content), true, deref(a.Filename), "csv", "text/csv", "CSV"), nil
}

// writeCSV is agno's csv.writer over the rows: dictionaries under the
// first one's keys, lists under the headers, anything else one per row.
func writeCSV(rows []json.RawMessage, headersIn []any) (string, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.UseCRLF = true // Python's csv.writer ends rows with \r\n
	var headers []string
	for _, h := range headersIn {
		headers = append(headers, pyStr(h))
	}
	first := bytes.TrimSpace(rows[0])
	switch {
	case len(first) > 0 && first[0] == '{':
		fields, err := objectKeys(first)
		if err != nil {
			return "", err
		}
		if err := w.Write(fields); err != nil {
			return "", err
		}
		for _, raw := range rows {
			if m, ok := decodeAny(raw).(map[string]any); ok {
				rec := make([]string, len(fields))
				for i, f := range fields {
					if v, ok := m[f]; ok {
						rec[i] = pyStr(v)
					}
				}
				_ = w.Write(rec)
				continue
			}
			rec := make([]string, max(len(fields), 1))
			rec[0] = pyStr(decodeAny(raw))
			_ = w.Write(rec)
		}
	case len(first) > 0 && first[0] == '[':
		if len(headers) > 0 {
			_ = w.Write(headers)
		}
		for _, raw := range rows {
			l, ok := decodeAny(raw).([]any)
			if !ok {
				l = []any{decodeAny(raw)}
			}
			rec := make([]string, len(l))
			for i, x := range l {
				rec[i] = pyStr(x)
			}
			_ = w.Write(rec)
		}
	default:
		if len(headers) > 0 {
			_ = w.Write(headers)
		}
		for _, raw := range rows {
			_ = w.Write([]string{pyStr(decodeAny(raw))})
		}
	}
	w.Flush()
	return buf.String(), w.Error()
}

// decodeAny decodes a JSON value with its numbers kept as written, so
// 3 stays 3 and 3.0 stays 3.0, as in Python.
func decodeAny(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return v
}

// objectKeys lists a JSON object's keys in their order.
func objectKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// pyStr is Python's str of a JSON value, as csv.writer writes it.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "" // csv.writer writes None as ""
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case json.Number:
		return pyrepr.Number(x)
	default:
		return pyrepr.Repr(x)
	}
}

func (g *generator) generateText(_ context.Context, a textArgs) (tool.Result, error) {
	return g.artifact([]byte(a.Content), true, deref(a.Filename), "txt", "text/plain", "Text"), nil
}

func (g *generator) generateHTML(_ context.Context, a htmlArgs) (tool.Result, error) {
	return g.artifact([]byte(a.Content), true, deref(a.Filename), "html", "text/html", "HTML"), nil
}

func (g *generator) generatePDF(_ context.Context, a pdfArgs) (tool.Result, error) {
	b, err := renderPDF(a.Content, deref(a.Title))
	if err != nil {
		return tool.Text("Error generating PDF file: " + err.Error()), nil
	}
	return g.artifact(b, false, deref(a.Filename), "pdf", "application/pdf", "PDF"), nil
}

// renderPDF lays out agno's PDF: letter pages with a 1 inch top margin,
// the title large and centred, then each paragraph (split at blank
// lines) in the body font. The core fonts are Latin-1: other characters
// are written as "?".
func renderPDF(content, title string) ([]byte, error) {
	pdf := fpdf.New("P", "pt", "Letter", "")
	pdf.SetMargins(72, 72, 72)
	pdf.SetAutoPageBreak(true, 72)
	pdf.AddPage()
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	if title != "" {
		pdf.SetFont("Helvetica", "B", 18)
		pdf.MultiCell(0, 22, tr(title), "", "C", false)
		pdf.Ln(20)
	}
	pdf.SetFont("Helvetica", "", 10)
	for _, para := range strings.Split(content, "\n\n") {
		if p := strings.TrimSpace(para); p != "" {
			pdf.MultiCell(0, 12, tr(p), "", "L", false)
			pdf.Ln(10)
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// artifact is agno's _create_file_artifact: the file's name (a UUID one
// when none is given, the extension added, the name sanitized), the File
// in the result, the file saved when asked, and agno's message.
func (g *generator) artifact(content []byte, text bool, filename, ext, mime, display string) tool.Result {
	if filename == "" {
		filename = fmt.Sprintf("generated_file_%s.%s", run.NewID()[:8], ext)
	} else if !strings.HasSuffix(filename, "."+ext) {
		filename += "." + ext
	}
	name, err := sanitizeFilename(filename)
	if err != nil {
		return tool.Text(fmt.Sprintf("Error generating %s file: %v", display, err))
	}
	if len(content) > g.maxSize {
		return tool.Text(fmt.Sprintf("Error generating %s file: %d bytes is more than max_file_size (%d)", display, len(content), g.maxSize))
	}
	var saved, saveErr string
	if g.out != nil {
		if _, _, err := g.out.WriteFile("filename", name, content, true); err != nil {
			g.log.Warn("filegeneration: failed to save file locally", "file", name, "error", err)
			saveErr = err.Error()
		} else {
			saved = path.Join(g.out.Dir(), name)
		}
	}
	n, unit := len(content), "bytes"
	if text {
		n, unit = utf8.RuneCount(content), "characters"
	}
	msg := fmt.Sprintf("%s file '%s' generated (%d %s)", display, name, n, unit)
	if saved != "" {
		msg += " → " + saved
	} else if saveErr != "" {
		msg += " (save failed: " + saveErr + ")"
	}
	g.log.Debug("filegeneration: generated", "file", name)
	return tool.Result{Content: msg, Files: []model.File{{
		ID: run.NewID(), Filename: name, Content: content, MimeType: mime, Size: int64(len(content)),
	}}}
}

var (
	windowsPrefix = regexp.MustCompile(`^([A-Za-z]:|\\\\|//)`)
	reservedName  = regexp.MustCompile(`(?i)^(CON|PRN|AUX|NUL|COM[1-9]|LPT[1-9])(\.|$)`)
)

// sanitizeFilename is agno's sanitize_filename: the base name only, NFKC
// normalized, with no control characters, drive letters, UNC prefixes,
// trailing dots or spaces, or Windows device names.
func sanitizeFilename(name string) (string, error) {
	name = norm.NFKC.String(name)
	bad := errors.New("Invalid filename: " + pyrepr.Repr(name)) // agno's PathSecurityError texts
	if strings.IndexFunc(name, unicode.IsControl) >= 0 || windowsPrefix.MatchString(name) {
		return "", bad
	}
	name = strings.ReplaceAll(name, `\`, "/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimRight(name, ". ")
	if name == "" || strings.Trim(name, ".") == "" {
		return "", bad
	}
	if reservedName.MatchString(name) {
		return "", errors.New("Invalid path segment: " + pyrepr.Repr(name))
	}
	return name, nil
}
