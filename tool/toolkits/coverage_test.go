package toolkits_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/tool"
	_ "github.com/agno-go/agno/tool/toolkits"
)

// registeredAs names the toolkit registered for an agno module whose
// registered name is not the module's.
var registeredAs = map[string]string{
	"knowledge": "knowledge_tools",
	"memory":    "memory_tools",
	"workflow":  "workflow_tools",
}

// mcpClient are agno's MCP client toolkits: here [mcp.servers.<name>]
// and tools = ["mcp:<name>"], not a registered toolkit.
var mcpClient = []string{"mcp/mcp", "mcp/multi_mcp"}

// pending are the modules issue 33 builds in that are not built yet:
// scheduler needs a run to carry its caller's rights to the schedules
// it makes. Each leaves the list when its toolkit registers (the test
// says which), so the list only shrinks.
var pending = []string{
	"scheduler",
}

// agnoModules reads testdata/agno_toolkits.txt: module → classes.
func agnoModules(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "agno_toolkits.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mods := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		mod, classes, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("agno_toolkits.txt: %q is not \"<module> <classes>\"", line)
		}
		mods[mod] = classes
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(mods) < 100 {
		t.Fatalf("agno_toolkits.txt lists %d modules; agno v2.6.13 has 135", len(mods))
	}
	return mods
}

type mcpRow struct {
	module, classes, server, snippet string
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// mcpTable reads the rows of config/README.md's "agno's other toolkits,
// over MCP" table.
func mcpTable(t *testing.T) []mcpRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- agno toolkits over MCP: checked by tool/toolkits TestAgnoToolkitsCovered -->\n")
	section, _, ok2 := strings.Cut(rest, "<!-- end of agno toolkits over MCP -->")
	if !ok || !ok2 {
		t.Fatal("config/README.md lacks the agno toolkits over MCP markers")
	}
	var rows []mcpRow
	for i, line := range strings.Split(strings.TrimSpace(section), "\n") {
		if i < 2 {
			continue // header and separator
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 4 {
			t.Fatalf("config/README.md row %q: want 4 cells, got %d", line, len(cells))
		}
		m := codeSpan.FindStringSubmatch(cells[0])
		if m == nil {
			t.Fatalf("config/README.md row %q: the module is not in `backticks`", line)
		}
		rows = append(rows, mcpRow{module: m[1], classes: strings.TrimSpace(cells[1]), server: strings.TrimSpace(cells[2]), snippet: strings.TrimSpace(cells[3])})
	}
	return rows
}

// Every agno toolkit module is a registered toolkit, agno's MCP client,
// pending on its branch, or a row of the MCP table; each row is a module
// of agno's that is not built in, and each snippet is a valid config.
func TestAgnoToolkitsCovered(t *testing.T) {
	mods := agnoModules(t)
	rows := mcpTable(t)
	registered := func(mod string) (string, bool) {
		name := mod
		if n, ok := registeredAs[mod]; ok {
			name = n
		}
		_, ok := tool.LookupToolkit(name)
		return name, ok
	}

	inTable := map[string]mcpRow{}
	for _, r := range rows {
		if _, dup := inTable[r.module]; dup {
			t.Errorf("config/README.md: module %q has two rows", r.module)
		}
		inTable[r.module] = r
		classes, ok := mods[r.module]
		if !ok {
			t.Errorf("config/README.md: row %q is not a toolkit module of agno v2.6.13 (testdata/agno_toolkits.txt): remove it or fix the name", r.module)
			continue
		}
		if want := strings.ReplaceAll(classes, ",", ", "); r.classes != want {
			t.Errorf("config/README.md: row %q names classes %q, agno has %q", r.module, r.classes, want)
		}
		if name, ok := registered(r.module); ok {
			t.Errorf("config/README.md: %q is the built-in toolkit %q now: remove its row from the MCP table", r.module, name)
		}
		if slices.Contains(pending, r.module) || slices.Contains(mcpClient, r.module) {
			t.Errorf("config/README.md: %q is built in (pending or the MCP client), not a row of the MCP table", r.module)
		}
	}
	for _, mod := range pending {
		if _, ok := mods[mod]; !ok {
			t.Errorf("pending %q is not a toolkit module of agno v2.6.13", mod)
		}
		if name, ok := registered(mod); ok {
			t.Errorf("%q is registered as %q: remove it from pending in coverage_test.go", mod, name)
		}
	}
	var missing []string
	for mod, classes := range mods {
		if _, ok := registered(mod); ok || slices.Contains(mcpClient, mod) || slices.Contains(pending, mod) {
			continue
		}
		if _, ok := inTable[mod]; !ok {
			missing = append(missing, mod+" ("+classes+")")
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("agno's toolkit module %s is neither a registered toolkit nor a row of config/README.md's \"agno's other toolkits, over MCP\" table: build it in, or add its row (an MCP server, or \"no well-known MCP server\")", m)
	}

	// Each snippet is a [mcp.servers.<name>] table config.Parse accepts.
	withServer := 0
	for _, r := range rows {
		if r.snippet == "—" {
			if !strings.HasPrefix(r.server, "no well-known MCP server") && !strings.HasPrefix(r.server, "none needed") {
				t.Errorf("row %q names a server without a snippet", r.module)
			}
			continue
		}
		withServer++
		var lines []string
		for _, part := range strings.Split(r.snippet, "<br>") {
			m := codeSpan.FindStringSubmatch(part)
			if m == nil {
				t.Fatalf("row %q: snippet part %q is not in `backticks`", r.module, part)
			}
			lines = append(lines, m[1])
		}
		if !strings.HasPrefix(lines[0], "[mcp.servers.") {
			t.Errorf("row %q: the snippet starts %q, want [mcp.servers.<name>]", r.module, lines[0])
		}
		src := strings.Join(lines, "\n") + "\n"
		c, err := config.Parse(filepath.Join(t.TempDir(), "config.toml"), []byte(src))
		if err != nil {
			t.Errorf("row %q: the snippet is not a valid config:\n%s\n%v", r.module, src, err)
			continue
		}
		if len(c.MCP.Servers) != 1 {
			t.Errorf("row %q: the snippet defines %d MCP servers", r.module, len(c.MCP.Servers))
		}
	}
	if withServer < 20 {
		t.Errorf("only %d rows name an MCP server", withServer)
	}
}
