package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool/mcp"
)

// FuzzResourceFile feeds arbitrary text to the declarative-file loader
// (kind detection, strict decoding, key positions, step checks and CEL
// compilation): it must report, never panic.
func FuzzResourceFile(f *testing.F) {
	for _, name := range []string{"agents/researcher.toml", "teams/editorial.toml", "workflows/review-flow.toml"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "registry", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("kind = \"workflow\"\n[[steps]]\nname = \"c\"\ntype = \"condition\"\nevaluator = 'input.contains(\"x\") && size(previous_step_outputs) > 0'\nsteps = [{name = \"s\", function = \"f\"}]\n")
	f.Add("kind = \"team\"\nmembers = [\"agent:a\", \"team:b\", \"c\"]\n")
	f.Fuzz(func(t *testing.T, src string) {
		dir := "/fuzz"
		path := filepath.Join(dir, "r.toml")
		c := defaults()
		c.Path, c.Dir = filepath.Join(dir, "config.toml"), dir
		c.Models = map[string]ModelConfig{"default": {Provider: ProviderOpenAICompatible, Model: "m", BaseURL: "http://127.0.0.1:9/v1"}}
		res := &Resources{Models: map[string]model.Model{"default": nil}, MCP: map[string]*mcp.Tools{"everything": nil}}
		l := &loader{cfg: &c, res: res, byID: map[Kind]map[string]*resFile{KindAgent: {}, KindTeam: {}, KindWorkflow: {}}}
		for _, k := range []Kind{"", KindAgent, KindTeam, KindWorkflow} {
			rf := l.parseData(path, []byte(src), k)
			if rf.err != nil && !strings.Contains(rf.err.Error(), path) {
				t.Fatalf("error does not name the file: %v", rf.err)
			}
		}
	})
}

// FuzzKeyIndex checks the key-position scanner on arbitrary text.
func FuzzKeyIndex(f *testing.F) {
	f.Add("[a]\nb = 1\n[[c.d]]\ne = [{f = 'g'}, \"\"\"h\n\"\"\"]\n")
	f.Add("x = { y = { z = [1, [2, {w = 3}]] } } # c\n")
	f.Fuzz(func(t *testing.T, src string) {
		idx := indexKeys(src)
		for _, k := range idx.order {
			p, ok := idx.lookup(k)
			if !ok || p.Line < 1 || p.Col < 1 {
				t.Fatalf("%q at %+v", k, p)
			}
		}
	})
}
