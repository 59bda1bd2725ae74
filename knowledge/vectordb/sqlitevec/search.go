package sqlitevec

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/internal/sqlsearch"
)

// hit is a ranked record, by seq.
type hit = sqlsearch.Hit[int64]

// Search implements vectordb.DB. Vector search is exact (every stored
// vector is compared); scores are agno's normalised similarities. Keyword
// search ranks by FTS5's BM25 the records holding any of the query's
// words. Hybrid fuses the two rankings, each cut at max(4*limit, 50), by
// reciprocal rank fusion. Filters apply inside each ranking, so every
// result matches them.
func (s *Store) Search(ctx context.Context, q vectordb.Query) ([]*document.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := sqlsearch.Prepare(ctx, q, s.cfg.SearchType, s.cfg.Embedder, func(typ vectordb.SearchType) error {
		if !slices.Contains(s.SupportedSearchTypes(), typ) {
			return fmt.Errorf("%w: %q on %s: supported are %v", vectordb.ErrUnsupportedSearch, typ, s.info.Name, s.SupportedSearchTypes())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cond, args, release := where(q.Filters)
	defer release()
	var docs []*document.Document
	err = s.read(ctx, func(tx *sql.Tx) error {
		hits, err := sqlsearch.Rankings[int64]{
			Vector:  func(qvec []float32, n int) ([]hit, error) { return s.vectorHits(ctx, tx, qvec, cond, args, n) },
			Keyword: func(text string, n int) ([]hit, error) { return s.keywordHits(ctx, tx, text, cond, args, n) },
			ID:      func(seq int64) string { return strconv.FormatInt(seq, 10) },
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
		return nil, fmt.Errorf("sqlitevec: search: %w", err)
	}
	return docs, nil
}

// vectorHits ranks the records with a vector of qvec's length by
// distance to it, best first, ties in insertion order.
func (s *Store) vectorHits(ctx context.Context, tx *sql.Tx, qvec []float32, cond string, condArgs []any, n int) ([]hit, error) {
	qb := encodeVector(qvec)
	var dist string
	var args []any
	switch s.cfg.Distance {
	case vectordb.L2:
		dist, args = "vec_distance_l2(v.embedding, ?)", []any{qb}
	case vectordb.MaxInnerProduct:
		// The negated inner product, from the l2 distance and the norms.
		dist, args = "-(v.sqnorm + ? - pow(vec_distance_l2(v.embedding, ?), 2)) / 2", []any{sqNorm(qvec), qb}
	default:
		// A zero vector has no direction: sqlite-vec answers NULL, agno's
		// normalisation counts it as orthogonal.
		dist, args = "IFNULL(vec_distance_cosine(v.embedding, ?), 1.0)", []any{qb}
	}
	from := s.t.vec + " AS v"
	w := "v.dims = ?"
	args = append(args, len(qvec))
	if cond != "" {
		// The filter first, over the covering index of meta_data, then
		// the vectors of the records that pass: CROSS JOIN keeps that
		// order, which SQLite would otherwise turn around to scan every
		// vector (more than twice as slow at 100k chunks, 1 in 10 passing).
		from = s.t.main + " AS c CROSS JOIN " + s.t.vec + " AS v ON v.seq = c.seq"
		w += " AND " + cond
		args = append(args, condArgs...)
	}
	args = append(args, n)
	rows, err := tx.QueryContext(ctx, "SELECT v.seq, "+dist+" AS d FROM "+from+" WHERE "+w+" ORDER BY d, v.seq LIMIT ?", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		var d float64
		if err := rows.Scan(&h.Key, &d); err != nil {
			return nil, err
		}
		switch s.cfg.Distance {
		case vectordb.MaxInnerProduct:
			h.Score = vectordb.NormalizeScore(-d, vectordb.MaxInnerProduct)
		default:
			h.Score = vectordb.NormalizeScore(d, s.cfg.Distance)
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// ftsQuery is an FTS5 query for records holding any word of text, or ""
// when text has no words. Stop words are left out unless the text has
// nothing else: BM25 gives them next to no weight, but every record
// holding one would be scored.
func ftsQuery(text string) string {
	terms := slices.Compact(slices.Sorted(slices.Values(textutil.Tokens(text))))
	if content := slices.DeleteFunc(slices.Clone(terms), textutil.IsStopWord); len(content) > 0 {
		terms = content
	}
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	return strings.Join(terms, " OR ")
}

// keywordHits ranks the records holding any word of text by BM25.
func (s *Store) keywordHits(ctx context.Context, tx *sql.Tx, text, cond string, condArgs []any, n int) ([]hit, error) {
	match := ftsQuery(text)
	if match == "" {
		return nil, nil
	}
	// FTS5's auxiliary functions want the table's own name, not an alias.
	f := s.t.fts
	from := f
	w := f + " MATCH ?"
	args := []any{match}
	if cond != "" {
		from += " JOIN " + s.t.main + " AS c ON c.seq = " + f + ".rowid"
		w += " AND " + cond
		args = append(args, condArgs...)
	}
	args = append(args, n)
	rows, err := tx.QueryContext(ctx, "SELECT "+f+".rowid, bm25("+f+") AS r FROM "+from+" WHERE "+w+" ORDER BY r, "+f+".rowid LIMIT ?", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []hit
	for rows.Next() {
		var h hit
		var r float64
		if err := rows.Scan(&h.Key, &r); err != nil {
			return nil, err
		}
		h.Score = -r // bm25() is lower for better matches
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// load reads the records of hits, in their order, as documents; withScore
// puts each hit's score in the metadata.
func (s *Store) load(ctx context.Context, tx *sql.Tx, hits []hit, withScore bool) ([]*document.Document, error) {
	found := make(map[int64]*document.Document, len(hits))
	const batch = 500
	for start := 0; start < len(hits); start += batch {
		part := hits[start:min(start+batch, len(hits))]
		args := make([]any, len(part))
		for i, h := range part {
			args[i] = h.Key
		}
		rows, err := tx.QueryContext(ctx, `SELECT c.seq, c.id, c.name, c.content, c.meta_data, c.content_id, c.usage, v.embedding
			FROM `+s.t.main+` AS c LEFT JOIN `+s.t.vec+` AS v ON v.seq = c.seq
			WHERE c.seq IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var seq int64
			var meta string
			var usage *string
			var vec []byte
			d := &document.Document{}
			if err := rows.Scan(&seq, &d.ID, &d.Name, &d.Content, &meta, &d.ContentID, &usage, &vec); err != nil {
				rows.Close()
				return nil, err
			}
			if d.MetaData, err = decodeMeta(meta); err != nil {
				rows.Close()
				return nil, err
			}
			if vec != nil {
				if d.Embedding, err = decodeVector(vec); err != nil {
					rows.Close()
					return nil, err
				}
			}
			if d.Usage, err = sqlsearch.Usage(d.ID, usage); err != nil {
				rows.Close()
				return nil, err
			}
			found[seq] = d
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return sqlsearch.InOrder(hits, found, withScore), nil
}
