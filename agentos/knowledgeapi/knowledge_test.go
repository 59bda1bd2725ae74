package knowledgeapi

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agno-go/agno/agentos/internal/httpapi"
)

func TestParseFormURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "",
		" https://example.com/a.pdf ":   "https://example.com/a.pdf",
		`"https://example.com/a.pdf"`:   "https://example.com/a.pdf",
		`["https://example.com/a.pdf"]`: "https://example.com/a.pdf",
	} {
		if got, err := parseFormURL(in); err != nil || got != want {
			t.Errorf("parseFormURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	var se *httpapi.StatusError
	if _, err := parseFormURL(`["https://a.example", "https://b.example"]`); !errors.As(err, &se) || se.Status != http.StatusBadRequest {
		t.Errorf("two URLs: %v, want a 400", err)
	}
}

func TestParseFormMetadata(t *testing.T) {
	if md, err := parseFormMetadata("handbook"); err != nil || md["value"] != "handbook" {
		t.Errorf("text metadata = %v, %v", md, err)
	}
	if md, err := parseFormMetadata(`{"source": "handbook"}`); err != nil || md["source"] != "handbook" {
		t.Errorf("JSON metadata = %v, %v", md, err)
	}
	if _, err := parseFormMetadata(`[1, 2]`); err == nil {
		t.Error("a JSON array was accepted as metadata")
	}
}

func TestPyList(t *testing.T) {
	if got := pyList([]string{"a", "b"}); got != "['a', 'b']" {
		t.Errorf("pyList = %s", got)
	}
}
