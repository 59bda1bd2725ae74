// Package kbtest writes small, real knowledge fixtures for tests: a
// PDF with one line of text per page, a markdown tree and a CSV file —
// what users ingest, read by the real readers.
package kbtest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PDF returns a valid PDF with one page per text (Helvetica, WinAnsi).
func PDF(pages ...string) []byte {
	var objs []string
	// 1 catalog, 2 pages, 3 font, then a page and its content per text.
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	for i, text := range pages {
		stream := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (%s) Tj ET", esc.Replace(text))
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// Texts the fixtures hold, for assertions.
const (
	PDFPage1   = "The backup policy keeps nightly snapshots for thirty days."
	PDFPage2   = "Restores are tested every quarter by the platform team."
	IntroTitle = "Getting started"
	InstallFix = "Run the installer with the --offline flag behind a proxy."
	CSVHeader  = "hostname,region,role"
)

// Fixtures are the paths WriteTree wrote.
type Fixtures struct {
	Root     string // the tree
	PDF      string // root/handbook.pdf
	Markdown string // root/guide: intro.md and setup/install.md
	CSV      string // root/data/servers.csv
	Files    []string
}

// WriteTree writes a small document tree under dir: a two-page PDF, a
// markdown directory with a nested one, and a CSV file.
func WriteTree(t testing.TB, dir string) Fixtures {
	t.Helper()
	f := Fixtures{Root: dir, PDF: filepath.Join(dir, "handbook.pdf"), Markdown: filepath.Join(dir, "guide"), CSV: filepath.Join(dir, "data", "servers.csv")}
	files := map[string][]byte{
		f.PDF: PDF(PDFPage1, PDFPage2),
		filepath.Join(f.Markdown, "intro.md"): []byte("# " + IntroTitle + "\n\nThis guide explains how the deployment works.\n\n" +
			"## Requirements\n\nYou need a Linux host with 4 GB of memory.\n"),
		filepath.Join(f.Markdown, "setup", "install.md"): []byte("# Installing\n\n" + InstallFix + "\n\n## Verifying\n\nCheck the status page after the install.\n"),
		f.CSV: []byte(CSVHeader + "\nweb-1,eu-west,frontend\ndb-1,us-east,database\ncache-1,eu-west,cache\n"),
	}
	for p, data := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f.Files = append(f.Files, p)
	}
	return f
}
