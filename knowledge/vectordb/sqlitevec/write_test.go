package sqlitevec

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/vectordb"
)

func count(t *testing.T, s *Store, where string, args ...any) int {
	t.Helper()
	var n int
	q := `SELECT COUNT(*) FROM ` + s.t.main
	if where != "" {
		q += ` WHERE ` + where
	}
	if err := s.r.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func manyDocs(n int, prefix string) []*document.Document {
	docs := make([]*document.Document, n)
	for i := range docs {
		docs[i] = &document.Document{ID: fmt.Sprint(prefix, i), Name: prefix, ContentID: prefix, Content: fmt.Sprintf("%s chunk number %d", prefix, i)}
	}
	return docs
}

// Writes larger than one batch land whole: every record, its FTS row and
// its vector, and Upsert replaces all of the old ones.
func TestWritesAcrossBatches(t *testing.T) {
	s := open(t, Config{Embedder: lexical(t, 32), SearchType: vectordb.SearchHybrid})
	mustCreate(t, s)
	n := 2*writeBatch + 7
	if err := s.Insert(t.Context(), "h", manyDocs(n, "old"), nil); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, ""); got != n {
		t.Fatalf("%d records after inserting %d", got, n)
	}
	var vecs, fts int
	s.r.QueryRow(`SELECT COUNT(*) FROM ` + s.t.vec).Scan(&vecs)
	s.r.QueryRow(`SELECT COUNT(*) FROM ` + s.t.fts + ` WHERE ` + s.t.fts + ` MATCH 'chunk'`).Scan(&fts)
	if vecs != n || fts != n {
		t.Errorf("%d vectors and %d indexed texts for %d records", vecs, fts, n)
	}
	// The same documents under a second upsert, plus duplicates of one id
	// across batches: the last one wins.
	docs := manyDocs(n, "new")
	docs = append(docs, &document.Document{ID: "new0", Name: "new", ContentID: "new", Content: "the last new0 wins"})
	if err := s.Upsert(t.Context(), "h", docs, nil); err != nil {
		t.Fatal(err)
	}
	if got, old := count(t, s, ""), count(t, s, "name = 'old'"); got != n || old != 0 {
		t.Errorf("after Upsert: %d records (%d old), want %d new", got, old, n)
	}
	if got := count(t, s, "content = 'the last new0 wins'"); got != 1 {
		t.Errorf("the last of the duplicate documents was not the one kept")
	}
}

// A write that fails in a later batch leaves nothing of itself behind:
// Insert adds nothing, Upsert leaves the hash with no records (the old
// ones were replaced, the new ones removed again).
func TestFailedBatchIsUndone(t *testing.T) {
	s := open(t, Config{Embedder: lexical(t, 32)})
	mustCreate(t, s)
	mustInsert(t, s, "other", &document.Document{ID: "keep", Content: "unrelated record"})
	bad := func(prefix string) []*document.Document {
		docs := manyDocs(writeBatch+10, prefix)
		docs[writeBatch+5].Embedding = []float32{1, 2, 3} // not the embedder's 32 dimensions
		return docs
	}
	err := s.Insert(t.Context(), "h", bad("ins"), nil)
	if err == nil || !strings.Contains(err.Error(), "3 dimensions") {
		t.Fatalf("Insert with a bad document in the second batch: %v", err)
	}
	if got := count(t, s, "content_hash = 'h'"); got != 0 {
		t.Errorf("failed Insert left %d records", got)
	}
	mustInsert(t, s, "h", manyDocs(3, "prev")...)
	if err := s.Upsert(t.Context(), "h", bad("ups"), nil); err == nil {
		t.Fatal("Upsert accepted a bad document")
	}
	if got := count(t, s, "content_hash = 'h'"); got != 0 {
		t.Errorf("failed Upsert left %d records under its hash", got)
	}
	if got := count(t, s, "id = ?", vectordb.RecordID(&document.Document{ID: "keep"}, "other")); got != 1 {
		t.Error("a failed write removed another content's record")
	}
	// A taken id is found before anything is written.
	docs := manyDocs(writeBatch+1, "dup")
	mustInsert(t, s, "d", docs[writeBatch])
	if err := s.Insert(t.Context(), "d", manyDocs(writeBatch+1, "dup"), nil); !errors.Is(err, vectordb.ErrDuplicate) {
		t.Errorf("Insert over a taken id: %v, want ErrDuplicate", err)
	}
	if got := count(t, s, "content_hash = 'd'"); got != 1 {
		t.Errorf("%d records under d, want the 1 inserted before", got)
	}
}
