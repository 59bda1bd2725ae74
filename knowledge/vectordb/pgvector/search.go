package pgvector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlsearch"
)

// hit is a ranked record, by id.
type hit = sqlsearch.Hit[string]

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
	p, err := sqlsearch.Prepare(ctx, q, s.cfg.SearchType, s.cfg.Embedder, func(typ vectordb.SearchType) error {
		if _, err := vectordb.ParseSearchType(string(typ)); err != nil {
			return err
		}
		if typ != vectordb.SearchKeyword && !slices.Contains(s.SupportedSearchTypes(), typ) {
			return s.vectorError(typ)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c := compileFilters("c.meta_data", q.Filters)
	var docs []*document.Document
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		hits, err := sqlsearch.Rankings[string]{
			Vector:  func(qvec []float32, n int) ([]hit, error) { return s.vectorHits(ctx, tx, qvec, c, q.Filters, n) },
			Keyword: func(text string, n int) ([]hit, error) { return s.keywordHits(ctx, tx, text, c, q.Filters, n) },
			ID:      func(id string) string { return id },
			RRFK:    s.cfg.RRFK, Threshold: s.cfg.SimilarityThreshold,
		}.Rank(p, q.Text)
		if err != nil {
			return err
		}
		docs, err = s.load(ctx, tx, hits, p.Type != vectordb.SearchKeyword)
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
		out[i] = h.Key
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
			dst := []any{&h.Key, &d}
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
			h.Score = r.toScore(math.NaN())
			if d != nil {
				h.Score = r.toScore(*d)
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
		if d.Usage, err = sqlsearch.Usage(d.ID, usage); err != nil {
			return nil, err
		}
		found[d.ID] = d
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return sqlsearch.InOrder(hits, found, withScore), nil
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
