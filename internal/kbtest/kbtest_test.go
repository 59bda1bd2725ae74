package kbtest_test

import (
	"context"
	"testing"

	"github.com/agno-go/agno/internal/kbtest"
	"github.com/agno-go/agno/knowledge/reader"
)

// The generated PDF is read by the real PDF reader, one document per page.
func TestPDFReads(t *testing.T) {
	r, err := reader.New(reader.KeyPDF)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := r.Read(context.Background(), reader.Source{Data: kbtest.PDF(kbtest.PDFPage1, "A (parenthesised) \\ page"), Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Content != kbtest.PDFPage1 || docs[1].Content != "A (parenthesised) \\ page" || docs[1].MetaData["page"] != 2 {
		t.Fatalf("documents %+v", docs)
	}
}
