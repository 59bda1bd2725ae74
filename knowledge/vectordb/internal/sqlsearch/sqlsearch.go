// Package sqlsearch is the part of a search the SQL vector stores
// (pgvector, sqlitevec) share: the search type, limit and query vector,
// the rankings a type runs and how hybrid search fuses them, and the
// documents in rank order. Each store ranks in its own SQL.
package sqlsearch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// Hit is a ranked record, by the store's key for it.
type Hit[K comparable] struct {
	Key   K
	Score float64
}

// Plan is a search about to run.
type Plan struct {
	Type  vectordb.SearchType
	Limit int
	// Vector is the query's embedding (nil for a keyword search).
	Vector []float32
}

// Prepare resolves q against the store's default search type (check
// refuses a type the store cannot run) and limit, and embeds the query
// when its type needs the vector.
func Prepare(ctx context.Context, q vectordb.Query, dflt vectordb.SearchType, e embedder.Embedder, check func(vectordb.SearchType) error) (Plan, error) {
	p := Plan{Type: cmp.Or(q.Type, dflt), Limit: q.Limit}
	if err := check(p.Type); err != nil {
		return p, err
	}
	if p.Limit <= 0 {
		p.Limit = vectordb.DefaultLimit
	}
	if p.Type == vectordb.SearchKeyword {
		return p, nil
	}
	vecs, _, err := e.Embed(ctx, []string{q.Text})
	if err != nil {
		return p, fmt.Errorf("vectordb: embedding the query: %w", err)
	}
	if len(vecs) != 1 {
		return p, fmt.Errorf("vectordb: embedder returned %d vectors for the query", len(vecs))
	}
	p.Vector = vecs[0]
	return p, nil
}

// Rankings are a store's two rankings of the records that match the
// query's filters, each best first, at most n.
type Rankings[K comparable] struct {
	Vector  func(qvec []float32, n int) ([]Hit[K], error)
	Keyword func(text string, n int) ([]Hit[K], error)
	// ID names a record to the fusion.
	ID func(K) string
	// RRFK is reciprocal rank fusion's k; Threshold, when set, the least
	// score a vector or hybrid hit keeps.
	RRFK      int
	Threshold *float64
}

// Rank runs what p's type needs. Vector hits come best first, so those
// under the threshold are dropped after the limit, leaving the best of
// those above it. Hybrid fuses the two rankings, each cut at
// max(4*limit, 50), by reciprocal rank fusion; vector candidates with no
// similarity at all carry no signal and are left out.
func (r Rankings[K]) Rank(p Plan, text string) ([]Hit[K], error) {
	switch p.Type {
	case vectordb.SearchVector:
		hits, err := r.Vector(p.Vector, p.Limit)
		if err != nil || r.Threshold == nil {
			return hits, err
		}
		return slices.DeleteFunc(hits, func(h Hit[K]) bool { return h.Score < *r.Threshold }), nil
	case vectordb.SearchKeyword:
		return r.Keyword(text, p.Limit)
	}
	depth := max(4*p.Limit, 50)
	vector, err := r.Vector(p.Vector, depth)
	if err != nil {
		return nil, err
	}
	vector = slices.DeleteFunc(vector, func(h Hit[K]) bool { return h.Score <= 0 })
	keyword, err := r.Keyword(text, depth)
	if err != nil {
		return nil, err
	}
	byID := map[string]K{}
	ids := func(hits []Hit[K]) []string {
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = r.ID(h.Key)
			byID[out[i]] = h.Key
		}
		return out
	}
	var hits []Hit[K]
	for _, f := range vectordb.FuseRRF(r.RRFK, ids(vector), ids(keyword)) {
		if r.Threshold == nil || f.Score >= *r.Threshold {
			hits = append(hits, Hit[K]{Key: byID[f.ID], Score: f.Score})
		}
	}
	return hits[:min(p.Limit, len(hits))], nil
}

// InOrder returns the documents of hits in their order (found holds them
// by key; a hit without one is left out), each hit's score in its
// metadata when withScore.
func InOrder[K comparable](hits []Hit[K], found map[K]*document.Document, withScore bool) []*document.Document {
	out := make([]*document.Document, 0, len(hits))
	for _, h := range hits {
		d, ok := found[h.Key]
		if !ok {
			continue
		}
		if withScore {
			d.MetaData[vectordb.ScoreKey] = h.Score
		}
		out = append(out, d)
	}
	return out
}

// Usage decodes a record's stored usage (nil for none).
func Usage(id string, stored *string) (*embedder.Usage, error) {
	if stored == nil {
		return nil, nil
	}
	var u embedder.Usage
	if err := json.Unmarshal([]byte(*stored), &u); err != nil {
		return nil, fmt.Errorf("stored usage of %s: %w", id, err)
	}
	return &u, nil
}
