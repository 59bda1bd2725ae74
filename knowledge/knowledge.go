package knowledge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// DefaultMaxResults is agno's Knowledge.max_results default.
const DefaultMaxResults = 10

// Errors the Knowledge returns (wrapped).
var (
	// ErrNoSource is returned by Insert when the input names nothing to
	// ingest.
	ErrNoSource = errors.New("knowledge: nothing to insert")
	// ErrNoContentsDB is returned by content management calls on a
	// Knowledge without a contents DB.
	ErrNoContentsDB = errors.New("knowledge: no contents db")
	// ErrInvalidConfig is returned by New.
	ErrInvalidConfig = errors.New("knowledge: invalid config")
	// ErrFilters is returned when user filters in the list form meet
	// filters chosen by the agent, which agno cannot merge.
	ErrFilters = errors.New("knowledge: cannot merge filters")
)

// Config configures a Knowledge.
type Config struct {
	// Name identifies the knowledge base; contents rows are linked to it
	// and, with IsolateVectorSearch, so are searches.
	Name        string
	Description string
	// VectorDB stores and searches the chunks. Without one, inserts fail
	// and searches return nothing, as in agno.
	VectorDB vectordb.DB
	// ContentsDB tracks every content and its status; optional.
	ContentsDB contents.Store
	// MaxResults is the default number of search results; zero means
	// DefaultMaxResults.
	MaxResults int
	// Readers replace the registered reader of a key ("pdf", "csv",
	// "text", ...; see reader.KeyForType).
	Readers map[string]reader.Reader
	// ReaderOptions are the chunk settings of the registered readers the
	// Knowledge builds (those Readers does not replace); zero keeps each
	// reader's own chunking.
	ReaderOptions reader.Options
	// IsolateVectorSearch adds linked_to=Name to every search, so several
	// knowledge bases can share one vector store.
	IsolateVectorSearch bool
	// ContentHash configures how content ids are derived.
	ContentHash HashOptions
	// HTTPClient downloads URL contents and crawls websites with the
	// default readers; nil is reader.DefaultClient (a 10 s timeout,
	// internal addresses refused). A client of your own reaches whatever
	// it can: build it with netguard to keep callers off internal hosts.
	HTTPClient *http.Client
	// MaxDownloadBytes bounds one downloaded file or page; zero means
	// 10 MiB.
	MaxDownloadBytes int64
	Logger           *slog.Logger
}

// Knowledge is a knowledge base. It is safe for concurrent use.
type Knowledge struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	readers map[string]reader.Reader
}

// New validates cfg, creates the vector store's table when it is missing
// (as agno's __post_init__ does) and returns the Knowledge.
func New(ctx context.Context, cfg Config) (*Knowledge, error) {
	if cfg.MaxResults < 0 {
		return nil, fmt.Errorf("%w: max_results must not be negative, got %d", ErrInvalidConfig, cfg.MaxResults)
	}
	if cfg.MaxResults == 0 {
		cfg.MaxResults = DefaultMaxResults
	}
	if cfg.IsolateVectorSearch && cfg.Name == "" {
		return nil, fmt.Errorf("%w: isolate_vector_search needs a name to isolate by", ErrInvalidConfig)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if !cfg.ContentHash.includeMetadata() {
		log.Warn("knowledge: the content hash leaves metadata out (include_metadata=false), restoring the v2.6.12 hash: the same source inserted with different metadata gets one content id, one contents row, and the last metadata",
			"knowledge", cfg.Name)
	}
	if cfg.VectorDB != nil {
		ok, err := cfg.VectorDB.Exists(ctx)
		if err != nil {
			return nil, fmt.Errorf("knowledge: checking the vector store: %w", err)
		}
		if !ok {
			if err := cfg.VectorDB.Create(ctx); err != nil {
				return nil, fmt.Errorf("knowledge: creating the vector store: %w", err)
			}
		}
	}
	return &Knowledge{cfg: cfg, log: log, readers: maps.Clone(cfg.Readers)}, nil
}

// Name is the knowledge base's name.
func (k *Knowledge) Name() string { return k.cfg.Name }

// Description is the knowledge base's description.
func (k *Knowledge) Description() string { return k.cfg.Description }

// MaxResults is the default number of search results.
func (k *Knowledge) MaxResults() int { return k.cfg.MaxResults }

// VectorDB is the vector store, or nil.
func (k *Knowledge) VectorDB() vectordb.DB { return k.cfg.VectorDB }

// ContentsDB is the contents DB, or nil.
func (k *Knowledge) ContentsDB() contents.Store { return k.cfg.ContentsDB }

// HTTPClient is the client the knowledge base fetches URLs with; nil
// means reader.DefaultClient. Readers made for one insert (Input.Reader)
// should fetch with it, so they reach what the knowledge base may reach.
func (k *Knowledge) HTTPClient() *http.Client { return k.cfg.HTTPClient }

// reader returns the configured reader for key, building the registered
// one on first use.
func (k *Knowledge) reader(key string) (reader.Reader, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r, ok := k.readers[key]; ok {
		return r, nil
	}
	spec, ok := reader.Lookup(key)
	if !ok {
		return nil, fmt.Errorf("knowledge: no reader %q is registered: use one of %s", key, strings.Join(reader.Names(), ", "))
	}
	// Every reader gets the Knowledge's client, bounds and logger; those
	// that fetch nothing ignore them.
	r, err := spec.New(reader.FactoryOptions{Options: k.cfg.ReaderOptions, HTTPClient: k.cfg.HTTPClient, MaxBytes: k.cfg.MaxDownloadBytes, Logger: k.log})
	if err != nil {
		return nil, err
	}
	if k.readers == nil {
		k.readers = map[string]reader.Reader{}
	}
	k.readers[key] = r
	return r, nil
}

// readerForType returns the reader for a file type (reader.KeyForType).
func (k *Knowledge) readerForType(typ string) (reader.Reader, error) {
	key, err := reader.KeyForType(typ)
	if err != nil {
		return nil, err
	}
	return k.reader(key)
}

// SearchOptions tune one search.
type SearchOptions struct {
	// MaxResults is the number of results; zero means the Knowledge's.
	MaxResults int
	Filters    filter.Filters
	// SearchType overrides the vector store's default for this search.
	SearchType vectordb.SearchType
}

// Search returns the documents most relevant to query. Without a vector
// store it logs a warning and returns nothing, as agno does.
func (k *Knowledge) Search(ctx context.Context, query string, opts SearchOptions) ([]*document.Document, error) {
	if k.cfg.VectorDB == nil {
		k.log.Warn("knowledge: no vector db provided", "knowledge", k.cfg.Name)
		return nil, nil
	}
	f := opts.Filters
	if k.cfg.IsolateVectorSearch {
		f = isolate(f, k.cfg.Name)
	}
	limit := opts.MaxResults
	if limit <= 0 {
		limit = k.cfg.MaxResults
	}
	docs, err := k.cfg.VectorDB.Search(ctx, vectordb.Query{Text: query, Limit: limit, Filters: f, Type: opts.SearchType})
	if err != nil {
		return nil, fmt.Errorf("knowledge: searching %q: %w", k.cfg.Name, err)
	}
	return docs, nil
}

// isolate adds linked_to=name the way agno does: merged into a dict,
// prepended as EQ to a list.
func isolate(f filter.Filters, name string) filter.Filters {
	if f.IsList() {
		return filter.Filters{Exprs: append([]filter.Expr{filter.EQ("linked_to", name)}, f.Exprs...)}
	}
	d := maps.Clone(f.Dict)
	if d == nil {
		d = map[string]any{}
	}
	d["linked_to"] = name
	return filter.Filters{Dict: d}
}

// Retrieve is agno's KnowledgeProtocol.retrieve, what an agent's
// search_knowledge_base tool and add_knowledge_to_context call: Search
// with maxResults (zero for the Knowledge's default) and filters.
func (k *Knowledge) Retrieve(ctx context.Context, query string, maxResults int, filters filter.Filters) ([]*document.Document, error) {
	return k.Search(ctx, query, SearchOptions{MaxResults: maxResults, Filters: filters})
}

// agno's system-prompt text for knowledge search.
const searchInstructions = "You have a knowledge base you can search using the search_knowledge_base tool. " +
	"Search before answering questions—don't assume you know the answer. " +
	"For ambiguous questions, search first rather than asking for clarification."

const agenticFilterInstructions = `The knowledge base contains documents with these metadata filters: {valid_filters_str}.
Always use filters when the user query indicates specific metadata.

Examples:
1. If the user asks about a specific person like "Jordan Mitchell", you MUST use the search_knowledge_base tool with the filters parameter set to {'<valid key like user_id>': '<valid value based on the user query>'}.
2. If the user asks about a specific document type like "contracts", you MUST use the search_knowledge_base tool with the filters parameter set to {'document_type': 'contract'}.
3. If the user asks about a specific location like "documents from New York", you MUST use the search_knowledge_base tool with the filters parameter set to {'<valid key like location>': 'New York'}.

General Guidelines:
- Always analyze the user query to identify relevant metadata.
- Use the most specific filter(s) possible to narrow down results.
- If multiple filters are relevant, combine them in the filters parameter (e.g., {'name': 'Jordan Mitchell', 'document_type': 'contract'}).
- Ensure the filter keys match the valid metadata filters: {valid_filters_str}.

Make sure to pass the filters as [Dict[str: Any]] to the tool. FOLLOW THIS STRUCTURE STRICTLY.`

// BuildContext is agno's build_context, the system-prompt snippet:
// "<knowledge_base>\n" + the search instructions [+ "\n" + the agentic
// filter instructions listing the valid filter keys] + "\n</knowledge_base>".
// The filter instructions appear when enableAgenticFilters is set and the
// contents DB knows metadata keys; keys are listed sorted (agno lists a
// Python set, in no fixed order).
func (k *Knowledge) BuildContext(ctx context.Context, enableAgenticFilters bool) (string, error) {
	parts := []string{searchInstructions}
	if enableAgenticFilters {
		keys, err := k.ValidFilters(ctx)
		if err != nil {
			return "", err
		}
		if len(keys) > 0 {
			parts = append(parts, strings.ReplaceAll(agenticFilterInstructions, "{valid_filters_str}", strings.Join(keys, ", ")))
		}
	}
	return "<knowledge_base>\n" + strings.Join(parts, "\n") + "\n</knowledge_base>", nil
}

// ValidFilters is agno's get_valid_filters: the metadata keys of every
// content of this knowledge base, sorted. Without a contents DB it is
// empty.
func (k *Knowledge) ValidFilters(ctx context.Context) ([]string, error) {
	if k.cfg.ContentsDB == nil {
		return nil, nil
	}
	rows, _, err := k.cfg.ContentsDB.List(ctx, contents.ListOptions{LinkedTo: k.cfg.Name})
	if err != nil {
		return nil, fmt.Errorf("knowledge: listing contents: %w", err)
	}
	set := map[string]bool{}
	for _, r := range rows {
		for key := range r.Metadata {
			set[key] = true
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// ValidateFilters is agno's validate_filters: it returns the filters
// whose keys some content's metadata has (a key also passes when its part
// after the last "." does) and the keys it dropped. Dict filters lose
// every key when no metadata keys are known; a list is then returned
// unchanged. In a list, AND, OR and NOT are kept as they are.
func (k *Knowledge) ValidateFilters(ctx context.Context, f filter.Filters) (filter.Filters, []string, error) {
	keys, err := k.ValidFilters(ctx)
	if err != nil {
		return filter.Filters{}, nil, err
	}
	valid, invalid := validateFilters(f, keys)
	return valid, invalid, nil
}

func validateFilters(f filter.Filters, keys []string) (filter.Filters, []string) {
	if f.IsZero() {
		return filter.Filters{}, nil
	}
	known := func(key string) bool {
		base := key
		if i := strings.LastIndexByte(key, '.'); i >= 0 {
			base = key[i+1:]
		}
		return slices.Contains(keys, key) || slices.Contains(keys, base)
	}
	var invalid []string
	if !f.IsList() {
		if len(keys) == 0 {
			return filter.Filters{}, slices.Sorted(maps.Keys(f.Dict))
		}
		valid := map[string]any{}
		for _, key := range slices.Sorted(maps.Keys(f.Dict)) {
			if known(key) {
				valid[key] = f.Dict[key]
			} else {
				invalid = append(invalid, key)
			}
		}
		return filter.Filters{Dict: valid}, invalid
	}
	if len(keys) == 0 {
		return f, nil
	}
	valid := []filter.Expr{}
	for _, e := range f.Exprs {
		if kd, ok := e.(filter.Keyed); ok {
			if !known(kd.FilterKey()) {
				invalid = append(invalid, kd.FilterKey())
				continue
			}
		}
		valid = append(valid, e)
	}
	return filter.Filters{Exprs: valid}, invalid
}

// AgentFilter is one filter an agent passes to search_knowledge_base
// (agno's KnowledgeFilter).
type AgentFilter struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// AgentFiltersDict folds an agent's filters into a dict, later keys
// winning, as agno's search tool does.
func AgentFiltersDict(filters []AgentFilter) map[string]any {
	out := map[string]any{}
	for _, f := range filters {
		out[f.Key] = f.Value
	}
	return out
}

// MergeAgenticFilters is agno's get_agentic_or_user_search_filters: the
// agent's filters are used only when the user gave none; user dict
// filters win over the agent's; user list filters together with agent
// filters are an error wrapping ErrFilters.
func MergeAgenticFilters(agent map[string]any, user filter.Filters) (filter.Filters, error) {
	switch {
	case len(agent) == 0:
		return user, nil
	case user.IsZero():
		return filter.Dict(agent), nil
	case user.IsList():
		return filter.Filters{}, fmt.Errorf("%w: the agent chose dict filters but the user gave a filter expression list; give the user filters as a dict, or disable agentic filters", ErrFilters)
	}
	return user, nil
}

// DocumentsJSON renders documents as agno's search tool and
// add_knowledge_to_context do: json.dumps([doc.to_dict() ...], indent=2),
// non-ASCII escaped unless unicode is set (ensure_ascii=False).
func DocumentsJSON(docs []*document.Document, unicode bool) (string, error) {
	dicts := make([]document.Dict, len(docs))
	for i, d := range docs {
		dicts[i] = d.ToDict()
	}
	return pyjson.DumpsOpts(dicts, pyjson.Options{Indent: 2, NoEnsureASCII: unicode})
}

func now() int64 { return time.Now().Unix() }
