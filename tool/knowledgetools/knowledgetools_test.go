package knowledgetools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
	vmemory "github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/knowledgetools"
	"github.com/agno-go/agno/tool/tooltest"
)

// handbook is a real knowledge base: in-memory stores, the built-in
// embedder, two documents.
func handbook(t *testing.T) *knowledge.Knowledge {
	t.Helper()
	lex, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vmemory.New(vmemory.Config{Embedder: lex, SearchType: vectordb.SearchHybrid})
	if err != nil {
		t.Fatal(err)
	}
	k, err := knowledge.New(context.Background(), knowledge.Config{Name: "handbook", VectorDB: vs, ContentsDB: contents.NewMemory(), MaxResults: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []knowledge.Input{
		{Name: "leave", TextContent: "Employees get 25 days of paid leave per year."},
		{Name: "payroll", TextContent: "Salaries are paid on the last working day of the month."},
	} {
		if _, err := k.Insert(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// failing searches the handbook but fails for the query "fail", as a
// vector store that is down does.
type failing struct{ *knowledge.Knowledge }

func (f failing) Search(ctx context.Context, q string, o knowledge.SearchOptions) ([]*document.Document, error) {
	if q == "fail" {
		return nil, errors.New("vector store unreachable")
	}
	return f.Knowledge.Search(ctx, q, o)
}

// resolver finds the knowledge bases of kbs by name, as a config does.
func resolver(kbs map[string]any) func(kind, name string) (any, error) {
	return func(kind, name string) (any, error) {
		if kb, ok := kbs[name]; ok && kind == tool.ResourceKnowledge {
			return kb, nil
		}
		return nil, fmt.Errorf("no [knowledge.%s] table", name)
	}
}

// TestConformance runs the toolkit suite on [toolkits.knowledge_tools]
// against agno v2.6.13's KnowledgeTools (tools/knowledge.py) with its
// defaults.
func TestConformance(t *testing.T) {
	const noRun = "has no run"
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "knowledge_tools",
		Name:    "knowledge_tools",
		Functions: []tooltest.Function{
			{Name: "think", Args: []string{"thought"}},
			{Name: "search_knowledge", Args: []string{"query"}},
			{Name: "analyze", Args: []string{"analysis"}},
		},
		Setup: func(t *testing.T, env *tool.ToolkitEnv) string {
			env.Resolve = resolver(map[string]any{"handbook": failing{handbook(t)}})
			return `knowledge = "handbook"`
		},
		Failures: map[string][]tooltest.Call{
			// Outside a run there is no session state to keep the notes in.
			"think":            {{Args: `{"thought": "x"}`, Want: noRun}},
			"analyze":          {{Args: `{"analysis": "x"}`, Want: noRun}},
			"search_knowledge": {{Args: `{"query": "fail"}`, Want: "Error searching knowledge base: vector store unreachable"}},
		},
		Unbounded: "the search returns at most the knowledge base's max_results documents, which its readers chunked",
		BadOptions: []tooltest.BadOption{
			// agno's argument is the object; the key names it.
			{Table: `knowledge_base = "handbook"`, Key: "knowledge_base"},
		},
	})
}

// A run that thinks, searches and analyzes: the search answers with the
// knowledge base's documents as agno's json.dumps, the notes are kept in
// the session state under thoughts and analysis and answered in agno's
// format.
func TestThinkSearchAnalyze(t *testing.T) {
	tk, err := knowledgetools.New(knowledgetools.Config{Knowledge: handbook(t), EnableThink: true, EnableSearch: true, EnableAnalyze: true, AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	fake := modeltest.New(
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c1", "think", `{"thought":"Look up the leave policy."}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c2", "search_knowledge", `{"query":"paid leave days"}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c3", "analyze", `{"analysis":"The leave document answers it."}`)}},
		modeltest.Response{ToolCalls: []model.ToolCall{model.NewToolCall("c4", "think", `{"thought":"Answer: 25 days."}`)}},
		modeltest.Response{Content: "25 days"},
	)
	a, err := agent.New(agent.Config{Name: "K", Model: fake, Tools: []tool.Provider{tk}, Store: memory.New()})
	if err != nil {
		t.Fatal(err)
	}
	out, err := a.Run(context.Background(), "How many days of leave?")
	if err != nil || out.Content != "25 days" {
		t.Fatalf("%v %v", err, out)
	}
	var results []string
	for _, m := range out.Messages {
		if m.Role == model.RoleTool {
			results = append(results, m.Content)
		}
	}
	if len(results) != 4 {
		t.Fatalf("tool results %q", results)
	}
	if results[0] != "Thoughts:\n                - Look up the leave policy." {
		t.Errorf("think answered %q", results[0])
	}
	var docs []map[string]any
	if err := json.Unmarshal([]byte(results[1]), &docs); err != nil || len(docs) != 1 || docs[0]["name"] != "leave" ||
		!strings.Contains(docs[0]["content"].(string), "25 days of paid leave") {
		t.Errorf("search answered %s (%v)", results[1], err)
	}
	if !strings.HasPrefix(results[1], `[{"name": "leave", "meta_data": {`) {
		t.Errorf("search answer is not json.dumps' format: %s", results[1])
	}
	if results[2] != "Analysis:\n                - The leave document answers it." {
		t.Errorf("analyze answered %q", results[2])
	}
	if results[3] != "Thoughts:\n                - Look up the leave policy.\n- Answer: 25 days." {
		t.Errorf("second think answered %q", results[3])
	}
	if got := fmt.Sprint(out.SessionState["thoughts"], out.SessionState["analysis"]); got != "[Look up the leave policy. Answer: 25 days.] [The leave document answers it.]" {
		t.Errorf("session state %s", got)
	}
	if !strings.HasPrefix(tk.Instructions(), "You have access to the Think, Search, and Analyze tools") || strings.Contains(tk.Instructions(), "### Examples") {
		t.Errorf("instructions %q", tk.Instructions())
	}
}

// Nothing found is agno's text; the few-shot examples join the
// instructions when asked for.
func TestNothingFoundAndFewShot(t *testing.T) {
	lex, _ := embedder.NewLexical(embedder.LexicalConfig{})
	vs, _ := vmemory.New(vmemory.Config{Embedder: lex})
	kb, err := knowledge.New(context.Background(), knowledge.Config{Name: "empty", VectorDB: vs})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := knowledgetools.New(knowledgetools.Config{Knowledge: kb, EnableSearch: true, AddFewShot: true, AddInstructions: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	if len(fns) != 1 || fns[0].Name != "search_knowledge" {
		t.Fatalf("functions %v", fns)
	}
	res, err := fns[0].Invoke(context.Background(), &tool.Call{Function: fns[0]}, map[string]any{"query": "anything"})
	if err != nil || res.Content != "No documents found" {
		t.Errorf("%q %v", res.Content, err)
	}
	if !strings.HasSuffix(tk.Instructions(), knowledgetools.DefaultInstructions+"\n"+knowledgetools.FewShotExamples) {
		t.Errorf("instructions %q", tk.Instructions())
	}
}

// Built through the registry, a missing or unknown knowledge base is an
// error naming the knowledge key.
func TestKnowledgeOption(t *testing.T) {
	tk, _ := tool.LookupToolkit("knowledge_tools")
	env := tool.ToolkitEnv{Resolve: resolver(map[string]any{})}
	_, err := tk.New(env, nil)
	if oe := tool.OptionErrors(err); len(oe) != 1 || oe[0].Key != "knowledge" || !strings.Contains(oe[0].Msg, `knowledge = "<name>"`) {
		t.Errorf("no knowledge: %v", err)
	}
	opts := tk.DefaultOptions(env).(*knowledgetools.Options)
	opts.Knowledge = "wiki"
	_, err = tk.New(env, opts)
	if oe := tool.OptionErrors(err); len(oe) != 1 || oe[0].Key != "knowledge" || !strings.Contains(oe[0].Msg, `knowledge = "wiki": no [knowledge.wiki] table`) {
		t.Errorf("unknown knowledge: %v", err)
	}
	_, err = tk.New(tool.ToolkitEnv{}, opts)
	if !errors.Is(err, tool.ErrNoResolver) && !strings.Contains(fmt.Sprint(err), "ToolkitEnv.Resolve is nil") {
		t.Errorf("no resolver: %v", err)
	}
}
