package sqlitevec

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/internal/metajson"
	"github.com/agno-go/agno/knowledge/vectordb"
)

// record is a document ready to store.
type record struct {
	id, name, content, contentID, contentHash, meta string
	usage                                           any // JSON text or nil
	vec                                             []byte
	dims                                            int
	sqnorm                                          float64
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
			return nil, fmt.Errorf("sqlitevec: metadata of document %q is not JSON: %w", d.Name, err)
		}
		r := record{
			id:          vectordb.RecordID(d, contentHash),
			name:        d.Name,
			content:     vectordb.CleanContent(d.Content),
			contentID:   d.ContentID,
			contentHash: contentHash,
			meta:        metaJSON,
		}
		if d.Usage != nil {
			u, err := metajson.Encode(d.Usage)
			if err != nil {
				return nil, err
			}
			r.usage = u
		}
		if len(d.Embedding) > 0 {
			r.vec, r.dims, r.sqnorm = encodeVector(d.Embedding), len(d.Embedding), sqNorm(d.Embedding)
		}
		recs[i] = r
	}
	return recs, nil
}

// writeBatch bounds the records one write transaction holds. The store
// shares its file with AgentOS's session store, whose writes wait while a
// transaction holds the lock; each batch is embedded just before it is
// written, so the lock is free meanwhile. (agno's PgVector also writes in
// batches, one transaction each.)
const writeBatch = 500

// Insert implements vectordb.DB. It adds nothing when any record id is
// taken: ids are checked first, and should one be taken by a concurrent
// write meanwhile, the batches already written are removed again.
func (s *Store) Insert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = vectordb.RecordID(d, contentHash)
	}
	taken, err := s.firstTaken(ctx, ids)
	if err != nil {
		return err
	}
	if taken >= 0 {
		return fmt.Errorf("%w: id %s (document %q, content hash %s)", vectordb.ErrDuplicate, ids[taken], docs[taken].Name, contentHash)
	}
	return s.writeBatches(ctx, contentHash, docs, filters, false)
}

// Upsert implements vectordb.DB: the records stored under contentHash
// are replaced by docs, and a doc whose record id is stored already
// replaces that record. The first batch's transaction deletes the old
// records; should a later batch fail, the new records written so far are
// removed again and the error returned.
func (s *Store) Upsert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// Of documents with one record id the last one wins.
	ids := make([]string, len(docs))
	last := map[string]int{}
	for i, d := range docs {
		ids[i] = vectordb.RecordID(d, contentHash)
		last[ids[i]] = i
	}
	kept := make([]*document.Document, 0, len(last))
	for i, d := range docs {
		if last[ids[i]] == i {
			kept = append(kept, d)
		}
	}
	return s.writeBatches(ctx, contentHash, kept, filters, true)
}

// writeBatches embeds and writes docs batch by batch; replace deletes the
// records under contentHash (in the first batch) and those with the
// batch's ids first. A failed batch removes what the earlier ones wrote.
func (s *Store) writeBatches(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any, replace bool) error {
	if len(docs) == 0 && !replace {
		return nil
	}
	op := "insert"
	if replace {
		op = "upsert"
	}
	var written []string
	for start := 0; start == 0 || start < len(docs); start += writeBatch {
		recs, err := s.prepare(ctx, contentHash, docs[start:min(start+writeBatch, len(docs))], filters)
		if err == nil {
			err = s.write(ctx, func(tx *sql.Tx) error {
				if replace {
					if err := s.replace(ctx, tx, contentHash, recs, start == 0); err != nil {
						return s.writeErr(op, err)
					}
				}
				return s.insert(ctx, tx, recs)
			})
		}
		if err != nil {
			if len(written) > 0 {
				// Leave nothing of this call behind, even when ctx ended.
				undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				defer cancel()
				if uerr := s.removeIDs(undo, written); uerr != nil {
					err = errors.Join(err, fmt.Errorf("sqlitevec: removing the %d records written before the failure: %w", len(written), uerr))
				}
			}
			return err
		}
		for _, r := range recs {
			written = append(written, r.id)
		}
	}
	return nil
}

// replace deletes, before an upsert batch is written, the records stored
// under contentHash (first batch only) and those with the batch's ids.
func (s *Store) replace(ctx context.Context, tx *sql.Tx, contentHash string, recs []record, first bool) error {
	if first {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+s.t.main+` WHERE content_hash = ?1`, contentHash); err != nil {
			return err
		}
	}
	del, err := tx.PrepareContext(ctx, `DELETE FROM `+s.t.main+` WHERE id = ?1`)
	if err != nil {
		return err
	}
	defer del.Close()
	for _, r := range recs {
		if _, err := del.ExecContext(ctx, r.id); err != nil {
			return err
		}
	}
	return nil
}

// firstTaken returns the index of the first id already stored, or -1.
func (s *Store) firstTaken(ctx context.Context, ids []string) (int, error) {
	taken := map[string]bool{}
	for start := 0; start < len(ids); start += writeBatch {
		part := ids[start:min(start+writeBatch, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT id FROM `+s.t.main+` WHERE id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
		if err != nil {
			return -1, s.writeErr("insert", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return -1, s.writeErr("insert", err)
			}
			taken[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return -1, s.writeErr("insert", err)
		}
	}
	for i, id := range ids {
		if taken[id] {
			return i, nil
		}
	}
	return -1, nil
}

// removeIDs deletes the records with ids, a batch per transaction.
func (s *Store) removeIDs(ctx context.Context, ids []string) error {
	for start := 0; start < len(ids); start += writeBatch {
		part := ids[start:min(start+writeBatch, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DELETE FROM `+s.t.main+` WHERE id IN (?`+strings.Repeat(", ?", len(part)-1)+`)`, args...)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insert(ctx context.Context, tx *sql.Tx, recs []record) error {
	if len(recs) == 0 {
		return nil
	}
	if err := s.checkDims(ctx, tx, recs); err != nil {
		return err
	}
	insMain, err := tx.PrepareContext(ctx, `INSERT INTO `+s.t.main+`
		(id, name, content, meta_data, content_id, content_hash, usage, created_at, updated_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING seq`)
	if err != nil {
		return s.writeErr("insert", err)
	}
	defer insMain.Close()
	insVec, err := tx.PrepareContext(ctx, `INSERT INTO `+s.t.vec+` (seq, dims, sqnorm, embedding) VALUES (?1, ?2, ?3, ?4)`)
	if err != nil {
		return s.writeErr("insert", err)
	}
	defer insVec.Close()
	now := time.Now().Unix()
	for _, r := range recs {
		var seq int64
		err := insMain.QueryRowContext(ctx, r.id, r.name, r.content, r.meta, r.contentID, r.contentHash, r.usage, now).Scan(&seq)
		if isUnique(err) {
			return fmt.Errorf("%w: id %s (document %q, content hash %s)", vectordb.ErrDuplicate, r.id, r.name, r.contentHash)
		}
		if err != nil {
			return s.writeErr("insert", err)
		}
		if r.vec == nil {
			continue
		}
		if _, err := insVec.ExecContext(ctx, seq, r.dims, r.sqnorm, r.vec); err != nil {
			return s.writeErr("insert", err)
		}
	}
	return nil
}

// checkDims refuses vectors of a length other than the table's.
func (s *Store) checkDims(ctx context.Context, tx *sql.Tx, recs []record) error {
	want := 0
	for _, r := range recs {
		if r.vec == nil {
			continue
		}
		if want == 0 {
			want = r.dims
		} else if r.dims != want {
			return fmt.Errorf("%w: documents of one insert have %d and %d dimensions", vectordb.ErrInvalidConfig, want, r.dims)
		}
	}
	if want == 0 {
		return nil
	}
	var have int
	err := tx.QueryRowContext(ctx, `SELECT dims FROM `+s.t.vec+` LIMIT 1`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return s.writeErr("insert", err)
	case have != want:
		return fmt.Errorf("%w: table %s holds %d-dimensional vectors and these have %d (another embedder?): use another Table, or Drop this one and insert again",
			vectordb.ErrInvalidConfig, s.t.name, have, want)
	}
	return nil
}

// exists runs an EXISTS query; a missing table holds nothing.
func (s *Store) exists(ctx context.Context, where string, arg any) (bool, error) {
	var ok bool
	err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+s.t.main+` WHERE `+where+`)`, arg).Scan(&ok)
	if noTable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlitevec: %w", err)
	}
	return ok, nil
}

// ContentHashExists implements vectordb.DB.
func (s *Store) ContentHashExists(ctx context.Context, contentHash string) (bool, error) {
	return s.exists(ctx, `content_hash = ?1`, contentHash)
}

// IDExists implements vectordb.DB.
func (s *Store) IDExists(ctx context.Context, id string) (bool, error) {
	return s.exists(ctx, `id = ?1`, id)
}

// NameExists implements vectordb.DB.
func (s *Store) NameExists(ctx context.Context, name string) (bool, error) {
	return s.exists(ctx, `name = ?1`, name)
}

// deleteWhere deletes the records where cond holds; a missing table
// holds nothing to delete.
func (s *Store) deleteWhere(ctx context.Context, cond string, args ...any) (bool, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		q := `DELETE FROM ` + s.t.main + ` AS c`
		if cond != "" {
			q += ` WHERE ` + cond
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if noTable(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlitevec: delete: %w", err)
	}
	return n > 0, nil
}

// Delete implements vectordb.DB: it removes every record.
func (s *Store) Delete(ctx context.Context) (bool, error) { return s.deleteWhere(ctx, "") }

// DeleteByID implements vectordb.DB.
func (s *Store) DeleteByID(ctx context.Context, id string) (bool, error) {
	return s.deleteWhere(ctx, `id = ?`, id)
}

// DeleteByName implements vectordb.DB.
func (s *Store) DeleteByName(ctx context.Context, name string) (bool, error) {
	return s.deleteWhere(ctx, `name = ?`, name)
}

// DeleteByContentID implements vectordb.DB.
func (s *Store) DeleteByContentID(ctx context.Context, contentID string) (bool, error) {
	return s.deleteWhere(ctx, `content_id = ?`, contentID)
}

// DeleteByMetadata implements vectordb.DB: it removes the records whose
// metadata contains metadata, as a dict filter matches them. Empty
// metadata deletes nothing.
func (s *Store) DeleteByMetadata(ctx context.Context, metadata map[string]any) (bool, error) {
	if len(metadata) == 0 {
		return false, nil
	}
	cond, args, release := where(filter.Dict(metadata))
	defer release()
	return s.deleteWhere(ctx, cond, args...)
}

// UpdateMetadata implements vectordb.DB: each key of metadata is set on
// every record of contentID (a shallow merge, as dict.update); the other
// keys keep their stored values, numbers as written.
func (s *Store) UpdateMetadata(ctx context.Context, contentID string, metadata map[string]any) error {
	if len(metadata) == 0 {
		return ctx.Err()
	}
	for k, v := range metadata {
		if _, err := metajson.Encode(v); err != nil {
			return fmt.Errorf("sqlitevec: metadata %q is not JSON: %w", k, err)
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT seq, meta_data FROM `+s.t.main+` WHERE content_id = ?1`, contentID)
		if err != nil {
			return err
		}
		type upd struct {
			seq  int64
			meta string
		}
		var todo []upd
		for rows.Next() {
			var u upd
			var stored string
			if err := rows.Scan(&u.seq, &stored); err != nil {
				rows.Close()
				return err
			}
			// Stored numbers stay json.Number, so they are written back
			// as they were.
			dec := json.NewDecoder(strings.NewReader(stored))
			dec.UseNumber()
			m := map[string]any{}
			if err := dec.Decode(&m); err != nil {
				rows.Close()
				return fmt.Errorf("stored metadata of record %d: %w", u.seq, err)
			}
			if m == nil {
				m = map[string]any{}
			}
			maps.Copy(m, metadata)
			if u.meta, err = metajson.Encode(m); err != nil {
				rows.Close()
				return err
			}
			todo = append(todo, u)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		now := time.Now().Unix()
		for _, u := range todo {
			if _, err := tx.ExecContext(ctx, `UPDATE `+s.t.main+` SET meta_data = ?1, updated_at = ?2 WHERE seq = ?3`, u.meta, now, u.seq); err != nil {
				return err
			}
		}
		return nil
	})
	if noTable(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlitevec: update metadata of %s: %w", contentID, err)
	}
	return nil
}
