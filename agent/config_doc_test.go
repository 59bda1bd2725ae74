package agent_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// agent.Config is an alias (the engine runs the struct agentconfig
// defines), and go doc shows no fields behind an alias: its comment lists
// them, generated from agentconfig's source and kept equal here.
// AGNO_UPDATE_DOCS=1 rewrites the list.
func TestConfigDocListsEveryField(t *testing.T) {
	want := configFieldList(t, "agentconfig/agentconfig.go")
	const path = "agent.go"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "// Fields (generated from agentconfig; go test ./agent updates it with AGNO_UPDATE_DOCS=1):\n//\n", "type Config = agentconfig.Config\n"
	text := string(src)
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s: the Config comment has lost its field list marker %q", path, begin)
	}
	got := text[i+len(begin) : j]
	if got == want {
		return
	}
	if os.Getenv("AGNO_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(text[:i+len(begin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("agent.Config's field list is stale; run AGNO_UPDATE_DOCS=1 go test ./agent -run TestConfigDocListsEveryField\ngot:\n%s\nwant:\n%s", got, want)
}

// configFieldList renders each field of agentconfig.Config as a doc
// list item: its name, its agent-file key, and the first sentence of its
// comment.
func configFieldList(t *testing.T, file string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var fields *ast.FieldList
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Config" {
			fields = ts.Type.(*ast.StructType).Fields
		}
		return fields == nil
	})
	if fields == nil {
		t.Fatalf("%s: no Config struct", file)
	}
	var b strings.Builder
	for _, fd := range fields.List {
		key := ""
		if fd.Tag != nil {
			tag, _ := strconv.Unquote(fd.Tag.Value)
			if k, _, _ := strings.Cut(reflect.StructTag(tag).Get("toml"), ","); k != "" && k != "-" {
				key = " (" + k + ")"
			}
		}
		var names []string
		for _, n := range fd.Names {
			names = append(names, n.Name)
		}
		if len(names) == 0 || !ast.IsExported(names[0]) {
			continue
		}
		item := strings.Join(names, ", ") + key + ": " + firstSentence(fd.Doc.Text())
		lines := wrap(item, 72)
		for k, l := range lines {
			if k == 0 {
				b.WriteString("//   - " + l + "\n")
			} else {
				b.WriteString("//     " + l + "\n")
			}
		}
	}
	return b.String()
}

func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if doc == "" {
		return "(undocumented)"
	}
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && doc[i+1] == ' ' && !strings.HasSuffix(doc[:i], "e.g") && !strings.HasSuffix(doc[:i], "i.e") {
			return doc[:i+1]
		}
	}
	return doc
}

func wrap(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	for _, w := range strings.Fields(s) {
		if cur.Len() > 0 && cur.Len()+1+len(w) > width {
			lines = append(lines, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(w)
	}
	return append(lines, cur.String())
}
