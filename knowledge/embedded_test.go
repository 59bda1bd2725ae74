package knowledge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/contents/sqlitecontents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
	"github.com/agno-go/agno/knowledge/vectordb/sqlitevec"
	"github.com/agno-go/agno/storage"
	agnosqlite "github.com/agno-go/agno/storage/sqlite"
)

// The embedded default keeps sessions (storage/sqlite), chunks
// (sqlitevec) and contents (sqlitecontents) in one SQLite file, each with
// its own connections. Ingesting large contents while AgentOS writes
// sessions must make each writer wait for the other, never fail with
// "database is locked", and the file must stay private.
func TestEmbeddedStoresShareTheSessionFile(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "data", "agno.db")
	sessions, err := agnosqlite.Open(ctx, agnosqlite.Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer sessions.Close()
	vs, err := sqlitevec.Open(ctx, sqlitevec.Config{Path: path, Embedder: lexical(t), SearchType: vectordb.SearchHybrid, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Close()
	cs, err := sqlitecontents.Open(ctx, sqlitecontents.Config{Path: path, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	k, err := New(ctx, Config{Name: "kb", VectorDB: vs, ContentsDB: cs, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}

	var (
		wg       sync.WaitGroup
		done     atomic.Bool
		mu       sync.Mutex
		errs     []error
		memories atomic.Int64
		slowest  time.Duration
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	// AgentOS's side: session-store writes and reads until ingestion ends.
	for w := range 3 {
		wg.Go(func() {
			for i := 0; !done.Load(); i++ {
				m := &storage.Memory{MemoryID: fmt.Sprintf("m-%d-%d", w, i), Memory: "likes tea", UserID: "u", CreatedAt: 1, UpdatedAt: 1}
				t0 := time.Now()
				err := sessions.UpsertMemory(context.Background(), m)
				mu.Lock()
				slowest = max(slowest, time.Since(t0))
				mu.Unlock()
				if err != nil {
					fail(fmt.Errorf("session store write: %w", err))
					return
				}
				memories.Add(1)
				if _, err := sessions.GetMemory(context.Background(), m.MemoryID); err != nil {
					fail(fmt.Errorf("session store read: %w", err))
					return
				}
			}
		})
	}
	// Searches while the chunks go in.
	wg.Go(func() {
		for !done.Load() {
			if _, err := k.Search(context.Background(), "chapter ledger", SearchOptions{Filters: filter.Dict(map[string]any{"part": 1})}); err != nil {
				fail(fmt.Errorf("search: %w", err))
				return
			}
		}
	})
	// Knowledge's side: contents of many chunks each, and one store write
	// of 2,000 chunks in a single transaction.
	var ingest sync.WaitGroup
	for c := range 4 {
		ingest.Go(func() {
			var b strings.Builder
			for i := range 600 {
				fmt.Fprintf(&b, "Chapter %d of part %d records ledger entry %d with its balance and auditor notes. ", i, c, i*c)
			}
			if _, err := k.Insert(context.Background(), Input{TextContent: b.String(), Name: fmt.Sprint("part-", c), Metadata: map[string]any{"part": c}}); err != nil {
				fail(fmt.Errorf("insert: %w", err))
			}
		})
	}
	ingest.Go(func() {
		docs := make([]*document.Document, 2000)
		for i := range docs {
			docs[i] = &document.Document{ID: fmt.Sprint("bulk-", i), Name: "bulk", ContentID: "bulk", Content: fmt.Sprintf("bulk ledger line %d", i)}
		}
		if err := vs.Insert(context.Background(), "bulk-hash", docs, nil); err != nil {
			fail(fmt.Errorf("bulk insert: %w", err))
		}
	})
	ingest.Wait()
	done.Store(true)
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}

	rows, total, err := k.GetContent(ctx, contents.ListOptions{})
	if err != nil || total != 4 {
		t.Fatalf("GetContent: %d rows, %v", total, err)
	}
	for _, r := range rows {
		if r.Status != contents.StatusCompleted {
			t.Errorf("content %s is %s (%s)", r.Name, r.Status, r.StatusMessage)
		}
	}
	if n := memories.Load(); n == 0 {
		t.Error("the session store wrote nothing while knowledge was ingested")
	}
	for _, f := range []string{path, path + "-wal"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	t.Logf("%d session-store writes during ingestion, the slowest %v", memories.Load(), slowest)
}
