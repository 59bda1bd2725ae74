package reader

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
)

// makePDF writes a real PDF 1.4 file: one Helvetica text line per page
// and, when numbered, the page number at the foot of the page. The
// second page's content stream is Flate-compressed, as most PDFs are.
func makePDF(t *testing.T, pages []string, numbered bool) []byte {
	t.Helper()
	var objects []string
	// 1 catalog, 2 pages, 3 font, then a page object and its content
	// stream per page.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objects = append(objects,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	)
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", text)
		if numbered {
			stream += fmt.Sprintf("\nBT /F1 10 Tf 300 40 Td (%d) Tj ET", i+1)
		}
		page := fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i)
		var content string
		if i == 1 {
			var z bytes.Buffer
			w := zlib.NewWriter(&z)
			_, _ = w.Write([]byte(stream))
			_ = w.Close()
			content = fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String())
		} else {
			content = fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream)
		}
		objects = append(objects, page, content)
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

func TestPDFPagesAndPageNumbers(t *testing.T) {
	data := makePDF(t, []string{"Hello PDF page one", "Second page talks about goroutines"}, true)
	r, err := NewPDF(PDFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := r.Read(t.Context(), Source{Data: data, Name: "my report"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want one per page", len(docs))
	}
	// The printed numbers 1 and 2 match positions with shift 1, so they
	// are replaced by agno's page markers.
	want := []string{
		"<start page 1>\nHello PDF page one\n<end page 1>",
		"<start page 2>\nSecond page talks about goroutines\n<end page 2>",
	}
	for i, d := range docs {
		if d.Content != want[i] || d.MetaData["page"] != i+1 || d.Name != "my_report" || len(d.ID) != 36 {
			t.Errorf("page %d: name %q id %q meta %v content %q; want %q", i+1, d.Name, d.ID, d.MetaData, d.Content, want[i])
		}
	}

	// Without printed numbers the text is kept as it is.
	r, _ = NewPDF(PDFOptions{SinglePage: true})
	docs, err = r.Read(t.Context(), Source{Data: makePDF(t, []string{"alpha", "beta"}, false)})
	if err != nil || len(docs) != 1 || docs[0].Content != "alpha\nbeta" || docs[0].Name != "pdf_file" {
		t.Errorf("single document: %v %v", docs, err)
	}
	r, _ = NewPDF(PDFOptions{NoPageMarkers: true, Options: Options{DisableChunking: true}})
	docs, _ = r.Read(t.Context(), Source{Data: data})
	if docs[0].Content != "Hello PDF page one" {
		t.Errorf("NoPageMarkers: %q", docs[0].Content)
	}

	if _, err := r.Read(t.Context(), Source{Data: []byte("%PDF-1.4 not really")}); err == nil {
		t.Error("a broken PDF read without error")
	}
}

func TestCleanPageNumbers(t *testing.T) {
	// Numbers starting at 0 are detected with shift 0.
	pages, shift := cleanPageNumbers([]string{"0 intro", "1 body", "text 2"}, "[{page_nr}", "{page_nr}]")
	if shift == nil || *shift != 0 || pages[0] != "[0\nintro\n0]" || pages[2] != "[2\ntext\n2]" {
		t.Errorf("shift %v pages %q", shift, pages)
	}
	// Large numbers only: left alone.
	if _, shift := cleanPageNumbers([]string{"page 10", "page 11"}, "", ""); shift != nil {
		t.Errorf("numbers above 5 detected with shift %d", *shift)
	}
	// Too few matching pages (1 of 5 < 40%): left alone.
	if _, shift := cleanPageNumbers([]string{"1", "x", "y", "z", "w"}, "", ""); shift != nil {
		t.Errorf("1 of 5 pages detected with shift %d", *shift)
	}
}

// The committed demo PDF (also read by poppler's pdftotext) reads back
// page by page.
func TestDemoPDF(t *testing.T) {
	r, _ := NewPDF(PDFOptions{})
	docs, err := r.Read(t.Context(), Source{Path: "../testdata/demo.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Name != "demo" || !strings.Contains(docs[1].Content, "snapshots run nightly") || docs[1].MetaData["page"] != 2 {
		t.Errorf("demo.pdf: %q", contents(docs))
	}
}
