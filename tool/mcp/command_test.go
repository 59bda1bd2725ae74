package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPrepareCommandSplitsLikeShlex(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`npx -y @modelcontextprotocol/server-filesystem /tmp`, []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"}},
		{`uvx "mcp-server-git" --repository "/a b"`, []string{"uvx", "mcp-server-git", "--repository", "/a b"}},
		{`node 'it''s' x`, []string{"node", "its", "x"}},
		{`node "a\"b" 'c\d' e\ f`, []string{"node", `a"b`, `c\d`, "e f"}},
		{`node "x\y"`, []string{"node", `x\y`}},
		{"node\t a  ''", []string{"node", "a", ""}},
		{`python3 -m server --flag=#1`, []string{"python3", "-m", "server", "--flag=#1"}},
	}
	for _, c := range cases {
		got, err := prepareCommand(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPrepareCommandRejects(t *testing.T) {
	for _, in := range []string{"npx foo; rm -rf /", "npx a && b", "npx a | b", "npx `x`", "npx $HOME", "npx $(x)", "node (x)"} {
		_, err := prepareCommand(in)
		if !errors.Is(err, errShellMeta) || err.Error() != "MCP command can't contain shell metacharacters" {
			t.Errorf("%q: got %v, want agno's metacharacter error", in, err)
		}
	}
	for _, in := range []string{"", "   ", "\t\n"} {
		if _, err := prepareCommand(in); err == nil || err.Error() != "MCP command can't be empty" {
			t.Errorf("%q: got %v, want empty-command error", in, err)
		}
	}
	if _, err := prepareCommand(`node "open`); err == nil || err.Error() != "No closing quotation" {
		t.Errorf("unclosed quote: %v", err)
	}
	_, err := prepareCommand("definitely-not-a-real-mcp-binary --x")
	want := "MCP command needs to use one of the following executables: {'python', 'python3', 'uv', 'uvx', 'pipx', 'node', 'npm', 'npx', 'yarn', 'pnpm', 'bun', 'deno', 'java', 'ruby', 'docker'}"
	if err == nil || err.Error() != want {
		t.Errorf("unknown executable: got %v\nwant %s", err, want)
	}
}

func TestPrepareCommandExecutableRule(t *testing.T) {
	dir := t.TempDir()
	server := filepath.Join(dir, "custom-server")
	if err := os.WriteFile(server, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	// Allowed by name even when not installed, on PATH, or in the cwd.
	for _, in := range []string{"docker run -i x", "sh -c true", "custom-server --x", server + " --x", "./custom-server", "../" + filepath.Base(dir) + "/custom-server"} {
		if _, err := prepareCommand(in); err != nil {
			t.Errorf("%q rejected: %v", in, err)
		}
	}
	// A path with a slash that does not exist falls back to agno's rule by
	// base name.
	if _, err := prepareCommand("./missing-server"); err == nil || !strings.Contains(err.Error(), "needs to use one of the following executables") {
		t.Errorf("./missing-server: %v", err)
	}
	if _, err := prepareCommand("/nowhere/python -m x"); err != nil {
		t.Errorf("/nowhere/python is accepted by agno's base-name rule: %v", err)
	}
	if _, err := prepareCommand(dir); err == nil {
		t.Errorf("a directory is not an executable")
	}
}

func TestPrepareExecutableDoesNotSplit(t *testing.T) {
	argv, err := prepareExecutable("node", []string{"a b", "$HOME;x"})
	if err != nil || !slices.Equal(argv, []string{"node", "a b", "$HOME;x"}) {
		t.Fatalf("got %q, %v", argv, err)
	}
	if _, err := prepareExecutable("node;rm", nil); !errors.Is(err, errShellMeta) {
		t.Fatalf("metacharacters in the executable: %v", err)
	}
	if _, err := prepareExecutable(" ", nil); !errors.Is(err, errEmptyCommand) {
		t.Fatalf("empty executable: %v", err)
	}
}
