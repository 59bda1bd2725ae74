package config_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/embedder/openai"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/postgres/pgtest"
)

// A [knowledge.NAME] table with its defaults filled in.
func TestKnowledgeTableDefaults(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.product-docs]
description = "Product documentation"

[knowledge.faq]
search_type = "hybrid"
max_results = 3
[knowledge.faq.embedder]
provider = "openai-compatible"
base_url = "http://127.0.0.1:11434/v1"
model = "nomic-embed-text"
dimensions = 768
[knowledge.faq.chunking]
strategy = "FixedSizeChunker"
chunk_size = 500
chunk_overlap = 50
`})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := c.Knowledge["product-docs"]
	if docs.VectorTable != "agno_knowledge_product_docs" || docs.ContentsTable != "agno_knowledge_contents" ||
		docs.Embedder.Provider != "builtin" || docs.Description != "Product documentation" {
		t.Errorf("defaults %+v", docs)
	}
	faq := c.Knowledge["faq"]
	if faq.SearchType != "hybrid" || faq.MaxResults != 3 || faq.Embedder.Dimensions != 768 || faq.Chunking.ChunkOverlap != 50 {
		t.Errorf("faq %+v", faq)
	}
	if got := c.KnowledgeNames(); !slices.Equal(got, []string{"faq", "product-docs"}) {
		t.Errorf("names %v", got)
	}
}

// Each mistake is reported with its key, its line and the fix.
func TestKnowledgeTableErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.a]
search_type = "semantic"
max_results = -1
similarity_threshold = 1.5
[knowledge.a.embedder]
provider = "word2vec"

[knowledge.b]
vector_table = "agno_knowledge_a"
[knowledge.b.embedder]
provider = "openai-compatible"
[knowledge.b.chunking]
chunk_overlap = 10

[knowledge.c]
contents_table = "contents"
[knowledge.c.chunking]
strategy = "SemanticChunker"

[knowledge.d]
[knowledge.d.embedder]
model = "text-embedding-3-small"
api_key_env = "sk-0123456789abcdef0123456789abcdef"
provider = "openai"

["knowledge"."bad name"]
`})
	_, err := config.Load(filepath.Join(dir, "config.toml"))
	errs := configErrors(t, err)
	for _, want := range [][]string{
		{"knowledge.a.search_type", `"semantic"`, `"vector"`, `"hybrid"`},
		{"knowledge.a.max_results", "1 or more"},
		{"knowledge.a.similarity_threshold", "from 0 to 1"},
		{"knowledge.a.embedder.provider", `"word2vec"`, `"builtin"`},
		{"knowledge.b.vector_table", `"agno_knowledge_a"`, "knowledge.a.vector_table", "its own vector_table"},
		{"knowledge.b.embedder", "no base_url", "base_url = "},
		{"knowledge.b.chunking.chunk_overlap", "needs a strategy", `strategy = "FixedSizeChunker"`},
		{"knowledge.c.contents_table", `"contents"`, "agno_knowledge_"},
		{"knowledge.c.chunking.strategy", `"SemanticChunker"`, "FixedSizeChunker"},
		{"knowledge.d.embedder.api_key_env", "not hold the secret", "export MY_KEY"},
		{`"bad name"`, "letters, digits, - and _"},
	} {
		e := findError(t, errs, want...)
		if e.Line == 0 && !strings.Contains(want[0], "bad name") {
			t.Errorf("%s: no line", want[0])
		}
	}
}

// An agent file attaches a knowledge base by name; the knowledge base
// lives in the [storage] SQLite file, and the agent searches it through
// the model's tool call.
func TestAgentKnowledgeFromConfig(t *testing.T) {
	srv := modeltest.NewServer(modeltest.ServerConfig{APIKey: testKey, Responder: func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "hr: " + last.Content}
		}
		return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_kb", "search_knowledge_base",
			`{"query":"annual leave days","filters":[{"key":"team","value":"people"}]}`)}}
	}})
	t.Cleanup(srv.Close)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"

[knowledge.handbook]
description = "The staff handbook"
search_type = "hybrid"
max_results = 2
`,
		"agents/hr.toml": `
name = "HR"
instructions = "[hr]"
knowledge = "handbook"
enable_agentic_knowledge_filters = true
knowledge_filters = { team = "people" }
`,
		"teams/desk.toml": `
name = "Desk"
members = ["hr"]
knowledge = "handbook"
add_knowledge_to_context = true
search_knowledge = false
`,
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	kb := res.Knowledge["handbook"]
	if kb == nil || kb.Description() != "The staff handbook" || kb.MaxResults() != 2 || res.KnowledgeTables["handbook"] != "agno_knowledge_contents" {
		t.Fatalf("knowledge %+v tables %v", kb, res.KnowledgeTables)
	}
	vs, ok := kb.VectorDB().(*sqlitevec.Store)
	if !ok || vs.Table() != "agno_knowledge_handbook" || !slices.Contains(vs.SupportedSearchTypes(), vectordb.SearchHybrid) {
		t.Fatalf("vector store %T", kb.VectorDB())
	}
	if _, err := kb.Insert(context.Background(), knowledge.Input{Name: "leave", TextContent: "Annual leave is 25 days.", Metadata: map[string]any{"team": "people"}}); err != nil {
		t.Fatal(err)
	}
	// The same file holds the sessions and the knowledge.
	if _, err := os.Stat(filepath.Join(dir, "agno.db")); err != nil {
		t.Fatal(err)
	}

	if len(res.Agents) != 1 || len(res.Teams) != 1 {
		t.Fatalf("report:\n%s", res.Report)
	}
	a := res.Agents[0]
	cfg := a.Config()
	if cfg.Knowledge != kb || !cfg.EnableAgenticKnowledgeFilters || cfg.KnowledgeFilters.Dict["team"] != "people" {
		t.Errorf("agent knowledge settings %+v", cfg)
	}
	if !slices.Contains(a.ToolNames(), "search_knowledge_base") {
		t.Errorf("agent tools %v", a.ToolNames())
	}
	tc := res.Teams[0].Config()
	if tc.Knowledge != kb || !tc.AddKnowledgeToContext || tc.SearchKnowledge == nil || *tc.SearchKnowledge {
		t.Errorf("team knowledge settings %+v", tc)
	}

	// The run retrieves through the config-built store: the model's
	// search (with an agentic filter) finds the inserted content.
	out, err := a.Run(context.Background(), "How many leave days?", run.WithSessionID("kb"))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run: %v %v", err, out)
	}
	if !strings.Contains(out.ContentString(), "Annual leave is 25 days.") {
		t.Errorf("answer %q", out.ContentString())
	}
	first := srv.Requests()[0].Request
	if sys := first.Messages[0].Content; !strings.Contains(sys, "[hr]") || !strings.Contains(sys, "<knowledge_base>") || !strings.Contains(sys, "team") {
		t.Errorf("system message %q", sys)
	}
}

// Knowledge keys that name nothing, or come without a knowledge base,
// fail the file with the fix.
func TestAgentKnowledgeErrors(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-compatible"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
[storage]
driver = "memory"
[knowledge.handbook]
`,
		"agents/a.toml": "knowledge = \"handbok\"\n",
		"agents/b.toml": "add_knowledge_to_context = true\n",
		"agents/c.toml": "knowledge = \"handbook\"\nknowledge_filters = [1, 2]\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	if len(res.Agents) != 0 {
		t.Fatalf("agents loaded: %d", len(res.Agents))
	}
	fails := map[string]string{}
	for _, f := range res.Report.Failures {
		fails[f.ID] = f.Err.Error()
	}
	for id, want := range map[string][]string{
		"a": {`knowledge = "handbok" is not a knowledge base`, `use one of "handbook"`},
		"b": {"add_knowledge_to_context needs a knowledge base", `knowledge = "<name>"`, `"handbook"`},
		"c": {"knowledge_filters", "a table of exact matches"},
	} {
		for _, w := range want {
			if !strings.Contains(fails[id], w) {
				t.Errorf("%s: %q lacks %q", id, fails[id], w)
			}
		}
	}
}

// A missing embedder key does not stop the start: a warning names it and
// ingestion fails saying what to export.
func TestKnowledgeEmbedderKeyMissing(t *testing.T) {
	const env = "AGNO_CONFIG_TEST_EMBED_KEY"
	t.Setenv(env, "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[storage]
driver = "memory"
[knowledge.docs.embedder]
provider = "openai"
api_key_env = "` + env + `"
`})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	logger, logs := newLogger()
	c.Logger = logger
	res, err := c.Build(context.Background(), config.Functions{}, config.Existing{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if !strings.Contains(logs.String(), "knowledge embedder API key is not set") || !strings.Contains(logs.String(), "env="+env) {
		t.Errorf("log:\n%s", logs)
	}
	_, err = res.Knowledge["docs"].Insert(context.Background(), knowledge.Input{TextContent: "hello"})
	if !errors.Is(err, openai.ErrNoAPIKey) || !strings.Contains(err.Error(), "export "+env+"=") {
		t.Fatalf("insert: %v", err)
	}
}

// On Postgres the knowledge base uses the [storage] schema; without the
// pgvector extension keyword search still works.
func TestKnowledgeOnPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t, dsn)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[storage]
driver = "postgres"
dsn_env = "AGNO_TEST_POSTGRES_DSN"
schema = "` + schema + `"
[knowledge.docs]
search_type = "keyword"
`})
	_, res := build(t, dir, config.Functions{}, config.Existing{})
	kb := res.Knowledge["docs"]
	if _, err := kb.Insert(context.Background(), knowledge.Input{Name: "pg", TextContent: "Postgres keeps the chunks in tsvector columns."}); err != nil {
		t.Fatal(err)
	}
	docs, err := kb.Search(context.Background(), "tsvector chunks", knowledge.SearchOptions{})
	if err != nil || len(docs) != 1 {
		t.Fatalf("search: %v %v", docs, err)
	}
	rows, total, err := kb.GetContent(context.Background(), contents.ListOptions{})
	if err != nil || total != 1 || rows[0].Status != "completed" {
		t.Fatalf("contents: %v %d %v", rows, total, err)
	}
}

// The users' config.toml keeps loading as it is, with no knowledge.
func TestExampleConfigHasNoKnowledge(t *testing.T) {
	c, err := config.Load(filepath.Join("..", "examples", "agentos", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Knowledge) != 0 {
		t.Errorf("knowledge %v", c.Knowledge)
	}
}
