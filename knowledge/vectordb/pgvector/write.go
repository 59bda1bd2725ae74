package pgvector

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// record is a document ready to store.
type record struct {
	id, name, content, contentID, contentHash, meta string
	usage                                           *string
	embedding                                       []float32
}

// prepare embeds docs and builds their records outside any transaction.
func (s *Store) prepare(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) ([]record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.cfg.Embedder != nil {
		if err := vectordb.EmbedDocuments(ctx, s.cfg.Embedder, docs); err != nil {
			return nil, err
		}
	}
	recs := make([]record, len(docs))
	for i, d := range docs {
		if s.cfg.Embedder != nil && len(d.Embedding) != s.cfg.Embedder.Dimensions() {
			return nil, fmt.Errorf("vectordb: document %q has %d dimensions, the store's embedder %d", d.Name, len(d.Embedding), s.cfg.Embedder.Dimensions())
		}
		meta := make(map[string]any, len(d.MetaData)+len(filters))
		maps.Copy(meta, d.MetaData)
		maps.Copy(meta, filters)
		metaJSON, err := metajson.Encode(meta)
		if err != nil {
			return nil, fmt.Errorf("pgvector: metadata of document %q is not JSON: %w", d.Name, err)
		}
		r := record{
			id:          vectordb.RecordID(d, contentHash),
			name:        d.Name,
			content:     vectordb.CleanContent(d.Content),
			contentID:   d.ContentID,
			contentHash: contentHash,
			meta:        metaJSON,
			embedding:   d.Embedding,
		}
		if d.Usage != nil {
			u, err := metajson.Encode(d.Usage)
			if err != nil {
				return nil, err
			}
			r.usage = &u
		}
		recs[i] = r
	}
	return recs, nil
}

// vectorText writes v as pgvector's text form, or as an array literal for
// a real[] column.
func vectorText(v []float32, vector bool) *string {
	if v == nil {
		return nil
	}
	var b strings.Builder
	open, close := "{", "}"
	if vector {
		open, close = "[", "]"
	}
	b.WriteString(open)
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteString(close)
	s := b.String()
	return &s
}

// Insert implements vectordb.DB. It adds nothing when any record id is
// taken.
func (s *Store) Insert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	recs, err := s.prepare(ctx, contentHash, docs, filters)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.insert(ctx, tx, recs) })
	if err != nil {
		return s.writeErr("insert", err)
	}
	return nil
}

// Upsert implements vectordb.DB: agno's PgVector upsert, the records
// stored under contentHash deleted and docs written, a doc whose record
// id is stored already replacing that record.
func (s *Store) Upsert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	recs, err := s.prepare(ctx, contentHash, docs, filters)
	if err != nil {
		return err
	}
	// Of documents with one record id the last one wins.
	last := map[string]int{}
	for i, r := range recs {
		last[r.id] = i
	}
	var kept []record
	var ids []string
	for i, r := range recs {
		if last[r.id] == i {
			kept = append(kept, r)
			ids = append(ids, r.id)
		}
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM `+s.tbl+` WHERE content_hash = $1 OR id = ANY($2)`, contentHash, ids); err != nil {
			return err
		}
		return s.insert(ctx, tx, kept)
	})
	if err != nil {
		return s.writeErr("upsert", err)
	}
	return nil
}

// insert writes recs in one statement, in order.
func (s *Store) insert(ctx context.Context, tx pgx.Tx, recs []record) error {
	if len(recs) == 0 {
		return nil
	}
	vector := s.VectorAvailable()
	cols := make([][]*string, 8)
	for i := range cols {
		cols[i] = make([]*string, len(recs))
	}
	for i, r := range recs {
		for j, v := range []string{r.id, r.name, r.content, r.meta, r.contentID, r.contentHash} {
			cols[j][i] = &v
		}
		cols[6][i] = r.usage
		cols[7][i] = vectorText(r.embedding, vector)
	}
	emb := "emb::real[]"
	if vector {
		emb = "emb::" + s.ext + ".vector"
	}
	_, err := tx.Exec(ctx, `INSERT INTO `+s.tbl+`
			(id, name, content, meta_data, content_id, content_hash, usage, embedding, created_at, updated_at)
		SELECT id, name, content, meta::jsonb, content_id, content_hash, usage::jsonb, `+emb+`, $9, $9
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
			WITH ORDINALITY AS r(id, name, content, meta, content_id, content_hash, usage, emb, ord)
		ORDER BY ord`,
		cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], time.Now().Unix())
	if isCode(err, "23505") {
		return fmt.Errorf("%w: %v (content hash %s)", vectordb.ErrDuplicate, detail(err), recs[0].contentHash)
	}
	return err
}

// exists runs an EXISTS query; a missing table holds nothing.
func (s *Store) exists(ctx context.Context, where string, arg any) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+s.tbl+` WHERE `+where+`)`, arg).Scan(&ok)
	if noTable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pgvector: %w", err)
	}
	return ok, nil
}

// ContentHashExists implements vectordb.DB.
func (s *Store) ContentHashExists(ctx context.Context, contentHash string) (bool, error) {
	return s.exists(ctx, `content_hash = $1`, contentHash)
}

// IDExists implements vectordb.DB.
func (s *Store) IDExists(ctx context.Context, id string) (bool, error) {
	return s.exists(ctx, `id = $1`, id)
}

// NameExists implements vectordb.DB.
func (s *Store) NameExists(ctx context.Context, name string) (bool, error) {
	return s.exists(ctx, `name = $1`, name)
}

// deleteWhere deletes the records where cond holds ("$?" parameters); a
// missing table holds nothing to delete.
func (s *Store) deleteWhere(ctx context.Context, cond string, args ...any) (bool, error) {
	q := `DELETE FROM ` + s.tbl + ` AS c`
	if cond != "" {
		q += ` WHERE ` + number(cond, 1)
	}
	tag, err := s.pool.Exec(ctx, q, args...)
	if noTable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pgvector: delete: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}

// Delete implements vectordb.DB: it removes every record.
func (s *Store) Delete(ctx context.Context) (bool, error) { return s.deleteWhere(ctx, "") }

// DeleteByID implements vectordb.DB.
func (s *Store) DeleteByID(ctx context.Context, id string) (bool, error) {
	return s.deleteWhere(ctx, `c.id = $?`, id)
}

// DeleteByName implements vectordb.DB.
func (s *Store) DeleteByName(ctx context.Context, name string) (bool, error) {
	return s.deleteWhere(ctx, `c.name = $?`, name)
}

// DeleteByContentID implements vectordb.DB.
func (s *Store) DeleteByContentID(ctx context.Context, contentID string) (bool, error) {
	return s.deleteWhere(ctx, `c.content_id = $?`, contentID)
}

// DeleteByMetadata implements vectordb.DB: it removes the records whose
// metadata contains metadata, as a dict filter matches them. Empty
// metadata deletes nothing.
func (s *Store) DeleteByMetadata(ctx context.Context, metadata map[string]any) (bool, error) {
	if len(metadata) == 0 {
		return false, nil
	}
	f := filter.Dict(metadata)
	c := compileFilters("c.meta_data", f)
	if c.Exact {
		return s.deleteWhere(ctx, c.SQL, c.Args...)
	}
	// The SQL part selects candidates; filter.Match decides.
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		q := `SELECT c.id, c.meta_data::text FROM ` + s.tbl + ` AS c`
		if c.SQL != "" {
			q += ` WHERE ` + number(c.SQL, 1)
		}
		rows, err := tx.Query(ctx, q+` FOR UPDATE`, c.Args...)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id, meta string
			if err := rows.Scan(&id, &meta); err != nil {
				rows.Close()
				return err
			}
			m, err := decodeMeta(meta)
			if err != nil {
				rows.Close()
				return err
			}
			if filter.Match(m, f) {
				ids = append(ids, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM `+s.tbl+` WHERE id = ANY($1)`, ids)
		n = tag.RowsAffected()
		return err
	})
	if noTable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pgvector: delete by metadata: %w", err)
	}
	return n > 0, nil
}

// UpdateMetadata implements vectordb.DB: each key of metadata is set on
// every record of contentID (jsonb ||, a shallow merge as dict.update).
func (s *Store) UpdateMetadata(ctx context.Context, contentID string, metadata map[string]any) error {
	if len(metadata) == 0 {
		return ctx.Err()
	}
	patch, err := metajson.Encode(metadata)
	if err != nil {
		return fmt.Errorf("pgvector: metadata is not JSON: %w", err)
	}
	_, err = s.pool.Exec(ctx, `UPDATE `+s.tbl+` SET meta_data = meta_data || $1::text::jsonb, updated_at = $2 WHERE content_id = $3`,
		patch, time.Now().Unix(), contentID)
	if err != nil && !noTable(err) {
		return fmt.Errorf("pgvector: update metadata of %s: %w", contentID, err)
	}
	return nil
}
