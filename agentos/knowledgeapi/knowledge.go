// Package knowledgeapi is the Knowledge route group of AgentOS: agno's
// /knowledge routes over the knowledge bases the OS serves (package
// knowledge) and their uploads, ingested in the background and kept in
// the OS store until done. It builds on the core
// (agentos/internal/httpapi) and on Host, what it needs of the OS;
// agentos serves its rows.
package knowledgeapi

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/storage"
)

// Config are the OS's settings the group uses.
type Config struct {
	// DBID is the OS database's id, the contents DB of every knowledge
	// base ("agno-db" when empty).
	DBID string
	// Uploads bound an upload request and say where its file waits.
	Uploads httpapi.FormLimits
}

// Host is what the group needs of the OS.
type Host interface {
	// Knowledge are the knowledge bases to serve, in agno's order: the
	// agents', then the teams', then the OS's own; the group serves the
	// first of each id and none without a contents DB. A reload changes
	// them.
	Knowledge() []*knowledge.Knowledge
	// Store keeps the accepted uploads until they are ingested (nil: they
	// live in memory only) and knows the instances alive.
	Store() storage.Store
	// Instance is this process's run-engine instance, the owner of the
	// uploads it accepts.
	Instance() string
	Logger() *slog.Logger
}

// Group is the knowledge route group: New, then Routes, Start and Stop.
type Group struct {
	host Host
	cfg  Config
	jobs *jobs
}

// New is the group serving h's knowledge bases.
func New(h Host, cfg Config) *Group {
	g := &Group{host: h, cfg: cfg}
	g.jobs = newJobs(g)
	return g
}

// knowledgePair is the pattern serving content by id and sources:
// ServeMux cannot tell GET /knowledge/content/{content_id} from GET
// /knowledge/{knowledge_id}/sources (/knowledge/content/sources is
// both); FastAPI tries them in that order, and so does register.
const knowledgePair = "/knowledge/{knowledge_id}/{child}"

// base is a knowledge base AgentOS serves (agno's knowledge instance),
// with the identity agno gives it.
type base struct {
	k *knowledge.Knowledge
	// id is agno's _generate_knowledge_id(name, db_id, table).
	id, name, dbID, table string
}

// defaultKnowledgeDB is the contents DB id when AgentOS has no DBID.
const defaultKnowledgeDB = "agno-db"

// bases are agno's knowledge instances: the first of two with the same
// id wins, and one without a contents DB is not served (agno's
// _auto_discover_knowledge_instances).
func (g *Group) bases() []*base {
	var out []*base
	seen := map[string]bool{}
	for _, k := range g.host.Knowledge() {
		if k == nil || k.ContentsDB() == nil {
			continue
		}
		kb := describe(k, g.cfg.DBID)
		if seen[kb.id] {
			continue
		}
		seen[kb.id] = true
		out = append(out, kb)
	}
	return out
}

// AsKnowledge returns the knowledge base behind an agent's or team's
// Knowledge when it is a *knowledge.Knowledge (custom retrievers have no
// contents to serve).
func AsKnowledge(k agent.Knowledge) *knowledge.Knowledge {
	kb, _ := k.(*knowledge.Knowledge)
	return kb
}

// Describe is the id and name agno gives k served with the OS database
// dbID (the registry lists them).
func Describe(k *knowledge.Knowledge, dbID string) (id, name string) {
	kb := describe(k, dbID)
	return kb.id, kb.name
}

// describe gives a knowledge base agno's identity: its contents DB is
// the OS database (dbID) and table the contents store's.
func describe(k *knowledge.Knowledge, dbID string) *base {
	dbID = cmp.Or(dbID, defaultKnowledgeDB)
	table := contents.DefaultTable
	if t, ok := k.ContentsDB().(interface{ Table() string }); ok && t.Table() != "" {
		table = t.Table()
	}
	name := cmp.Or(k.Name(), "knowledge_"+dbID)
	return &base{k: k, id: knowledgeID(name, dbID, table), name: name, dbID: dbID, table: table}
}

// knowledgeID is agno's _generate_knowledge_id: sha256 of
// "db_id:table:name" written as a UUID.
func knowledgeID(name, dbID, table string) string {
	sum := sha256.Sum256([]byte(dbID + ":" + table + ":" + name))
	h := hex.EncodeToString(sum[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// pyList renders ids as Python prints a list of strings.
func pyList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "'" + s + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// baseFor is agno's get_knowledge_instance: knowledge_id first, then
// db_id; with one knowledge base neither is needed.
func (g *Group) baseFor(dbID, kbID string) (*base, error) {
	kbs := g.bases()
	ids := func(list []*base) string {
		out := make([]string, len(list))
		for i, kb := range list {
			out[i] = kb.id
		}
		return pyList(out)
	}
	switch {
	case len(kbs) == 1 && kbID == "" && dbID == "":
		return kbs[0], nil
	case kbID != "":
		for _, kb := range kbs {
			if kb.id == kbID {
				return kb, nil
			}
		}
		return nil, httpapi.ErrStatus(http.StatusNotFound, "Knowledge base '%s' not found", kbID)
	case dbID != "":
		var matches []*base
		for _, kb := range kbs {
			if kb.dbID == dbID {
				matches = append(matches, kb)
			}
		}
		switch len(matches) {
		case 0:
			return nil, httpapi.ErrStatus(http.StatusNotFound, "Knowledge instance with db_id '%s' not found", dbID)
		case 1:
			return matches[0], nil
		}
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Multiple knowledge instances found for db_id '%s'. Please specify knowledge_id parameter. Available IDs: %s", dbID, ids(matches))
	case len(kbs) == 0:
		// agno answers this with the multiple-bases message and an empty
		// list; say what is actually missing.
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "No knowledge base is configured: add a [knowledge.<name>] table to config.toml (and knowledge = \"<name>\" to an agent), or pass Knowledge to agentos.Config")
	}
	return nil, httpapi.ErrStatus(http.StatusBadRequest, "db_id or knowledge_id query parameter is required when using multiple knowledge bases. Available IDs: %s", ids(kbs))
}

func (g *Group) baseFromQuery(r *http.Request) (*base, error) {
	q := r.URL.Query()
	return g.baseFor(q.Get("db_id"), q.Get("knowledge_id"))
}

// ---- content responses ----

// contentResponse is agno's ContentResponseSchema.from_dict: size as a
// string ("0" when unknown), linked_to and access_count None.
func contentResponse(c knowledge.Content) map[string]any {
	size := "0"
	if c.Size != 0 {
		size = strconv.FormatInt(c.Size, 10)
	}
	return map[string]any{
		"id": c.ID, "name": c.Name, "description": c.Description, "type": nullable(c.FileType), "size": size,
		"linked_to": nil, "metadata": nullableMap(c.Metadata), "access_count": nil,
		"status": string(cmp.Or(c.Status, contents.StatusProcessing)), "status_message": c.StatusMessage,
		"created_at": httpapi.IsoSeconds(c.CreatedAt), "updated_at": httpapi.IsoSeconds(cmp.Or(c.UpdatedAt, c.CreatedAt)),
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullableMap(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// acceptedResponse is the 202 of an upload: agno's ContentResponseSchema
// with id, name, description, metadata and status processing.
func acceptedResponse(id, name, description string, metadata map[string]any) map[string]any {
	return map[string]any{
		"id": id, "name": nullable(name), "description": nullable(description), "type": nil, "size": nil, "linked_to": nil,
		"metadata": nullableMap(metadata), "access_count": nil, "status": string(contents.StatusProcessing),
		"status_message": nil, "created_at": nil, "updated_at": nil,
	}
}

// ---- upload ----

// uploadFields are the form fields of POST /knowledge/content.
var uploadFields = []string{"name", "description", "url", "metadata", "text_content", "reader_id", "chunker", "chunk_size", "chunk_overlap"}

// handleUploadContent is POST /knowledge/content: a file, text or a URL
// is accepted (202, status processing) and ingested in the background.
// The job is kept in storage until it ends, so a restart picks it up.
func (g *Group) handleUploadContent(w http.ResponseWriter, r *http.Request) {
	f, err := httpapi.ReadForm(w, r, g.cfg.Uploads, httpapi.RawFiles, uploadFields...)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	defer f.Release()
	opts, ok := readIngestOptions(w, f)
	if !ok {
		return
	}
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	job, err := newIngestJob(f, opts)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	job.KnowledgeID = kb.id
	if err := job.checkReader(); err != nil {
		httpapi.Fail(w, err)
		return
	}
	if err := g.jobs.submit(r.Context(), kb, job); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusAccepted, acceptedResponse(job.ContentID, job.Name, job.Description, job.metadata))
}

// ingestOptions are the reader and chunking fields of an upload.
type ingestOptions struct {
	readerID, chunker string
	size, overlap     int
}

// readIngestOptions reads reader_id, chunker, chunk_size and
// chunk_overlap; a bad integer is FastAPI's 422.
func readIngestOptions(w http.ResponseWriter, f *httpapi.Form) (ingestOptions, bool) {
	opts := ingestOptions{readerID: strings.TrimSpace(f.Str("reader_id")), chunker: strings.TrimSpace(f.Str("chunker"))}
	for name, dst := range map[string]*int{"chunk_size": &opts.size, "chunk_overlap": &opts.overlap} {
		v := strings.TrimSpace(f.Str(name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			httpapi.FieldError(w, []string{"body", name}, "Input should be a valid integer, unable to parse string as an integer", "int_parsing")
			return opts, false
		}
		if n < 0 {
			httpapi.FieldError(w, []string{"body", name}, "Input should be greater than or equal to 0", "greater_than_equal")
			return opts, false
		}
		*dst = n
	}
	return opts, true
}

// parseFormMetadata is agno's metadata form field: a JSON object, or any
// other text kept as {"value": text}.
func parseFormMetadata(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	if !json.Valid([]byte(s)) {
		return map[string]any{"value": s}, nil
	}
	md, err := knowledge.DecodeMetadata([]byte(s))
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Invalid metadata: give a JSON object such as {\"source\": \"handbook\"}")
	}
	return md, nil
}

// parseFormURL is agno's url form field: a URL, or a JSON string or
// one-element array holding one.
func parseFormURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s, nil
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case []any:
		if len(x) == 1 {
			if u, ok := x[0].(string); ok {
				return u, nil
			}
		}
		return "", httpapi.ErrStatus(http.StatusBadRequest, "url: send one URL per upload (a string, or a JSON array with one URL); got %d entries", len(x))
	}
	return s, nil
}

// handleUploadRemoteContent is POST /knowledge/remote-content. Remote
// sources (S3, GCS, SharePoint, GitHub) are not configured here, so every
// config_id is unknown, as agno answers for one it does not have.
func (g *Group) handleUploadRemoteContent(w http.ResponseWriter, r *http.Request) {
	f, err := httpapi.ReadForm(w, r, g.cfg.Uploads, nil, "config_id", "path", "repo", "source_params", "name", "description", "metadata", "reader_id", "chunker", "chunk_size", "chunk_overlap")
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	defer f.Release()
	for _, k := range []string{"config_id", "path"} {
		if !f.Has(k) {
			httpapi.FieldError(w, []string{"body", k}, "Field required", "missing")
			return
		}
	}
	if _, ok := readIngestOptions(w, f); !ok {
		return
	}
	if _, err := g.baseFromQuery(r); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("Unknown content source: %s. Check /knowledge/config for available sources.", f.Str("config_id")))
}

// ---- listing and single contents ----

var contentSorts = []string{"created_at", "updated_at", "name", "size", "status", "access_count"}

// handleListContent is GET /knowledge/content.
func (g *Group) handleListContent(w http.ResponseWriter, r *http.Request) {
	p := httpapi.NewQuery(w, r)
	limit := p.Int("limit", 20, 1, httpapi.MaxPageLimit)
	page := p.Int("page", 1, 0, 0)
	sortBy := p.Enum("sort_by", "created_at", contentSorts...)
	order := p.SortOrder()
	if p.Bad {
		return
	}
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	start := time.Now()
	list, total, err := kb.k.GetContent(r.Context(), contents.ListOptions{Limit: limit, Page: page, SortBy: sortBy, SortOrder: string(order)})
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	data := make([]map[string]any, len(list))
	for i, c := range list {
		data[i] = contentResponse(c)
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, page, limit, total, time.Since(start)))
}

func (g *Group) content(w http.ResponseWriter, r *http.Request) (*base, knowledge.Content, bool) {
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return nil, knowledge.Content{}, false
	}
	id := r.PathValue("content_id")
	c, err := kb.k.GetContentByID(r.Context(), id)
	if errors.Is(err, contents.ErrNotFound) {
		httpapi.WriteError(w, http.StatusNotFound, "Content not found: "+id)
		return nil, knowledge.Content{}, false
	}
	if err != nil {
		httpapi.Fail(w, err)
		return nil, knowledge.Content{}, false
	}
	return kb, c, true
}

// handleGetContent is GET /knowledge/content/{content_id}.
func (g *Group) handleGetContent(w http.ResponseWriter, r *http.Request) {
	if _, c, ok := g.content(w, r); ok {
		httpapi.WriteJSON(w, http.StatusOK, contentResponse(c))
	}
}

// handleContentStatus is GET /knowledge/content/{content_id}/status: a
// content that does not exist is reported failed, as agno does.
func (g *Group) handleContentStatus(w http.ResponseWriter, r *http.Request) {
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	id := r.PathValue("content_id")
	status, msg, err := kb.k.GetContentStatus(r.Context(), id)
	if errors.Is(err, contents.ErrNotFound) {
		httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": string(contents.StatusFailed), "status_message": "Content not found"})
		return
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": id, "status": string(contents.ParseStatus(string(status))), "status_message": msg})
}

// handleUpdateContent is PATCH /knowledge/content/{content_id}: form
// name, description, metadata (JSON) and reader_id.
func (g *Group) handleUpdateContent(w http.ResponseWriter, r *http.Request) {
	f, err := httpapi.ReadForm(w, r, g.cfg.Uploads, nil, "name", "description", "metadata", "reader_id")
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	defer f.Release()
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	id := r.PathValue("content_id")
	var md map[string]any
	if s := f.Str("metadata"); strings.TrimSpace(s) != "" {
		if md, err = knowledge.DecodeMetadata([]byte(s)); err != nil {
			httpapi.WriteError(w, http.StatusBadRequest, "Invalid JSON format for metadata")
			return
		}
	}
	name, desc := strings.TrimSpace(f.Str("name")), strings.TrimSpace(f.Str("description"))
	if len([]rune(name)) > 255 || len([]rune(desc)) > 1000 {
		loc, limit := "name", 255
		if len([]rune(desc)) > 1000 {
			loc, limit = "description", 1000
		}
		httpapi.FieldError(w, []string{"body", loc}, fmt.Sprintf("String should have at most %d characters", limit), "string_too_long")
		return
	}
	if rid := strings.TrimSpace(f.Str("reader_id")); rid != "" {
		if _, ok := reader.ResolveKey(rid); !ok {
			httpapi.WriteError(w, http.StatusBadRequest, "Invalid reader_id: "+rid)
			return
		}
	}
	if _, err := kb.k.GetContentByID(r.Context(), id); errors.Is(err, contents.ErrNotFound) {
		httpapi.WriteError(w, http.StatusNotFound, "Content not found: "+id)
		return
	}
	// Blank name and description mean "unchanged", as agno's strip() test.
	patch := knowledge.Content{ID: id, Metadata: md}
	if name != "" {
		patch.Name = f.Str("name")
	}
	if desc != "" {
		patch.Description = f.Str("description")
	}
	row, err := kb.k.PatchContent(r.Context(), patch)
	if errors.Is(err, contents.ErrNotFound) {
		httpapi.WriteError(w, http.StatusNotFound, "Content not found: "+id)
		return
	}
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Error updating content: "+err.Error())
		return
	}
	c := knowledge.Content{ID: row.ID, Name: row.Name, Description: row.Description, Metadata: row.Metadata, FileType: row.Type,
		Status: row.Status, StatusMessage: row.StatusMessage, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
	if row.Size != nil {
		c.Size = *row.Size
	}
	httpapi.WriteJSON(w, http.StatusOK, contentResponse(c))
}

// handleDeleteContent is DELETE /knowledge/content/{content_id}: the
// content's chunks and row go, and its pending upload if any.
func (g *Group) handleDeleteContent(w http.ResponseWriter, r *http.Request) {
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	id := r.PathValue("content_id")
	g.jobs.forget(r.Context(), kb, id)
	if err := kb.k.RemoveContentByID(r.Context(), id); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"id": id})
}

// handleDeleteAllContent is DELETE /knowledge/content.
func (g *Group) handleDeleteAllContent(w http.ResponseWriter, r *http.Request) {
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	all, _, err := kb.k.GetContent(r.Context(), contents.ListOptions{})
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	for _, c := range all {
		g.jobs.forget(r.Context(), kb, c.ID)
	}
	if err := kb.k.RemoveAllContent(r.Context()); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, "success")
}

// ---- search ----

// handleSearchKnowledge is POST /knowledge/search: agno's
// VectorSearchRequestSchema in, PaginatedResponse[VectorSearchResult] out.
func (g *Group) handleSearchKnowledge(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var (
		query, dbID, kbID, searchType string
		vectorIDs                     []string
		maxResults                    int
		filters                       map[string]any
		meta                          struct {
			Limit *int `json:"limit"`
			Page  *int `json:"page"`
		}
	)
	b.Require("query", &query)
	b.Get("db_id", &dbID)
	b.Get("knowledge_id", &kbID)
	b.Get("vector_db_ids", &vectorIDs)
	b.Get("search_type", &searchType)
	if b.Get("max_results", &maxResults) && (maxResults < 1 || maxResults > 1000) {
		msg := "Input should be greater than or equal to 1"
		typ := "greater_than_equal"
		if maxResults > 1000 {
			msg, typ = "Input should be less than or equal to 1000", "less_than_equal"
		}
		b.Reject([]string{"max_results"}, msg, typ)
	}
	b.Get("filters", &filters)
	if raw, present := b.Fields["meta"]; present && string(raw) != "null" && !b.Bad {
		if err := json.Unmarshal(raw, &meta); err != nil {
			b.Reject([]string{"meta"}, "Input should be a valid dictionary or object to extract fields from", "model_attributes_type")
		}
	}
	limit, page := 20, 1
	if meta.Limit != nil {
		if limit = *meta.Limit; limit < 1 {
			b.Reject([]string{"meta", "limit"}, "Input should be greater than or equal to 1", "greater_than_equal")
		}
	}
	if meta.Page != nil {
		if page = *meta.Page; page < 1 {
			b.Reject([]string{"meta", "page"}, "Input should be greater than or equal to 1", "greater_than_equal")
		}
	}
	st, err := vectordb.ParseSearchType(searchType)
	if err != nil {
		b.Reject([]string{"search_type"}, "Input should be 'vector', 'keyword' or 'hybrid'", "enum")
	}
	if b.Bad {
		return
	}
	kb, err := g.baseFor(dbID, kbID)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if len(vectorIDs) > 0 {
		vdb := kb.k.VectorDB()
		if vdb == nil {
			httpapi.WriteError(w, http.StatusBadRequest, "Knowledge base has no vector database configured")
			return
		}
		if id := vdb.Info().ID; !slices.Contains(vectorIDs, id) {
			httpapi.WriteError(w, http.StatusBadRequest, fmt.Sprintf("None of the provided Vector DB IDs %s match the knowledge base Vector DB ID %s", pyList(vectorIDs), id))
			return
		}
	}
	docs, err := kb.k.Search(r.Context(), query, knowledge.SearchOptions{MaxResults: maxResults, Filters: filter.Filters{Dict: filters}, SearchType: st})
	if errors.Is(err, vectordb.ErrUnsupportedSearch) {
		httpapi.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	from := min((page-1)*limit, len(docs))
	if page-1 > len(docs)/limit { // (page-1)*limit could overflow
		from = len(docs)
	}
	pageDocs := docs[from:min(from+limit, len(docs))]
	data := make([]map[string]any, len(pageDocs))
	for i, d := range pageDocs {
		data[i] = searchResult(d)
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, page, limit, len(docs), time.Since(start)))
}

// searchResult is agno's VectorSearchResult.from_document.
func searchResult(d *document.Document) map[string]any {
	out := map[string]any{
		"id": d.ID, "content": d.Content, "name": nullable(d.Name), "meta_data": nullableMap(d.MetaData),
		"usage": nil, "reranking_score": nil, "content_id": nullable(d.ContentID), "content_origin": nullable(d.ContentOrigin), "size": nil,
	}
	if d.Usage != nil {
		out["usage"] = d.Usage
	}
	if d.RerankingScore != nil {
		out["reranking_score"] = *d.RerankingScore
	}
	if d.Size != 0 {
		out["size"] = d.Size
	}
	return out
}

// ---- config and sources ----

// knowledgeChunkers are agno's chunker descriptions (get_all_chunkers_info)
// for the strategies this port has.
var knowledgeChunkers = map[string]map[string]any{
	chunk.TypeDocument: {"key": chunk.TypeDocument, "name": chunk.TypeDocument,
		"description": "A chunking strategy that splits text based on document structure like paragraphs and sections",
		"metadata":    map[string]any{"chunk_size": chunk.DefaultSize, "chunk_overlap": 0}},
	chunk.TypeFixedSize: {"key": chunk.TypeFixedSize, "name": chunk.TypeFixedSize,
		"description": "Chunking strategy that splits text into fixed-size chunks with optional overlap",
		"metadata":    map[string]any{"chunk_size": chunk.DefaultSize, "chunk_overlap": 0}},
	chunk.TypeMarkdown: {"key": chunk.TypeMarkdown, "name": chunk.TypeMarkdown,
		"description": "A chunking strategy that splits markdown based on structure like headers, paragraphs and sections",
		"metadata":    map[string]any{"chunk_size": chunk.DefaultSize, "chunk_overlap": 0}},
	chunk.TypeRecursive: {"key": chunk.TypeRecursive, "name": chunk.TypeRecursive,
		"description": "Chunking strategy that recursively splits text into chunks by finding natural break points",
		"metadata":    map[string]any{"chunk_size": chunk.DefaultSize, "chunk_overlap": 0}},
	chunk.TypeRow: {"key": chunk.TypeRow, "name": chunk.TypeRow, "description": "RowChunking chunking strategy", "metadata": map[string]any{}},
}

// handleKnowledgeConfig is GET /knowledge/config: readers, the content
// types they take, chunkers, the valid filter keys and the vector store.
func (g *Group) handleKnowledgeConfig(w http.ResponseWriter, r *http.Request) {
	kb, err := g.baseFromQuery(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	// The registered readers (package reader), agno's READER_METADATA.
	readers := map[string]any{}
	for _, key := range reader.Names() {
		s, _ := reader.Lookup(key)
		readers[key] = map[string]any{"id": key, "name": s.Name, "description": s.Description, "chunkers": s.Chunkers}
	}
	filters, err := kb.k.ValidFilters(r.Context())
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if filters == nil {
		filters = []string{}
	}
	vdbs := []map[string]any{}
	if vdb := kb.k.VectorDB(); vdb != nil {
		info := vdb.Info()
		types := []string{}
		for _, t := range vdb.SupportedSearchTypes() {
			types = append(types, string(t))
		}
		vdbs = append(vdbs, map[string]any{"id": info.ID, "name": info.Name, "description": nullable(info.Description), "search_types": types})
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{
		"readers": readers, "readersForType": reader.ContentTypeReaders(), "chunkers": knowledgeChunkers,
		"filters": filters, "vector_dbs": vdbs, "remote_content_sources": nil,
	})
}

// handleListSources is GET /knowledge/{knowledge_id}/sources: no remote
// content sources are configured.
func (g *Group) handleListSources(w http.ResponseWriter, r *http.Request) {
	if _, err := g.baseFor(r.URL.Query().Get("db_id"), r.PathValue("knowledge_id")); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, []any{})
}

// handleListSourceFiles is GET /knowledge/{knowledge_id}/sources/{source_id}/files.
func (g *Group) handleListSourceFiles(w http.ResponseWriter, r *http.Request) {
	p := httpapi.NewQuery(w, r)
	p.Int("limit", 100, 1, 1000)
	p.Int("page", 1, 1, 0)
	if p.Bad {
		return
	}
	if _, err := g.baseFor(r.URL.Query().Get("db_id"), r.PathValue("knowledge_id")); err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteError(w, http.StatusNotFound, "Content source not found: "+r.PathValue("source_id"))
}

// ---- /config and the agents ----

// OSConfig is /config's "knowledge": agno's KnowledgeConfig with one
// dbs entry per contents DB (its tables) and every knowledge instance;
// nil when there are none.
func (g *Group) OSConfig() map[string]any {
	kbs := g.bases()
	if len(kbs) == 0 {
		return nil
	}
	var dbs []map[string]any
	tables := map[string][]string{}
	instances := make([]map[string]any, 0, len(kbs))
	for _, kb := range kbs {
		if _, ok := tables[kb.dbID]; !ok {
			dbs = append(dbs, map[string]any{"db_id": kb.dbID, "domain_config": map[string]any{"display_name": kb.dbID}})
		}
		if !slices.Contains(tables[kb.dbID], kb.table) {
			tables[kb.dbID] = append(tables[kb.dbID], kb.table)
		}
		inst := map[string]any{"id": kb.id, "name": kb.name, "db_id": kb.dbID, "table": kb.table}
		if d := kb.k.Description(); d != "" {
			inst["description"] = d
		}
		instances = append(instances, inst)
	}
	for _, d := range dbs {
		d["tables"] = tables[d["db_id"].(string)]
	}
	return map[string]any{"dbs": dbs, "knowledge_instances": instances}
}

// Routes are agno's /knowledge routes (os/routers/knowledge/knowledge.py,
// tag Knowledge).
func (g *Group) Routes() []httpapi.Route {
	kq := []httpapi.Param{{Name: "db_id", Type: "string", Desc: "Contents database of the knowledge base"},
		{Name: "knowledge_id", Type: "string", Desc: "Knowledge base (the id /config lists); needed with several"}}
	ingest := []httpapi.Param{{Name: "reader_id", Type: "string", Desc: "Reader to use (GET /knowledge/config lists them)"},
		{Name: "chunker", Type: "string", Desc: "Chunking strategy: " + strings.Join(chunk.Names(), ", ")},
		{Name: "chunk_size", Type: "integer"}, {Name: "chunk_overlap", Type: "integer"}}
	// The listing's limit and sort_order, documented as every listing's.
	limit := httpapi.Param{Name: "limit", Type: "integer", Desc: "Items per page", Default: 20, Min: 1, Max: httpapi.MaxPageLimit}
	order := httpapi.Param{Name: "sort_order", Type: "string", Desc: "Sort direction", Enum: []string{"asc", "desc"}}
	content := "ContentResponseSchema"
	return []httpapi.Route{
		{Pattern: "POST /knowledge/content", Handler: g.handleUploadContent, Access: httpapi.Needs("knowledge:write"), Tag: "Knowledge", Summary: "Upload content",
			Desc:  "A file, text or a URL, ingested in the background (read, chunked, embedded, stored); the job survives a restart. Uploads are bounded by max_upload_bytes and max_file_bytes.",
			Query: kq, Form: append([]httpapi.Param{{Name: "file", Type: "string", Desc: "The file (multipart)"}, {Name: "text_content", Type: "string"},
				{Name: "url", Type: "string", Desc: "A URL (or a JSON array with one)"}, {Name: "name", Type: "string"}, {Name: "description", Type: "string"},
				{Name: "metadata", Type: "string", Desc: "JSON object"}}, ingest...),
			Status: http.StatusAccepted, Result: content + " with status processing"},
		{Pattern: "POST /knowledge/remote-content", Handler: g.handleUploadRemoteContent, Access: httpapi.Needs("knowledge:write"), Tag: "Knowledge", Summary: "Upload remote content", Query: kq,
			Form: append([]httpapi.Param{{Name: "config_id", Type: "string", Required: true}, {Name: "path", Type: "string", Required: true},
				{Name: "name", Type: "string"}, {Name: "description", Type: "string"}, {Name: "metadata", Type: "string"}}, ingest...),
			Status: http.StatusAccepted, Result: content + "; 400 for a content source that is not configured"},
		{Pattern: "GET /knowledge/content", Handler: g.handleListContent, Access: httpapi.Needs("knowledge:read"), Tag: "Knowledge", Summary: "List contents",
			Query:  append([]httpapi.Param{limit, {Name: "page", Type: "integer", Default: 1}, {Name: "sort_by", Type: "string", Default: "created_at", Enum: contentSorts}, order}, kq...),
			Schema: "PaginatedResponse", Result: "PaginatedResponse[" + content + "]"},
		{Pattern: "DELETE /knowledge/content", Handler: g.handleDeleteAllContent, Access: httpapi.Needs("knowledge:delete"), Tag: "Knowledge", Summary: "Delete every content", Query: kq, Result: "\"success\""},
		{Pattern: "GET /knowledge/content/{content_id}", Handler: g.handleGetContent, Access: httpapi.Needs("knowledge:read"), Served: "GET " + knowledgePair, Tag: "Knowledge", Summary: "Get a content", Query: kq, Result: content},
		{Pattern: "PATCH /knowledge/content/{content_id}", Handler: g.handleUpdateContent, Access: httpapi.Needs("knowledge:write"), Tag: "Knowledge", Summary: "Update a content", Query: kq,
			Form: []httpapi.Param{{Name: "name", Type: "string"}, {Name: "description", Type: "string"}, {Name: "metadata", Type: "string", Desc: "JSON object"}, {Name: "reader_id", Type: "string"}}, Result: content},
		{Pattern: "DELETE /knowledge/content/{content_id}", Handler: g.handleDeleteContent, Access: httpapi.Needs("knowledge:delete"), Tag: "Knowledge", Summary: "Delete a content", Query: kq, Result: "{id}"},
		{Pattern: "GET /knowledge/content/{content_id}/status", Handler: g.handleContentStatus, Access: httpapi.Needs("knowledge:read"), Tag: "Knowledge", Summary: "Processing status of a content", Query: kq, Result: "{id, status, status_message}"},
		{Pattern: "POST /knowledge/search", Handler: g.handleSearchKnowledge, Access: httpapi.Needs("knowledge:read"), Tag: "Knowledge", Summary: "Search a knowledge base",
			JSON: []httpapi.Param{{Name: "query", Type: "string", Required: true}, {Name: "db_id", Type: "string"}, {Name: "knowledge_id", Type: "string"},
				{Name: "vector_db_ids", Type: "array"}, {Name: "search_type", Type: "string", Enum: []string{"vector", "keyword", "hybrid"}},
				{Name: "max_results", Type: "integer", Min: 1, Max: 1000}, {Name: "filters", Type: "object"}, {Name: "meta", Type: "object", Desc: "{limit, page}"}},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[VectorSearchResult]"},
		{Pattern: "GET /knowledge/config", Handler: g.handleKnowledgeConfig, Access: httpapi.Needs("knowledge:read"), Tag: "Knowledge", Summary: "Readers, chunkers, filters and vector stores", Query: kq,
			Result: "{readers, readersForType, chunkers, filters, vector_dbs, remote_content_sources}"},
		{Pattern: "GET /knowledge/{knowledge_id}/sources", Handler: g.handleListSources, Access: httpapi.Needs("knowledge:read"), Served: "GET " + knowledgePair, Tag: "Knowledge", Summary: "List remote content sources",
			Query: []httpapi.Param{kq[0]}, Result: "[RemoteContentSourceSchema]"},
		{Pattern: "GET /knowledge/{knowledge_id}/sources/{source_id}/files", Handler: g.handleListSourceFiles, Access: httpapi.Needs("knowledge:read"), Tag: "Knowledge", Summary: "List the files of a remote content source",
			Query: []httpapi.Param{{Name: "prefix", Type: "string"}, {Name: "limit", Type: "integer", Default: 100, Min: 1, Max: 1000},
				{Name: "page", Type: "integer", Default: 1, Min: 1}, {Name: "delimiter", Type: "string", Default: "/"}, kq[0]},
			Result: "SourceFilesResponseSchema"},
	}
}

// AgentInfo is AgentResponse's "knowledge" (agno's knowledge_info), with
// defaults left out as the rest of the response.
func (g *Group) AgentInfo(cfg agent.Config) map[string]any {
	if cfg.Knowledge == nil {
		return nil
	}
	out := map[string]any{}
	if k := AsKnowledge(cfg.Knowledge); k != nil && k.ContentsDB() != nil {
		kb := describe(k, g.cfg.DBID)
		out["db_id"], out["knowledge_table"] = kb.dbID, kb.table
	}
	if cfg.EnableAgenticKnowledgeFilters {
		out["enable_agentic_knowledge_filters"] = true
	}
	if !cfg.KnowledgeFilters.IsZero() {
		out["knowledge_filters"] = cfg.KnowledgeFilters
	}
	return out
}
