package wikipedia_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	vmemory "github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/internal/webapi/webapitest"
	"github.com/agno-go/agno/tool/tooltest"
)

// kb is a real knowledge base: in-memory stores, the built-in embedder.
func kb(t *testing.T) *knowledge.Knowledge {
	t.Helper()
	lex, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vmemory.New(vmemory.Config{Embedder: lex, SearchType: vectordb.SearchHybrid})
	if err != nil {
		t.Fatal(err)
	}
	k, err := knowledge.New(context.Background(), knowledge.Config{Name: "wiki", VectorDB: vs, ContentsDB: contents.NewMemory(), MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func resolver(k *knowledge.Knowledge) func(kind, name string) (any, error) {
	return func(kind, name string) (any, error) {
		if kind == tool.ResourceKnowledge && name == "wiki" {
			return k, nil
		}
		return nil, fmt.Errorf("no [knowledge.%s] table", name)
	}
}

// TestConformanceWithKnowledge runs the suite on WikipediaTools given a
// knowledge base: search_wikipedia_and_update_knowledge_base alone.
func TestConformanceWithKnowledge(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit:   "wikipedia",
		Name:      "wikipedia_tools",
		Functions: []tooltest.Function{{Name: "search_wikipedia_and_update_knowledge_base", Args: []string{"topic"}}},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			srv := fakeWiki(t)
			c := webapitest.Client(t)
			c.Transport = bigClient{c.Transport}
			env.HTTPClient = c
			env.Resolve = resolver(kb(t))
			return fmt.Sprintf("knowledge = \"wiki\"\nbase_url = %q\nmax_result_bytes = 2000", srv.URL+"/w/api.php")
		},
		Failures: map[string][]tooltest.Call{
			// Nothing found: nothing inserted, the search answers none.
			"search_wikipedia_and_update_knowledge_base": {{Args: `{"topic": "nothing here"}`, Want: "[]"}},
		},
		Oversized:  &tooltest.Oversized{Function: "search_wikipedia_and_update_knowledge_base", Call: tooltest.Call{Args: `{"topic": "golang"}`, Want: "result truncated"}, Option: "max_result_bytes", Limit: 2000},
		BadOptions: []tooltest.BadOption{{Table: `knowledge = "other"`, Key: "knowledge"}},
		Golden:     "testdata/tooltest/wikipedia_knowledge.golden.json",
	})
}

// The topic's summary is inserted through the WikipediaReader (meta_data
// topic) and the knowledge base's search answers it as agno's
// json.dumps of to_dict()s.
func TestSearchAndUpdateKnowledge(t *testing.T) {
	srv := fakeWiki(t)
	k := kb(t)
	tk, _ := tool.LookupToolkit("wikipedia")
	env := tool.ToolkitEnv{HTTPClient: webapitest.Client(t), Resolve: resolver(k)}
	opts := tk.DefaultOptions(env)
	if _, err := toml.Decode(fmt.Sprintf("knowledge = \"wiki\"\nbase_url = %q", srv.URL+"/w/api.php"), opts); err != nil {
		t.Fatal(err)
	}
	if err := tk.Check(env, opts, nil); err != nil {
		t.Fatal(err)
	}
	p, err := tk.New(env, opts)
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := p.Functions(context.Background())
	f := fns[0]
	res, err := f.Invoke(context.Background(), &tool.Call{Function: f}, map[string]any{"topic": "golang"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"name": "golang", "meta_data": {`; !strings.HasPrefix(res.Content, want) || !strings.Contains(res.Content, `"topic": "golang"`) ||
		!strings.Contains(res.Content, `"content": "Go is a high-level general purpose programming language."`) {
		t.Errorf("got %s", res.Content)
	}
	cs, _, err := k.ContentsDB().List(context.Background(), contents.ListOptions{})
	if err != nil || len(cs) != 1 || cs[0].Name != "golang" {
		t.Errorf("contents %v %v", cs, err)
	}
}
