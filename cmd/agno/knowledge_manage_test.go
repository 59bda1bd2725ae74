package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/kbtest"
	"github.com/agno-go/agno/knowledge/contents"
)

// list, search and remove work on what add stored, in the same SQLite
// file AgentOS serves; remove resolves every argument before it deletes.
func TestKnowledgeListSearchRemove(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.toml")
	writeTree(t, dir, map[string]string{"config.toml": knowledgeConfig})
	fx := kbtest.WriteTree(t, filepath.Join(dir, "docs"))
	if _, stderr, err := runAgno(t, "knowledge", "add", fx.Root, "--config", cfgPath); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	cli := func(args ...string) (string, int) {
		return runCLI(append(append([]string{"knowledge"}, args...), "--config", cfgPath)...)
	}

	out, code := cli("list")
	if code != 0 || !strings.Contains(out, "4 of 4 contents in knowledge base \"docs\"") {
		t.Fatalf("list: exit %d\n%s", code, out)
	}
	for _, name := range []string{"handbook.pdf", "install.md", "intro.md", "servers.csv"} {
		if !strings.Contains(out, name) || !strings.Contains(out, "completed") {
			t.Errorf("list lacks %s:\n%s", name, out)
		}
	}
	out, code = cli("list", "--json")
	var listed struct {
		Total int `json:"total"`
		Data  []struct {
			ID, Name, Status string
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || listed.Total != 4 || len(listed.Data) != 4 {
		t.Fatalf("list --json: exit %d %v\n%s", code, err, out)
	}

	out, code = cli("search", "installer offline flag proxy", "--limit", "1")
	if code != 0 || !strings.HasPrefix(out, "1. install.md") || strings.Contains(out, "2. ") {
		t.Errorf("search: exit %d\n%s", code, out)
	}
	if out, code = cli("search", "x", "--search-type", "fuzzy"); code != 2 || !strings.Contains(out, "use vector, keyword or hybrid") {
		t.Errorf("bad search type: exit %d\n%s", code, out)
	}

	// A name that is not there fails the whole command: nothing is removed.
	if out, code = cli("remove", "install.md", "nope.md"); code != 1 || !strings.Contains(out, `no content has the id or name "nope.md"`) {
		t.Errorf("remove with a typo: exit %d\n%s", code, out)
	}
	kb := openDocs(t, cfgPath)
	if _, total, _ := kb.GetContent(context.Background(), contents.ListOptions{}); total != 4 {
		t.Fatalf("a failed remove removed something: %d left", total)
	}
	var pdfID string
	for _, c := range listed.Data {
		if c.Name == "handbook.pdf" {
			pdfID = c.ID
		}
	}
	if out, code = cli("remove", "install.md", pdfID); code != 0 || !strings.Contains(out, "Removed 2 of 2") {
		t.Fatalf("remove: exit %d\n%s", code, out)
	}
	if _, total, _ := kb.GetContent(context.Background(), contents.ListOptions{}); total != 2 {
		t.Errorf("%d contents left, want 2", total)
	}
	if out, _ = cli("search", "installer offline flag proxy"); strings.Contains(out, "install.md") {
		t.Errorf("a removed content's chunks are still found:\n%s", out)
	}

	if out, code = cli("remove", "--all"); code != 2 || !strings.Contains(out, "add --yes") {
		t.Errorf("--all without --yes: exit %d\n%s", code, out)
	}
	if out, code = cli("remove", "--all", "--yes"); code != 0 || !strings.Contains(out, "Removed 2 of 2") {
		t.Errorf("remove --all: exit %d\n%s", code, out)
	}
	if out, code = cli("list"); code != 0 || !strings.Contains(out, "has no contents") {
		t.Errorf("list after --all: exit %d\n%s", code, out)
	}
}
