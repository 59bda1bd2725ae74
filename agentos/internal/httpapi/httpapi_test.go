package httpapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An error carrying a server path answers with the file's base name only.
func TestHidePaths(t *testing.T) {
	dir := t.TempDir()
	_, err := os.Open(filepath.Join(dir, "spool", "upload-1"))
	wrapped := fmt.Errorf("knowledge: read the upload: %w", err)
	got := HidePaths(wrapped)
	if strings.Contains(got, dir) || !strings.Contains(got, "open upload-1: no such file or directory") || !strings.HasPrefix(got, "knowledge: read the upload:") {
		t.Fatalf("HidePaths: %q", got)
	}
	if got := HidePaths(fmt.Errorf("plain")); got != "plain" {
		t.Fatalf("no path: %q", got)
	}
	err = os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	if got := HidePaths(err); strings.Contains(got, dir) {
		t.Fatalf("link error: %q", got)
	}
}

// Query booleans read as pydantic reads them.
func TestParseBool(t *testing.T) {
	for s, want := range map[string]bool{"true": true, " YES ": true, "1": true, "off": false, "F": false} {
		if v, ok := ParseBool(s); !ok || v != want {
			t.Errorf("ParseBool(%q) = %v, %v; want %v", s, v, ok, want)
		}
	}
	if _, ok := ParseBool("maybe"); ok {
		t.Error(`ParseBool("maybe") read a boolean`)
	}
}
