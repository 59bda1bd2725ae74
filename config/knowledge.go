package config

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/contents"
	_ "github.com/agno-go/agno/knowledge/contents/pgcontents" // registers "postgres" contents
	"github.com/agno-go/agno/knowledge/contents/sqlitecontents"
	"github.com/agno-go/agno/knowledge/embedder"
	_ "github.com/agno-go/agno/knowledge/embedder/bedrock" // registers the "aws-bedrock" embedder
	kbopenai "github.com/agno-go/agno/knowledge/embedder/openai"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/knowledge/vectordb"
	_ "github.com/agno-go/agno/knowledge/vectordb/memory"    // registers "memory"
	_ "github.com/agno-go/agno/knowledge/vectordb/pgvector"  // registers "pgvector"
	_ "github.com/agno-go/agno/knowledge/vectordb/sqlitevec" // registers "sqlitevec"
	"github.com/agno-go/agno/storage/driver"
)

// KnowledgeConfig is one [knowledge.<name>] table: a knowledge base that
// agents and teams attach with knowledge = "<name>", that AgentOS serves
// on its /knowledge routes and that `agno knowledge add` ingests into.
// Its chunks and its contents table live in the [storage] database (the
// SQLite file, or Postgres with pgvector) unless the driver is memory.
type KnowledgeConfig struct {
	Description string `toml:"description"`
	// MaxResults is how many documents a search returns (agno's
	// max_results, default 10).
	MaxResults int `toml:"max_results"`
	// SearchType is "vector" (the default, as agno's), "keyword" or
	// "hybrid" (both, fused by reciprocal rank).
	SearchType string `toml:"search_type"`
	// SimilarityThreshold drops vector and hybrid results scoring below
	// it (0 to 1).
	SimilarityThreshold *float64 `toml:"similarity_threshold"`
	// IsolateVectorSearch filters every search by this knowledge base's
	// name, for knowledge bases sharing a vector table.
	IsolateVectorSearch bool `toml:"isolate_vector_search"`
	// VectorTable holds the chunks (default agno_knowledge_<name>);
	// ContentsTable the contents and their status (default
	// agno_knowledge_contents, shared: rows belong to their knowledge
	// base by name).
	VectorTable   string `toml:"vector_table"`
	ContentsTable string `toml:"contents_table"`

	Embedder KnowledgeEmbedderConfig `toml:"embedder"`
	Chunking KnowledgeChunkingConfig `toml:"chunking"`
}

// Built-in embedder providers; embedder.Names lists every registered one.
// Importing package openai here registers its providers.
const (
	// EmbedderBuiltin is the deterministic built-in embedder: lexical
	// (shared words and word fragments), not semantic, and offline.
	EmbedderBuiltin = embedder.ProviderBuiltin
	// EmbedderOpenAI and EmbedderOpenAICompatible call an /embeddings
	// endpoint (OpenAI, Ollama, vLLM, any base_url).
	EmbedderOpenAI           = kbopenai.ProviderOpenAI
	EmbedderOpenAICompatible = kbopenai.ProviderCompatible
)

// KnowledgeEmbedderConfig is [knowledge.<name>.embedder].
type KnowledgeEmbedderConfig struct {
	// Provider is a registered embedder provider (embedder.Names):
	// "builtin" (default), "openai" or "openai-compatible".
	Provider string `toml:"provider"`
	// Model is the embedding model (default text-embedding-3-small).
	Model   string `toml:"model"`
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the variable holding the key (default
	// OPENAI_API_KEY for openai; none for openai-compatible).
	APIKeyEnv string `toml:"api_key_env"`
	// Dimensions of the vectors (default 512 for builtin, 1536 for
	// OpenAI models, 3072 for text-embedding-3-large).
	Dimensions int `toml:"dimensions"`
	// BatchSize is how many texts go in one request (default 100).
	BatchSize int `toml:"batch_size"`
}

// KnowledgeChunkingConfig is [knowledge.<name>.chunking]. Without it
// every reader chunks its own way, as agno's (fixed size 5000, markdown
// by headings, CSV by row).
type KnowledgeChunkingConfig struct {
	// Strategy is agno's chunker name for every reader, a registered
	// chunk strategy (chunk.Names): FixedSizeChunker, RecursiveChunker,
	// DocumentChunker, MarkdownChunker or RowChunker.
	Strategy string `toml:"strategy"`
	// ChunkSize is the largest chunk in characters (default 5000).
	ChunkSize int `toml:"chunk_size"`
	// ChunkOverlap is how many characters a chunk repeats of the one
	// before (needs a strategy).
	ChunkOverlap int `toml:"chunk_overlap"`
}

// Default knowledge tables.
const (
	DefaultContentsTable = sqlitecontents.DefaultTable
	knowledgeTablePrefix = "agno_knowledge_"
)

var (
	knowledgeName  = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,32}$`)
	knowledgeTable = regexp.MustCompile(`^agno_knowledge_[a-z0-9_]{1,33}$`)
)

// KnowledgeTableName is a knowledge base's default vector table.
func KnowledgeTableName(name string) string {
	return knowledgeTablePrefix + strings.ReplaceAll(strings.ToLower(name), "-", "_")
}

func (c *Config) validateKnowledge(p *problems, md *toml.MetaData) {
	owner := map[string]string{} // table → the key that uses it
	claim := func(key, table, what string) {
		// A vector table T also owns T_fts and T_vectors.
		names := []string{table}
		if what == "vector_table" {
			names = append(names, table+"_fts", table+"_vectors")
		}
		for _, n := range names {
			if prev, ok := owner[n]; ok && !(what == "contents_table" && strings.HasSuffix(prev, ".contents_table")) {
				p.at(key, "%s: table %q is also used by %s: give each knowledge base its own vector_table", key, n, prev)
				return
			}
		}
		for _, n := range names {
			owner[n] = key
		}
	}
	for _, name := range sortedKeys(c.Knowledge) {
		key := "knowledge." + quoteKey(name)
		k := c.Knowledge[name]
		if !knowledgeName.MatchString(name) {
			p.at(key, "[knowledge.%s]: name it with letters, digits, - and _ (at most 33, starting with a letter or digit), for example [knowledge.docs]; agents attach it with knowledge = \"docs\"", quoteKey(name))
			continue
		}
		if k.MaxResults < 0 || (k.MaxResults == 0 && md.IsDefined("knowledge", name, "max_results")) {
			p.at(key+".max_results", "%s.max_results = %d: give how many documents a search returns, 1 or more (default %d)", key, k.MaxResults, knowledge.DefaultMaxResults)
		}
		if _, err := vectordb.ParseSearchType(k.SearchType); err != nil {
			p.at(key+".search_type", "%s.search_type = %q: use \"vector\" (the default), \"keyword\" or \"hybrid\"", key, k.SearchType)
		}
		if t := k.SimilarityThreshold; t != nil && (*t < 0 || *t > 1) {
			p.at(key+".similarity_threshold", "%s.similarity_threshold = %v: use a score from 0 to 1", key, *t)
		}
		if k.VectorTable == "" {
			k.VectorTable = KnowledgeTableName(name)
		}
		if k.ContentsTable == "" {
			k.ContentsTable = DefaultContentsTable
		}
		for field, table := range map[string]string{"vector_table": k.VectorTable, "contents_table": k.ContentsTable} {
			if !knowledgeTable.MatchString(table) {
				p.at(key+"."+field, "%s.%s = %q: use agno_knowledge_ followed by lower-case letters, digits or _ (at most 48 characters in all)", key, field, table)
			}
		}
		if k.VectorTable == k.ContentsTable {
			p.at(key+".vector_table", "%s: vector_table and contents_table are both %q: give them different tables", key, k.VectorTable)
		}
		claim(key+".vector_table", k.VectorTable, "vector_table")
		claim(key+".contents_table", k.ContentsTable, "contents_table")
		c.validateEmbedder(p, key+".embedder", &k.Embedder)
		c.validateChunking(p, key+".chunking", k.Chunking)
		if d, _ := driver.Lookup(c.storageDriverName()); d.InProcess && (md.IsDefined("knowledge", name, "vector_table") || md.IsDefined("knowledge", name, "contents_table")) {
			p.at(key, "%s: vector_table and contents_table name tables of the [storage] database; driver = \"memory\" keeps knowledge in this process, so remove them", key)
		}
		c.Knowledge[name] = k
	}
}

func (c *Config) validateEmbedder(p *problems, key string, e *KnowledgeEmbedderConfig) {
	e.Provider = cmp.Or(e.Provider, EmbedderBuiltin)
	prov, ok := embedder.Lookup(e.Provider)
	if !ok {
		p.at(key+".provider", "%s.provider = %q: use %s", key, e.Provider, embedderChoices())
		return
	}
	bad := false
	at := func(k, format string, args ...any) {
		bad = true
		p.at(k, format, args...)
	}
	if e.Dimensions < 0 || e.BatchSize < 0 {
		at(key, "%s: dimensions and batch_size must not be negative (0 means the default)", key)
	}
	if e.APIKeyEnv != "" {
		if !envName.MatchString(e.APIKeyEnv) {
			bad = true
			checkEnvName(p, key+".api_key_env", e.APIKeyEnv)
		}
	} else {
		// The provider's variable, shown by config show, as for [models].
		e.APIKeyEnv = prov.KeyEnv
	}
	if prov.RequiresBaseURL && e.BaseURL == "" {
		at(key, "%s is %s but has no base_url: set the endpoint, for example base_url = \"http://localhost:11434/v1\"", key, e.Provider)
	}
	if e.BaseURL != "" {
		if u, err := url.Parse(e.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			at(key+".base_url", "%s.base_url = %q is not an http(s) URL: write it like \"https://api.openai.com/v1\"", key, e.BaseURL)
		}
	}
	if bad {
		return
	}
	// The provider checks the rest itself; building makes no request.
	if _, err := prov.New(e.options()); err != nil {
		p.at(key, "%s: %v", key, err)
	}
}

// options are the embedder options of the table.
func (e KnowledgeEmbedderConfig) options() embedder.Options {
	return embedder.Options{Model: e.Model, BaseURL: e.BaseURL, APIKeyEnv: e.APIKeyEnv, Dimensions: e.Dimensions, BatchSize: e.BatchSize}
}

// embedderChoices lists the registered embedder providers with their
// summaries, for error messages.
func embedderChoices() string {
	names := embedder.Names()
	out := make([]string, len(names))
	for i, name := range names {
		prov, _ := embedder.Lookup(name)
		out[i] = fmt.Sprintf("%q (%s)", name, prov.Summary)
	}
	if len(out) < 2 {
		return strings.Join(out, "")
	}
	return strings.Join(out[:len(out)-1], ", ") + " or " + out[len(out)-1]
}

func (c *Config) validateChunking(p *problems, key string, ch KnowledgeChunkingConfig) {
	if ch.ChunkSize < 0 || ch.ChunkOverlap < 0 {
		p.at(key, "%s: chunk_size and chunk_overlap must not be negative", key)
		return
	}
	if ch.Strategy == "" {
		if ch.ChunkOverlap > 0 {
			p.at(key+".chunk_overlap", "%s.chunk_overlap needs a strategy: set strategy = %q (or another of %s)", key, chunk.TypeFixedSize, strings.Join(chunk.Names(), ", "))
		}
		return
	}
	if _, err := chunk.New(ch.Strategy, chunk.Config{Size: ch.ChunkSize, Overlap: ch.ChunkOverlap}); err != nil {
		p.at(key+".strategy", "%s.strategy: %v", key, err)
	}
}

// buildKnowledge opens the stores of every [knowledge] table and makes
// the knowledge bases. Tables shared by several knowledge bases (the
// contents table) are opened once.
func (c *Config) buildKnowledge(ctx context.Context, r *Resources) error {
	if len(c.Knowledge) == 0 {
		return nil
	}
	log := c.logger()
	sharedContents := map[string]contents.Store{}
	for _, name := range sortedKeys(c.Knowledge) {
		kc := c.Knowledge[name]
		emb, err := c.buildEmbedder(name, kc.Embedder)
		if err != nil {
			return err
		}
		vs, err := c.openVectorDB(ctx, r, name, kc, emb)
		if err != nil {
			return err
		}
		cs, ok := sharedContents[kc.ContentsTable]
		if !ok {
			if cs, err = c.openContents(ctx, r, kc.ContentsTable); err != nil {
				return err
			}
			sharedContents[kc.ContentsTable] = cs
		}
		ropts, err := knowledgeReaderOptions(kc.Chunking)
		if err != nil {
			return fmt.Errorf("config: [knowledge.%s.chunking] in %s: %w", name, c.Path, err)
		}
		include := c.Settings.Runtime.ContentHash.IncludeMetadata
		k, err := knowledge.New(ctx, knowledge.Config{
			Name: name, Description: kc.Description, VectorDB: vs, ContentsDB: cs, MaxResults: kc.MaxResults,
			ReaderOptions: ropts, IsolateVectorSearch: kc.IsolateVectorSearch,
			ContentHash: knowledge.HashOptions{IncludeMetadata: &include}, HTTPClient: r.Outbound, Logger: c.Logger,
		})
		if err != nil {
			return fmt.Errorf("config: [knowledge.%s] in %s: %w", name, c.Path, err)
		}
		r.Knowledge[name] = k
		r.KnowledgeTables[name] = kc.ContentsTable
		log.Info("knowledge base ready", "knowledge", name, "vector_db", vs.Info().Name, "table", kc.VectorTable,
			"search_type", searchTypeOrDefault(kc.SearchType), "embedder", kc.Embedder.Provider)
	}
	return nil
}

func searchTypeOrDefault(s string) string {
	if s == "" {
		return string(vectordb.SearchVector)
	}
	return s
}

// openVectorDB opens a knowledge base's vector store on the [storage]
// database.
func (c *Config) openVectorDB(ctx context.Context, r *Resources, name string, kc KnowledgeConfig, emb embedder.Embedder) (vectordb.DB, error) {
	_, open, ok := vectordb.ForStorage(c.storageDriverName())
	if !ok {
		return nil, fmt.Errorf("config: [knowledge.%s]: no vector store is registered for storage driver %q (vectordb.UseForStorage)", name, c.storageDriverName())
	}
	vs, err := open(ctx, vectordb.Options{
		ID: vectordb.DefaultID(kc.VectorTable), Description: kc.Description, Table: kc.VectorTable, Embedder: emb,
		SearchType: vectordb.SearchType(strings.ToLower(kc.SearchType)), SimilarityThreshold: kc.SimilarityThreshold,
		Logger: c.Logger, Path: c.Storage.Path, Storage: r.Store,
	})
	if err != nil {
		return nil, fmt.Errorf("config: [knowledge.%s] vector store (table %s): %w", name, kc.VectorTable, err)
	}
	if cl, ok := vs.(io.Closer); ok {
		r.closers = append(r.closers, cl.Close)
	}
	return vs, nil
}

// openContents opens a contents table on the [storage] database.
func (c *Config) openContents(ctx context.Context, r *Resources, table string) (contents.Store, error) {
	open, ok := contents.ForStorage(c.storageDriverName())
	if !ok {
		return nil, fmt.Errorf("config: knowledge contents: no contents store is registered for storage driver %q (contents.Register)", c.storageDriverName())
	}
	s, err := open(ctx, contents.Options{Table: table, Path: c.Storage.Path, Storage: r.Store, Logger: c.Logger})
	if err != nil {
		return nil, fmt.Errorf("config: knowledge contents table %s: %w", table, err)
	}
	if cl, ok := s.(io.Closer); ok {
		r.closers = append(r.closers, cl.Close)
	}
	return s, nil
}

// storageDriverName is [storage]'s driver, the default when unset.
func (c *Config) storageDriverName() string { return cmp.Or(c.Storage.Driver, driver.DefaultName()) }

// buildEmbedder makes a knowledge base's embedder. An API key variable
// that is not set does not stop the start, as for models: a warning
// names it, and ingestion and search fail saying what to export.
func (c *Config) buildEmbedder(name string, e KnowledgeEmbedderConfig) (embedder.Embedder, error) {
	prov, ok := embedder.Lookup(cmp.Or(e.Provider, EmbedderBuiltin))
	if !ok {
		return nil, fmt.Errorf("config: [knowledge.%s.embedder] in %s: provider %q: use %s", name, c.Path, e.Provider, embedderChoices())
	}
	e.APIKeyEnv = cmp.Or(e.APIKeyEnv, prov.KeyEnv) // set by validation, unless built from Go
	if e.APIKeyEnv != "" && os.Getenv(e.APIKeyEnv) == "" {
		c.logger().Warn("knowledge embedder API key is not set; ingestion and search of this knowledge base will fail until it is exported",
			"knowledge", name, "env", e.APIKeyEnv, "fix", fmt.Sprintf("export %s=<your key> and restart", e.APIKeyEnv))
	}
	emb, err := prov.New(e.options())
	if err != nil {
		return nil, fmt.Errorf("config: [knowledge.%s.embedder] in %s: %w", name, c.Path, err)
	}
	return emb, nil
}

// knowledgeReaderOptions are the reader options [knowledge.<name>.chunking]
// gives every reader; zero keeps each reader's own chunking.
func knowledgeReaderOptions(ch KnowledgeChunkingConfig) (reader.Options, error) {
	opts := reader.Options{ChunkSize: ch.ChunkSize}
	if ch.Strategy != "" {
		c, err := chunk.New(ch.Strategy, chunk.Config{Size: ch.ChunkSize, Overlap: ch.ChunkOverlap})
		if err != nil {
			return reader.Options{}, err
		}
		opts.Chunker = c
	}
	return opts, nil
}

// KnowledgeNames lists the [knowledge] tables.
func (c *Config) KnowledgeNames() []string { return sortedKeys(c.Knowledge) }

// knowledgeChoices names the knowledge bases for error messages.
func (c *Config) knowledgeChoices() string {
	names := sortedKeys(c.Knowledge)
	if len(names) == 0 {
		return "none is defined: add a [knowledge.<name>] table to " + c.Path
	}
	return "use one of " + strings.Join(quoteAll(names), ", ") + ", or add [knowledge.<name>] to " + c.Path
}

// knowledgeFields are the knowledge keys agent and team files share.
type knowledgeFields struct {
	name                string
	filters             Value
	search, instruction *bool
	agentic, toContext  bool
}

func (a *AgentFile) knowledge() knowledgeFields {
	return knowledgeFields{a.Knowledge, a.KnowledgeFilters, a.SearchKnowledge, a.AddSearchKnowledgeInstructions, a.EnableAgenticKnowledgeFilters, a.AddKnowledgeToContext}
}

func (t *TeamFile) knowledge() knowledgeFields {
	return knowledgeFields{t.Knowledge, t.KnowledgeFilters, t.SearchKnowledge, t.AddSearchKnowledgeInstructions, t.EnableAgenticKnowledgeFilters, t.AddKnowledgeToContext}
}

// checkKnowledge validates a file's knowledge keys against the built
// knowledge bases.
func (l *loader) checkKnowledge(p *problems, k knowledgeFields) {
	if k.name == "" {
		for _, f := range []struct {
			key string
			set bool
		}{
			{"knowledge_filters", k.filters.V != nil}, {"search_knowledge", k.search != nil},
			{"add_search_knowledge_instructions", k.instruction != nil},
			{"enable_agentic_knowledge_filters", k.agentic}, {"add_knowledge_to_context", k.toContext},
		} {
			if f.set {
				p.at(f.key, "%s needs a knowledge base: set knowledge = \"<name>\" to a [knowledge.<name>] of %s (%s)", f.key, l.cfg.Path, l.cfg.knowledgeChoices())
			}
		}
		return
	}
	if _, ok := l.res.Knowledge[k.name]; !ok {
		p.at("knowledge", "knowledge = %q is not a knowledge base of %s: %s", k.name, l.cfg.Path, l.cfg.knowledgeChoices())
	}
	if _, err := filter.FromValue(k.filters.V); err != nil {
		p.at("knowledge_filters", "knowledge_filters: %v: give a table of exact matches (knowledge_filters = { user_id = \"jordan\" }) or a list of expressions (knowledge_filters = [{ op = \"EQ\", key = \"user_id\", value = \"jordan\" }])", err)
	}
}

// knowledgeSettings returns the knowledge base and filters of checked
// fields (a nil interface without a knowledge base).
func (l *loader) knowledgeSettings(k knowledgeFields) (agent.Knowledge, filter.Filters) {
	kb, ok := l.res.Knowledge[k.name]
	if k.name == "" || !ok || kb == nil {
		return nil, filter.Filters{}
	}
	f, _ := filter.FromValue(k.filters.V)
	return kb, f
}

// OpenKnowledge opens the storage and the knowledge bases, and nothing
// else (no models, MCP servers or registry sources): what ingesting from
// the command line needs. Close the Resources when done.
func (c *Config) OpenKnowledge(ctx context.Context) (*Resources, error) {
	r := &Resources{Knowledge: map[string]*knowledge.Knowledge{}, KnowledgeTables: map[string]string{}, cfg: c}
	store, err := c.openStore(ctx)
	if err != nil {
		return nil, err
	}
	r.Store = store
	if err := c.buildOutbound(r); err != nil {
		r.Close()
		return nil, err
	}
	if err := c.buildKnowledge(ctx, r); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// KnowledgeBases lists the knowledge bases by name.
func (r *Resources) KnowledgeBases() []*knowledge.Knowledge {
	out := make([]*knowledge.Knowledge, 0, len(r.Knowledge))
	for _, name := range sortedKeys(r.Knowledge) {
		out = append(out, r.Knowledge[name])
	}
	return out
}
