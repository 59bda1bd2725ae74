package pgvector

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// hit is a ranked record.
type hit struct {
	id    string
	score float64
}

// Search implements vectordb.DB. Keyword search ranks by ts_rank_cd the
// records whose tsvector holds any of the query's words; vector search
// orders by pgvector's distance (through the HNSW index when there is one
// and the filters are SQL); hybrid fuses the two rankings, each cut at
// max(4*limit, 50), by reciprocal rank fusion. The queries of one search
// read one snapshot.
func (s *Store) Search(ctx context.Context, q vectordb.Query) ([]*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	typ := cmp.Or(q.Type, s.cfg.SearchType)
	if _, err := vectordb.ParseSearchType(string(typ)); err != nil {
		return nil, err
	}
	if typ != vectordb.SearchKeyword && !slices.Contains(s.SupportedSearchTypes(), typ) {
		return nil, s.vectorError(typ)
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
	c := compileFilters("c.meta_data", q.Filters)
	threshold := s.cfg.SimilarityThreshold
	var docs []*document.Document
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var hits []hit
		var err error
		switch typ {
		case vectordb.SearchVector:
			if hits, err = s.vectorHits(ctx, tx, qvec, c, q.Filters, limit); err != nil {
				return err
			}
			// Hits come best first: dropping those under the threshold after
			// LIMIT leaves the best of those above it.
			if threshold != nil {
				hits = slices.DeleteFunc(hits, func(h hit) bool { return h.score < *threshold })
			}
		case vectordb.SearchKeyword:
			if hits, err = s.keywordHits(ctx, tx, q.Text, c, q.Filters, limit); err != nil {
				return err
			}
		case vectordb.SearchHybrid:
			depth := max(4*limit, 50)
			vector, err := s.vectorHits(ctx, tx, qvec, c, q.Filters, depth)
			if err != nil {
				return err
			}
			vector = slices.DeleteFunc(vector, func(h hit) bool { return h.score <= 0 })
			keyword, err := s.keywordHits(ctx, tx, q.Text, c, q.Filters, depth)
			if err != nil {
				return err
			}
			for _, f := range vectordb.FuseRRF(s.cfg.RRFK, ids(vector), ids(keyword)) {
				if threshold == nil || f.Score >= *threshold {
					hits = append(hits, hit{id: f.ID, score: f.Score})
				}
			}
			hits = hits[:min(limit, len(hits))]
		}
		docs, err = s.load(ctx, tx, hits, typ != vectordb.SearchKeyword)
		return err
	})
	if noTable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pgvector: search: %w", err)
	}
	return docs, nil
}

func ids(hits []hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.id
	}
	return out
}

// ranking is one ranked query: SELECT c.id, <score> AS d FROM <from>
// WHERE <where> ORDER BY <order>, with "$?" parameters.
type ranking struct {
	score, from, where cond
	// order orders by d; tiebreak is added when the query is paged.
	order, tiebreak string
	// toScore maps d to the hit's score.
	toScore func(d float64) float64
}

// rank runs r with the filter's SQL part and returns up to n hits that
// match f. When the SQL part is exact that is one query; otherwise pages
// of candidates, in rank order, pass through filter.Match until n match
// or the candidates run out.
func (s *Store) rank(ctx context.Context, tx pgx.Tx, r ranking, c cond, f filter.Filters, n int) ([]hit, error) {
	where := r.where
	if c.SQL != "" {
		where = seq(r.where, " AND ", c)
	}
	paged := !c.Exact
	cols := seq("SELECT c.id, ", r.score, " AS d")
	order := r.order
	if paged {
		cols = seq(cols, ", c.meta_data::text")
		order += ", " + r.tiebreak
	}
	base := seq(cols, " FROM ", r.from, " WHERE ", where, " ORDER BY "+order)
	batch := n
	if paged {
		batch = max(2*n, 100)
	}
	var out []hit
	for offset := 0; ; {
		q := seq(base, " LIMIT ", param(batch), " OFFSET ", param(offset))
		rows, err := tx.Query(ctx, number(q.SQL, 1), q.Args...)
		if err != nil {
			return nil, err
		}
		got := 0
		for rows.Next() {
			got++
			var h hit
			var d *float64
			var meta string
			dst := []any{&h.id, &d}
			if paged {
				dst = append(dst, &meta)
			}
			if err := rows.Scan(dst...); err != nil {
				rows.Close()
				return nil, err
			}
			if paged {
				m, err := decodeMeta(meta)
				if err != nil {
					rows.Close()
					return nil, err
				}
				if !filter.Match(m, f) {
					continue
				}
			}
			// A NULL distance (no direction to compare) scores as NaN: 0.
			h.score = r.toScore(math.NaN())
			if d != nil {
				h.score = r.toScore(*d)
			}
			out = append(out, h)
			if len(out) == n {
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if !paged || len(out) == n || got < batch {
			return out, nil
		}
		offset += batch
		batch = min(2*batch, 10_000)
	}
}

func (s *Store) vectorHits(ctx context.Context, tx pgx.Tx, qvec []float32, c cond, f filter.Filters, n int) ([]hit, error) {
	op := map[vectordb.Distance]string{vectordb.Cosine: "<=>", vectordb.L2: "<->", vectordb.MaxInnerProduct: "<#>"}[s.cfg.Distance]
	r := ranking{
		score:    seq("(c.embedding OPERATOR("+s.ext+"."+op+") ", param(*vectorText(qvec, true)), "::text::"+s.ext+".vector)"),
		from:     cond{SQL: s.tbl + " AS c"},
		where:    cond{SQL: "c.embedding IS NOT NULL"},
		order:    "d",
		tiebreak: "c.seq",
		toScore:  func(d float64) float64 { return vectordb.NormalizeScore(d, s.cfg.Distance) },
	}
	if s.cfg.Distance == vectordb.MaxInnerProduct {
		// <#> is the negated inner product.
		r.toScore = func(d float64) float64 { return vectordb.NormalizeScore(-d, vectordb.MaxInnerProduct) }
	}
	if s.cfg.Index == IndexHNSW {
		// HNSW returns at most ef_search rows (default 40, at most 1000).
		if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.ef_search', $1, true)`, strconv.Itoa(min(max(n, 40), 1000))); err != nil {
			return nil, err
		}
		// Filters drop rows after the index scan; from pgvector 0.8 the
		// scan goes on, in exact distance order, until enough pass.
		// Before 0.8 a filtered search can return fewer than n rows.
		if s.iterative && (c.SQL != "" || !c.Exact) {
			if _, err := tx.Exec(ctx, `SELECT set_config('hnsw.iterative_scan', 'strict_order', true)`); err != nil {
				return nil, err
			}
		}
	}
	return s.rank(ctx, tx, r, c, f, n)
}

// tsQuery is a to_tsquery input matching any word of text, or "" when
// text has no words. Words are runs of letters and digits, which
// to_tsquery reads as plain lexemes.
func tsQuery(text string) string {
	return strings.Join(slices.Compact(slices.Sorted(slices.Values(textutil.Tokens(text)))), " | ")
}

func (s *Store) keywordHits(ctx context.Context, tx pgx.Tx, text string, c cond, f filter.Filters, n int) ([]hit, error) {
	query := tsQuery(text)
	if query == "" {
		return nil, nil
	}
	r := ranking{
		score:    cond{SQL: "ts_rank_cd(c.fts, q)"},
		from:     seq(s.tbl+" AS c, to_tsquery('"+s.cfg.Language+"'::regconfig, ", param(query), ") AS q"),
		where:    cond{SQL: "c.fts @@ q"},
		order:    "d DESC",
		tiebreak: "c.seq",
		toScore:  func(d float64) float64 { return d },
	}
	return s.rank(ctx, tx, r, c, f, n)
}

// load reads the records of hits, in their order, as documents;
// withScore puts each hit's score in the metadata.
func (s *Store) load(ctx context.Context, tx pgx.Tx, hits []hit, withScore bool) ([]*document.Document, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT id, name, content, meta_data::text, content_id, usage::text, embedding::real[]
		FROM `+s.tbl+` WHERE id = ANY($1)`, ids(hits))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[string]*document.Document, len(hits))
	for rows.Next() {
		d := &document.Document{}
		var meta string
		var usage *string
		if err := rows.Scan(&d.ID, &d.Name, &d.Content, &meta, &d.ContentID, &usage, &d.Embedding); err != nil {
			return nil, err
		}
		if d.MetaData, err = decodeMeta(meta); err != nil {
			return nil, err
		}
		if usage != nil {
			var u embedder.Usage
			if err := json.Unmarshal([]byte(*usage), &u); err != nil {
				return nil, fmt.Errorf("stored usage of %s: %w", d.ID, err)
			}
			d.Usage = &u
		}
		found[d.ID] = d
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*document.Document, 0, len(hits))
	for _, h := range hits {
		d, ok := found[h.id]
		if !ok {
			continue
		}
		if withScore {
			d.MetaData[vectordb.ScoreKey] = h.score
		}
		out = append(out, d)
	}
	return out, nil
}

// decodeMeta reads stored metadata with Python's number types.
func decodeMeta(s string) (map[string]any, error) {
	m, err := metajson.Decode(s)
	if err != nil {
		return nil, fmt.Errorf("pgvector: stored metadata: %w", err)
	}
	return m, nil
}

// detail is a unique violation's detail ("Key (id)=(...) already
// exists."), or the error.
func detail(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Detail != "" {
		return pe.Detail
	}
	return err.Error()
}
