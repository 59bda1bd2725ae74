package agentos

import (
	"net/http"
	"strings"
	"testing"
)

func TestNoInterfaces(t *testing.T) {
	h := docsOS(t).Handler()
	if rec := getLocal(t, h, "/config"); !strings.Contains(rec.Body.String(), `"interfaces":[]`) {
		t.Fatal(rec.Body)
	}
	if rec := getLocal(t, h, "/slack/manifest.json"); rec.Code != http.StatusNotFound {
		t.Fatal(rec.Code)
	}
}
