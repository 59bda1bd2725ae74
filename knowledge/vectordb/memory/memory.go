// Package memory is a vectordb.DB in process memory: brute-force vector
// search, BM25 keyword search over an inverted index, and hybrid search by
// reciprocal rank fusion of the two. It suits tests, small knowledge bases
// and single-process use; its contents are lost when the process ends.
package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Name is the store's default name, as agno names a VectorDb after its
// class.
const Name = "MemoryVectorDb"

// BM25 parameters (Lucene's defaults).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Config configures a Store.
type Config struct {
	// ID defaults to vectordb.DefaultID(Name).
	ID string
	// Name defaults to "MemoryVectorDb".
	Name        string
	Description string
	// Embedder embeds documents and queries; it is required unless
	// SearchType is keyword.
	Embedder embedder.Embedder
	// SearchType is the default search type; zero means vector, as
	// agno's PgVector.
	SearchType vectordb.SearchType
	// Distance is the vector metric; zero means cosine.
	Distance vectordb.Distance
	// SimilarityThreshold, when set, drops vector and hybrid results whose
	// similarity_score is below it. It must be within [0, 1].
	SimilarityThreshold *float64
	// RRFK is the hybrid fusion constant; zero means vectordb.DefaultRRFK.
	RRFK int
}

// Store is an in-memory vector store. It starts out not existing; Create
// it (a Knowledge does) before writing.
type Store struct {
	cfg  Config
	info vectordb.Info

	mu      sync.RWMutex
	exists  bool
	seq     int64
	records map[string]*record
	// postings maps a term to the records holding it and its count there.
	postings map[string]map[string]int
	totalLen int
}

type record struct {
	seq         int64
	id          string
	name        string
	content     string
	contentID   string
	contentHash string
	meta        map[string]any
	embedding   []float32
	norm        float64
	usage       *embedder.Usage
	terms       map[string]int
	length      int
}

var _ vectordb.DB = (*Store)(nil)

// New validates cfg and returns an empty Store.
func New(cfg Config) (*Store, error) {
	cfg.Name = cmp.Or(cfg.Name, Name)
	cfg.ID = cmp.Or(cfg.ID, vectordb.DefaultID(cfg.Name))
	cfg.SearchType = cmp.Or(cfg.SearchType, vectordb.SearchVector)
	cfg.Distance = cmp.Or(cfg.Distance, vectordb.Cosine)
	if _, err := vectordb.ParseSearchType(string(cfg.SearchType)); err != nil {
		return nil, err
	}
	switch cfg.Distance {
	case vectordb.Cosine, vectordb.L2, vectordb.MaxInnerProduct:
	default:
		return nil, fmt.Errorf("%w: distance %q: use cosine, l2 or max_inner_product", vectordb.ErrInvalidConfig, cfg.Distance)
	}
	if err := vectordb.ValidateThreshold(cfg.SimilarityThreshold); err != nil {
		return nil, err
	}
	if cfg.Embedder == nil && cfg.SearchType != vectordb.SearchKeyword {
		return nil, fmt.Errorf("%w: %s search needs an embedder: set Embedder, or SearchType keyword", vectordb.ErrInvalidConfig, cfg.SearchType)
	}
	return &Store{
		cfg:      cfg,
		info:     vectordb.Info{ID: cfg.ID, Name: cfg.Name, Description: cfg.Description},
		records:  map[string]*record{},
		postings: map[string]map[string]int{},
	}, nil
}

// Info implements vectordb.DB.
func (s *Store) Info() vectordb.Info { return s.info }

// Create implements vectordb.DB.
func (s *Store) Create(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	s.exists = true
	s.mu.Unlock()
	return nil
}

// Exists implements vectordb.DB.
func (s *Store) Exists(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.exists, nil
}

// Drop implements vectordb.DB.
func (s *Store) Drop(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exists = false
	s.clear()
	return nil
}

func (s *Store) clear() {
	s.records = map[string]*record{}
	s.postings = map[string]map[string]int{}
	s.totalLen = 0
}

// UpsertAvailable implements vectordb.DB.
func (s *Store) UpsertAvailable() bool { return true }

// SupportedSearchTypes implements vectordb.DB. Without an embedder only
// keyword search is available.
func (s *Store) SupportedSearchTypes() []vectordb.SearchType {
	if s.cfg.Embedder == nil {
		return []vectordb.SearchType{vectordb.SearchKeyword}
	}
	return []vectordb.SearchType{vectordb.SearchVector, vectordb.SearchKeyword, vectordb.SearchHybrid}
}

// Insert implements vectordb.DB. It adds nothing when any record id is
// taken.
func (s *Store) Insert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	recs, err := s.prepare(ctx, contentHash, docs, filters)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists {
		return fmt.Errorf("%w: %s: call Create first", vectordb.ErrNotExist, s.info.Name)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if _, taken := s.records[r.id]; taken || seen[r.id] {
			return fmt.Errorf("%w: id %s (document %q, content hash %s)", vectordb.ErrDuplicate, r.id, r.name, contentHash)
		}
		seen[r.id] = true
	}
	for _, r := range recs {
		s.put(r)
	}
	return nil
}

// Upsert implements vectordb.DB.
func (s *Store) Upsert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	recs, err := s.prepare(ctx, contentHash, docs, filters)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists {
		return fmt.Errorf("%w: %s: call Create first", vectordb.ErrNotExist, s.info.Name)
	}
	for id, r := range s.records {
		if r.contentHash == contentHash {
			s.remove(id)
		}
	}
	for _, r := range recs {
		if _, taken := s.records[r.id]; taken {
			s.remove(r.id)
		}
		s.put(r)
	}
	return nil
}

// prepare embeds docs and builds their records outside the lock.
func (s *Store) prepare(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) ([]*record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.cfg.Embedder != nil {
		if err := vectordb.EmbedDocuments(ctx, s.cfg.Embedder, docs); err != nil {
			return nil, err
		}
	}
	recs := make([]*record, len(docs))
	for i, d := range docs {
		if s.cfg.Embedder != nil && len(d.Embedding) != s.cfg.Embedder.Dimensions() {
			return nil, fmt.Errorf("vectordb: document %q has %d dimensions, the store's embedder %d", d.Name, len(d.Embedding), s.cfg.Embedder.Dimensions())
		}
		meta := deepClone(d.MetaData)
		for k, v := range filters {
			meta[k] = cloneValue(v)
		}
		content := vectordb.CleanContent(d.Content)
		r := &record{
			id:          vectordb.RecordID(d, contentHash),
			name:        d.Name,
			content:     content,
			contentID:   d.ContentID,
			contentHash: contentHash,
			meta:        meta,
			embedding:   slices.Clone(d.Embedding),
			terms:       map[string]int{},
		}
		if d.Usage != nil {
			u := *d.Usage
			r.usage = &u
		}
		for _, x := range r.embedding {
			r.norm += float64(x) * float64(x)
		}
		r.norm = math.Sqrt(r.norm)
		for _, t := range textutil.Tokens(content) {
			r.terms[t]++
			r.length++
		}
		recs[i] = r
	}
	return recs, nil
}

func (s *Store) put(r *record) {
	s.seq++
	r.seq = s.seq
	s.records[r.id] = r
	for t, n := range r.terms {
		p := s.postings[t]
		if p == nil {
			p = map[string]int{}
			s.postings[t] = p
		}
		p[r.id] = n
	}
	s.totalLen += r.length
}

func (s *Store) remove(id string) bool {
	r, ok := s.records[id]
	if !ok {
		return false
	}
	delete(s.records, id)
	for t := range r.terms {
		if p := s.postings[t]; p != nil {
			delete(p, id)
			if len(p) == 0 {
				delete(s.postings, t)
			}
		}
	}
	s.totalLen -= r.length
	return true
}

// Search implements vectordb.DB.
func (s *Store) Search(ctx context.Context, q vectordb.Query) ([]*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	typ := cmp.Or(q.Type, s.cfg.SearchType)
	if !slices.Contains(s.SupportedSearchTypes(), typ) {
		return nil, fmt.Errorf("%w: %q on %s: supported are %v", vectordb.ErrUnsupportedSearch, typ, s.info.Name, s.SupportedSearchTypes())
	}
	limit := q.Limit
	if limit <= 0 {
		limit = vectordb.DefaultLimit
	}
	var qvec []float32
	if typ != vectordb.SearchKeyword {
		vecs, _, err := s.cfg.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("vectordb: embedding the query: %w", err)
		}
		if len(vecs) != 1 {
			return nil, fmt.Errorf("vectordb: embedder returned %d vectors for the query", len(vecs))
		}
		qvec = vecs[0]
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	threshold := s.cfg.SimilarityThreshold
	var hits []hit
	switch typ {
	case vectordb.SearchVector:
		hits = s.vectorHits(qvec, q.Filters)
		if threshold != nil {
			hits = slices.DeleteFunc(hits, func(h hit) bool { return h.score < *threshold })
		}
	case vectordb.SearchKeyword:
		hits = s.keywordHits(q.Text, q.Filters)
	case vectordb.SearchHybrid:
		depth := max(4*limit, 50) // candidates each ranking contributes
		// Vector candidates with no similarity at all carry no signal;
		// RRF would still rank them, above nothing but by position.
		vector := slices.DeleteFunc(s.vectorHits(qvec, q.Filters), func(h hit) bool { return h.score <= 0 })
		keyword := s.keywordHits(q.Text, q.Filters)
		fused := vectordb.FuseRRF(s.cfg.RRFK, ids(vector, depth), ids(keyword, depth))
		hits = make([]hit, 0, len(fused))
		for _, f := range fused {
			if threshold == nil || f.Score >= *threshold {
				hits = append(hits, hit{rec: s.records[f.ID], score: f.Score})
			}
		}
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]*document.Document, len(hits))
	for i, h := range hits {
		out[i] = h.rec.document()
		if typ != vectordb.SearchKeyword {
			out[i].MetaData[vectordb.ScoreKey] = h.score
		}
	}
	return out, nil
}

type hit struct {
	rec   *record
	score float64
}

// rank sorts hits best first, older records first on ties.
func rank(hits []hit) []hit {
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.rec.seq, b.rec.seq)
	})
	return hits
}

func ids(hits []hit, n int) []string {
	out := make([]string, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.rec.id)
	}
	return out
}

func (s *Store) vectorHits(qvec []float32, f filter.Filters) []hit {
	var qnorm float64
	for _, x := range qvec {
		qnorm += float64(x) * float64(x)
	}
	qnorm = math.Sqrt(qnorm)
	hits := make([]hit, 0, len(s.records))
	for _, r := range s.records {
		if !filter.Match(r.meta, f) || len(r.embedding) != len(qvec) {
			continue
		}
		var dot, l2 float64
		for i, x := range qvec {
			y := float64(r.embedding[i])
			dot += float64(x) * y
			d := float64(x) - y
			l2 += d * d
		}
		var score float64
		switch s.cfg.Distance {
		case vectordb.L2:
			score = vectordb.NormalizeScore(math.Sqrt(l2), vectordb.L2)
		case vectordb.MaxInnerProduct:
			score = vectordb.NormalizeScore(dot, vectordb.MaxInnerProduct)
		default:
			distance := 1.0 // a zero vector is orthogonal to everything
			if qnorm > 0 && r.norm > 0 {
				distance = 1 - dot/(qnorm*r.norm)
			}
			score = vectordb.NormalizeScore(distance, vectordb.Cosine)
		}
		hits = append(hits, hit{rec: r, score: score})
	}
	return rank(hits)
}

// keywordHits scores records holding at least one query term by BM25.
func (s *Store) keywordHits(query string, f filter.Filters) []hit {
	terms := slices.Compact(slices.Sorted(slices.Values(textutil.Tokens(query))))
	n := float64(len(s.records))
	if n == 0 || len(terms) == 0 {
		return nil
	}
	avg := float64(s.totalLen) / n
	if avg == 0 {
		avg = 1
	}
	scores := map[string]float64{}
	for _, t := range terms {
		p := s.postings[t]
		if len(p) == 0 {
			continue
		}
		df := float64(len(p))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for id, tf := range p {
			r := s.records[id]
			ftf := float64(tf)
			scores[id] += idf * ftf * (bm25K1 + 1) / (ftf + bm25K1*(1-bm25B+bm25B*float64(r.length)/avg))
		}
	}
	hits := make([]hit, 0, len(scores))
	for id, score := range scores {
		r := s.records[id]
		if filter.Match(r.meta, f) {
			hits = append(hits, hit{rec: r, score: score})
		}
	}
	return rank(hits)
}

func (r *record) document() *document.Document {
	d := &document.Document{
		ID:        r.id,
		Name:      r.name,
		Content:   r.content,
		MetaData:  deepClone(r.meta),
		Embedding: slices.Clone(r.embedding),
		ContentID: r.contentID,
	}
	if r.usage != nil {
		u := *r.usage
		d.Usage = &u
	}
	return d
}

// ContentHashExists implements vectordb.DB.
func (s *Store) ContentHashExists(ctx context.Context, contentHash string) (bool, error) {
	return s.any(ctx, func(r *record) bool { return r.contentHash == contentHash })
}

// IDExists implements vectordb.DB.
func (s *Store) IDExists(ctx context.Context, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.records[id]
	return ok, nil
}

// NameExists implements vectordb.DB.
func (s *Store) NameExists(ctx context.Context, name string) (bool, error) {
	return s.any(ctx, func(r *record) bool { return r.name == name })
}

func (s *Store) any(ctx context.Context, pred func(*record) bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, r := range s.records {
		if pred(r) {
			return true, nil
		}
	}
	return false, nil
}

// Delete implements vectordb.DB.
func (s *Store) Delete(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := len(s.records) > 0
	s.clear()
	return removed, nil
}

// DeleteByID implements vectordb.DB.
func (s *Store) DeleteByID(ctx context.Context, id string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.remove(id), nil
}

// DeleteByName implements vectordb.DB.
func (s *Store) DeleteByName(ctx context.Context, name string) (bool, error) {
	return s.deleteWhere(ctx, func(r *record) bool { return r.name == name })
}

// DeleteByMetadata implements vectordb.DB.
func (s *Store) DeleteByMetadata(ctx context.Context, metadata map[string]any) (bool, error) {
	if len(metadata) == 0 {
		return false, nil // an empty filter would match, and delete, everything
	}
	return s.deleteWhere(ctx, func(r *record) bool { return filter.Match(r.meta, filter.Dict(metadata)) })
}

// DeleteByContentID implements vectordb.DB.
func (s *Store) DeleteByContentID(ctx context.Context, contentID string) (bool, error) {
	return s.deleteWhere(ctx, func(r *record) bool { return r.contentID == contentID })
}

func (s *Store) deleteWhere(ctx context.Context, pred func(*record) bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := false
	for id, r := range s.records {
		if pred(r) {
			removed = s.remove(id) || removed
		}
	}
	return removed, nil
}

// UpdateMetadata implements vectordb.DB.
func (s *Store) UpdateMetadata(ctx context.Context, contentID string, metadata map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.records {
		if r.contentID == contentID {
			// A new map, so documents returned earlier keep their copy.
			meta := maps.Clone(r.meta)
			for k, v := range metadata {
				meta[k] = cloneValue(v)
			}
			r.meta = meta
		}
	}
	return nil
}

// deepClone copies nested maps and slices so results can be changed
// without touching the store.
func deepClone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return deepClone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
