package readmetest

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// snippet is one ```go block of a Markdown file.
type snippet struct {
	line int // line of the opening fence, from 1
	code string
}

// goBlocks returns the ```go blocks of md, their indentation removed.
func goBlocks(md string) []snippet {
	var out []snippet
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		indent, info, ok := strings.Cut(lines[i], "```")
		if lang := strings.Fields(info); !ok || strings.TrimSpace(indent) != "" || len(lang) == 0 || lang[0] != "go" {
			continue
		}
		var code strings.Builder
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			code.WriteString(strings.TrimPrefix(lines[i], indent))
			code.WriteByte('\n')
		}
		out = append(out, snippet{line: start, code: code.String()})
	}
	return out
}

// repoRoot is the module root: the directory above this package holding
// go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root: %v", err)
	}
	return dir
}

// watchSources stats every Go file of the module. The snippets are built
// by a child go command, so without this go test's result cache would
// not notice an API change that breaks one.
func watchSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	goDirective = regexp.MustCompile(`(?m)^go (\S+)$`)
	snippetPos  = regexp.MustCompile(`(?:\./)?s(\d+)/main\.go:(\d+)`)
)

// vetSnippets writes each snippet as the only file of its own package in
// a scratch module that replaces the agno module with root, then runs go
// vet on them all (type check and vet). Each snippet must be a complete
// Go file. Errors name the Markdown file and line.
func vetSnippets(t *testing.T, root, mdName string, snips []snippet) error {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	goVersion := goDirective.FindSubmatch(gomod)
	if goVersion == nil {
		return errors.New("go.mod has no go directive")
	}
	dir := t.TempDir()
	mod := fmt.Sprintf("module readmesnippets\n\ngo %s\n\nrequire github.com/agno-go/agno v0.0.0\n\nreplace github.com/agno-go/agno => %s\n", goVersion[1], root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644); err != nil {
		return err
	}
	var errs []error
	for i, s := range snips {
		if _, err := parser.ParseFile(token.NewFileSet(), "", s.code, parser.PackageClauseOnly); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: a ```go block must be a complete Go file (package clause, imports): %v", mdName, s.line, err))
			continue
		}
		pkg := filepath.Join(dir, "s"+strconv.Itoa(i))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(s.code), 0o644); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	//lint:ignore SA1019 the test runs the go command of the toolchain that built it; PATH may name none or another
	cmd := exec.CommandContext(t.Context(), filepath.Join(runtime.GOROOT(), "bin", "go"), "vet", "./...")
	cmd.Dir = dir
	// -mod=mod lets the scratch module resolve the agno module's
	// requirements (from the copied go.sum; GOPROXY as configured).
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	// Point at the README line: line L of snippet i is fence line + L.
	msg := snippetPos.ReplaceAllStringFunc(string(out), func(m string) string {
		sub := snippetPos.FindStringSubmatch(m)
		i, _ := strconv.Atoi(sub[1])
		l, _ := strconv.Atoi(sub[2])
		return fmt.Sprintf("%s:%d", mdName, snips[i].line+l)
	})
	return fmt.Errorf("go vet of the %s snippets: %v\n%s", mdName, err, msg)
}

func TestREADMESnippetsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the README snippets against the whole module")
	}
	root := repoRoot(t)
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	snips := goBlocks(string(md))
	if want := strings.Count(string(md), "\n```go\n"); len(snips) != want || want == 0 {
		t.Fatalf("found %d ```go blocks, the README has %d", len(snips), want)
	}
	watchSources(t, root)
	if err := vetSnippets(t, root, "README.md", snips); err != nil {
		t.Fatal(err)
	}
}

// A snippet that does not compile fails, with its Markdown line.
func TestBrokenSnippetFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	md := "# Title\n\n```go\npackage main\n\nfunc main() { undefinedFunction() }\n```\n"
	snips := goBlocks(md)
	if len(snips) != 1 || snips[0].line != 3 {
		t.Fatalf("blocks %+v", snips)
	}
	err := vetSnippets(t, repoRoot(t), "x.md", snips)
	if err == nil || !strings.Contains(err.Error(), "x.md:6:") || !strings.Contains(err.Error(), "undefinedFunction") {
		t.Fatalf("error %v", err)
	}
}

func TestFragmentIsRejected(t *testing.T) {
	err := vetSnippets(t, repoRoot(t), "x.md", []snippet{{line: 7, code: "a := 1\n"}})
	if err == nil || !strings.Contains(err.Error(), "x.md:7: a ```go block must be a complete Go file") {
		t.Fatalf("error %v", err)
	}
}

func TestGoBlocks(t *testing.T) {
	md := "text\n```go\npackage a\n```\n```console\n$ go run .\n```\n- item\n\n  ```go\n  package b\n\n  func F() {}\n  ```\n```golang\nx\n```\n"
	got := goBlocks(md)
	if len(got) != 2 || got[0] != (snippet{line: 2, code: "package a\n"}) || got[1] != (snippet{line: 10, code: "package b\n\nfunc F() {}\n"}) {
		t.Fatalf("blocks %+v", got)
	}
}
