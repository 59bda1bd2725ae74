package knowledgeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/internal/safe"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/chunk"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/reader"
	"github.com/agno-go/agno/storage"
)

// workers bounds the ingestions running at once: reading, chunking and
// embedding are heavy, and uploads must not starve runs.
const workers = 2

// jobOwnerStale is how long an instance's silence lets another take its
// pending uploads over (four default run-engine leases).
const jobOwnerStale = 60 * time.Second

// jobs runs accepted uploads in the background. Each job is stored with
// the OS store as blobs of a private pseudo-session (the descriptor and
// the file) from its acceptance to its end, and the content row says
// processing meanwhile; at start, rows still processing whose job is
// stored are ingested again, so an upload survives a restart. Without a
// store jobs live in memory only.
type jobs struct {
	g      *Group
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	mu      sync.Mutex
	running map[string]bool // job sessions in this process
}

func newJobs(g *Group) *jobs {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobs{g: g, log: g.host.Logger(), ctx: ctx, cancel: cancel, sem: make(chan struct{}, workers), running: map[string]bool{}}
}

// store is the OS store keeping the jobs; nil without one.
func (j *jobs) store() storage.Store { return j.g.host.Store() }

// Start resumes the uploads a previous process left unfinished, in the
// background.
func (g *Group) Start() error {
	if g.host.Store() == nil || len(g.bases()) == 0 {
		return nil
	}
	j := g.jobs
	j.wg.Add(1)
	safe.Go(j.log, "knowledge upload recovery", func() {
		defer j.wg.Done()
		j.recover()
	}, nil)
	return nil
}

// Stop cancels running ingestions (their rows stay processing, their
// jobs stored, so the next start resumes them) and waits for them.
func (g *Group) Stop() {
	j := g.jobs
	j.cancel()
	j.wg.Wait()
}

// jobSession is the pseudo-session holding a job's blobs.
func jobSession(kbID, contentID string) string {
	return "agno-knowledge-upload:" + kbID + ":" + contentID
}

// Blob ids are unique across sessions: each names its job.
func jobBlob(session string) string  { return session + "/job" }
func fileBlob(session string) string { return session + "/file" }

// hashOptions are the content-hash options of a knowledge base.
func hashOptions(k *knowledge.Knowledge) knowledge.HashOptions {
	if h, ok := any(k).(interface{ HashOptions() knowledge.HashOptions }); ok {
		return h.HashOptions()
	}
	return knowledge.HashOptions{}
}

// submit accepts a job: it computes the content id, records the content
// as processing, stores the job and starts it.
func (j *jobs) submit(ctx context.Context, kb *base, job *ingestJob) error {
	job.ContentID = job.contentID(hashOptions(kb.k))
	job.Owner = j.g.host.Instance()
	session := jobSession(kb.id, job.ContentID)
	j.mu.Lock()
	busy := j.running[session]
	j.mu.Unlock()
	if busy {
		return nil // the same content is being ingested: this upload is that one
	}
	if err := j.persist(ctx, session, job); err != nil {
		return err
	}
	if err := j.recordProcessing(ctx, kb, job); err != nil {
		j.drop(session)
		return err
	}
	j.start(kb, job, false)
	return nil
}

// persist stores the job's descriptor and file, replacing what a
// previous upload of the same content left.
func (j *jobs) persist(ctx context.Context, session string, job *ingestJob) error {
	st := j.store()
	if st == nil {
		return nil
	}
	desc, err := json.Marshal(job)
	if err != nil {
		return err
	}
	if err := st.DeleteSessions(ctx, session); err != nil {
		return fmt.Errorf("knowledge upload: clear the previous job: %w", err)
	}
	if job.File != nil {
		var r *os.File
		if r, err = os.Open(job.path); err != nil {
			return err
		}
		_, err = st.PutBlob(ctx, session, fileBlob(session), r)
		r.Close()
		if err != nil {
			return fmt.Errorf("knowledge upload: keep the file: %w", err)
		}
	}
	if _, err := st.PutBlob(ctx, session, jobBlob(session), bytes.NewReader(desc)); err != nil {
		return fmt.Errorf("knowledge upload: keep the job: %w", err)
	}
	return nil
}

// recordProcessing writes the content's row with status processing, as
// the knowledge base will when it starts, so the status route answers at
// once.
func (j *jobs) recordProcessing(ctx context.Context, kb *base, job *ingestJob) error {
	now := time.Now().Unix()
	in := job.input()
	row := contents.Row{ID: job.ContentID, Name: job.Name, Description: job.Description, Metadata: knowledge.StripAgnoMetadata(job.metadata),
		LinkedTo: kb.k.Name(), Status: contents.StatusProcessing, CreatedAt: now, UpdatedAt: now}
	switch {
	case job.URL != "":
		row.Type = "url"
	case in.File != nil:
		row.Type = in.File.Type
		size := int64(len(in.File.Content))
		row.Size = &size
		if row.Name == "" {
			row.Name = strings.ToValidUTF8(string(in.File.Content[:min(10, len(in.File.Content))]), "")
		}
	}
	if prev, err := kb.k.ContentsDB().Get(ctx, job.ContentID); err == nil {
		row.CreatedAt = prev.CreatedAt
	}
	if err := kb.k.ContentsDB().Upsert(ctx, row); err != nil {
		return fmt.Errorf("knowledge upload: record the content: %w", err)
	}
	return nil
}

// start runs a job in the background.
func (j *jobs) start(kb *base, job *ingestJob, resumed bool) {
	session := jobSession(kb.id, job.ContentID)
	j.mu.Lock()
	if j.running[session] || j.ctx.Err() != nil {
		j.mu.Unlock()
		return
	}
	j.running[session] = true
	j.mu.Unlock()
	j.wg.Add(1)
	done := func() {
		j.mu.Lock()
		delete(j.running, session)
		j.mu.Unlock()
		j.wg.Done()
	}
	safe.Go(j.log, "knowledge upload "+job.ContentID, func() {
		defer done()
		select {
		case j.sem <- struct{}{}:
		case <-j.ctx.Done():
			return
		}
		defer func() { <-j.sem }()
		j.run(kb, job, session, resumed)
	}, func(*safe.PanicError) {
		// The deferred release ran already; the job stays stored.
		j.failContent(kb, job.ContentID, "Content could not be processed")
	})
}

// run ingests a job. A first run uses agno's process_content options
// (upsert off, skip if the hash exists); a resumed one replaces what an
// interrupted run may have half written.
func (j *jobs) run(kb *base, job *ingestJob, session string, resumed bool) {
	ctx := j.ctx
	if job.File != nil && job.data == nil {
		data, err := j.store().GetBlob(ctx, session, fileBlob(session))
		if err != nil {
			j.log.Error("knowledge upload: the stored file is unreadable", "content_id", job.ContentID, "error", err)
			j.failContent(kb, job.ContentID, "The uploaded file could not be read back")
			j.drop(session)
			return
		}
		job.data = data
	}
	in := job.input()
	r, err := job.reader(kb.k.HTTPClient())
	if err != nil {
		j.failContent(kb, job.ContentID, httpapi.HidePaths(err))
		j.drop(session)
		return
	}
	in.Reader = r
	upsert := resumed
	in.Upsert, in.SkipIfExists = &upsert, !resumed
	j.log.Info("knowledge upload started", "knowledge", kb.name, "content_id", job.ContentID, "name", job.Name, "resumed", resumed)
	got, err := kb.k.Insert(ctx, in)
	if ctx.Err() != nil {
		// Shutting down: the job stays stored and the row processing, for
		// the next start.
		j.markProcessing(kb, job.ContentID)
		return
	}
	switch {
	case err != nil && len(got) == 0:
		j.failContent(kb, job.ContentID, httpapi.HidePaths(err))
	case err != nil:
		j.log.Warn("knowledge upload failed", "knowledge", kb.name, "content_id", job.ContentID, "error", err)
	default:
		j.log.Info("knowledge upload done", "knowledge", kb.name, "content_id", job.ContentID)
	}
	if len(got) > 0 && got[0].ID != job.ContentID {
		// The knowledge base hashes differently than predicted (its hash
		// options are not visible): its own row is the truth.
		j.log.Error("knowledge upload: the content got another id than the one answered", "answered", job.ContentID, "stored", got[0].ID)
		_ = kb.k.ContentsDB().Delete(context.WithoutCancel(ctx), job.ContentID)
	}
	j.drop(session)
}

// failContent marks a content failed with message (agno's process_content
// error path).
func (j *jobs) failContent(kb *base, id, message string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := kb.k.PatchContent(ctx, knowledge.Content{ID: id, Status: contents.StatusFailed, StatusMessage: message}); err != nil {
		j.log.Warn("knowledge upload: could not record the failure", "content_id", id, "error", err)
	}
}

func (j *jobs) markProcessing(kb *base, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	row, err := kb.k.ContentsDB().Get(ctx, id)
	if err != nil {
		return
	}
	row.Status, row.StatusMessage = contents.StatusProcessing, ""
	_ = kb.k.ContentsDB().Upsert(ctx, row)
}

// drop removes a stored job.
func (j *jobs) drop(session string) {
	if j.store() == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := j.store().DeleteSessions(ctx, session); err != nil {
		j.log.Warn("knowledge upload: could not remove the finished job", "session", session, "error", err)
	}
}

// forget removes the stored job of a content being deleted, so a restart
// does not bring it back.
func (j *jobs) forget(ctx context.Context, kb *base, id string) {
	if j.store() == nil {
		return
	}
	if err := j.store().DeleteSessions(ctx, jobSession(kb.id, id)); err != nil {
		j.log.Warn("knowledge: could not remove a pending upload", "content_id", id, "error", err)
	}
}

// recover resumes the stored jobs of contents still processing: this
// instance's (it restarted), those of no owner, and those of instances
// silent for jobOwnerStale. A processing row without a stored job (an
// ingestion by `agno knowledge add`, say) is left alone.
func (j *jobs) recover() {
	st := j.store()
	ctx := j.ctx
	me := j.g.host.Instance()
	var beats map[string]int64
	for _, kb := range j.g.bases() {
		list, _, err := kb.k.GetContent(ctx, contents.ListOptions{})
		if err != nil {
			j.log.Warn("knowledge: could not look for unfinished uploads", "knowledge", kb.name, "error", err)
			continue
		}
		for _, c := range list {
			if c.Status != contents.StatusProcessing || ctx.Err() != nil {
				continue
			}
			session := jobSession(kb.id, c.ID)
			raw, err := st.GetBlob(ctx, session, jobBlob(session))
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				j.log.Warn("knowledge: could not read an unfinished upload", "content_id", c.ID, "error", err)
				continue
			}
			job := &ingestJob{}
			if err := json.Unmarshal(raw, job); err != nil {
				j.log.Warn("knowledge: an unfinished upload is unreadable; marking it failed", "content_id", c.ID, "error", err)
				j.failContent(kb, c.ID, "The upload could not be resumed after a restart; upload it again")
				continue
			}
			if len(job.Metadata) > 0 {
				job.metadata, _ = knowledge.DecodeMetadata(job.Metadata)
			}
			if job.Owner != "" && job.Owner != me {
				if beats == nil {
					if beats, err = st.Instances(ctx); err != nil {
						beats = map[string]int64{}
					}
				}
				if time.Since(time.Unix(beats[job.Owner], 0)) < jobOwnerStale {
					continue // its owner is alive and at it
				}
			}
			j.log.Info("knowledge: resuming an upload left unfinished", "knowledge", kb.name, "content_id", c.ID, "owner", job.Owner)
			job.Owner = me
			j.start(kb, job, true)
		}
	}
}

// ingestJob is one accepted upload, kept in storage until its ingestion
// ends so that a restart resumes it.
type ingestJob struct {
	KnowledgeID  string          `json:"knowledge_id"`
	ContentID    string          `json:"content_id"`
	Owner        string          `json:"owner,omitempty"`
	Name         string          `json:"name,omitempty"`
	Description  string          `json:"description,omitempty"`
	Metadata     json.RawMessage `json:"metadata,omitempty"`
	URL          string          `json:"url,omitempty"`
	Text         *string         `json:"text,omitempty"`
	File         *jobFile        `json:"file,omitempty"`
	ReaderID     string          `json:"reader_id,omitempty"`
	Chunker      string          `json:"chunker,omitempty"`
	ChunkSize    int             `json:"chunk_size,omitempty"`
	ChunkOverlap int             `json:"chunk_overlap,omitempty"`
	CreatedAt    int64           `json:"created_at"`

	metadata map[string]any
	// data is the file's bytes; path its spool file at upload.
	data []byte
	path string
}

type jobFile struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type,omitempty"`
	Size        int64  `json:"size"`
}

// newIngestJob reads the upload's source: one of file, text_content and
// url.
func newIngestJob(f *httpapi.Form, opts ingestOptions) (*ingestJob, error) {
	md, err := parseFormMetadata(f.Str("metadata"))
	if err != nil {
		return nil, err
	}
	u, err := parseFormURL(f.Str("url"))
	if err != nil {
		return nil, err
	}
	var files []httpapi.RawFile
	for _, rf := range f.Raw {
		if rf.Field == "file" {
			files = append(files, rf)
		}
	}
	text := f.Str("text_content")
	n := len(files)
	if text != "" {
		n++
	}
	if u != "" {
		n++
	}
	switch {
	case len(files) > 1:
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "file: send one file per upload, got %d", len(files))
	case n == 0:
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Nothing to upload: send a file (form field file), text (text_content) or a URL (url)")
	case n > 1:
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Send one of file, text_content and url per upload, not several")
	}
	job := &ingestJob{Name: f.Str("name"), Description: f.Str("description"), metadata: md, ReaderID: opts.readerID,
		Chunker: opts.chunker, ChunkSize: opts.size, ChunkOverlap: opts.overlap, CreatedAt: time.Now().Unix()}
	if md != nil {
		if job.Metadata, err = json.Marshal(md); err != nil {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, "metadata: %v", err)
		}
	}
	switch {
	case len(files) == 1:
		rf := files[0]
		job.File = &jobFile{Filename: filepath.Base(rf.Filename), ContentType: rf.ContentType, Size: rf.Size}
		job.path = rf.Path
		if job.data, err = os.ReadFile(rf.Path); err != nil {
			return nil, httpapi.ErrStatus(http.StatusInternalServerError, "Could not read the upload %s: %v", rf.Filename, err)
		}
		if job.Name == "" {
			job.Name = job.File.Filename
		}
	case text != "":
		job.Text = &text
	default:
		job.URL = u
		if job.Name == "" {
			job.Name = u
		}
	}
	return job, nil
}

// input is what the job inserts: agno's Content of the upload (text as
// file data of type "manual", a file with its name, type and size).
func (j *ingestJob) input() knowledge.Input {
	in := knowledge.Input{Name: j.Name, Description: j.Description, Metadata: j.metadata, URL: j.URL}
	switch {
	case j.Text != nil:
		in.File = &knowledge.FileData{Content: []byte(*j.Text), Binary: true, Type: "manual"}
	case j.File != nil:
		size := j.File.Size
		in.File = &knowledge.FileData{Content: j.data, Binary: true, Type: j.File.ContentType, Filename: j.File.Filename, Size: &size}
	}
	return in
}

// contentID is the id the knowledge base gives the job's content.
func (j *ingestJob) contentID(opts knowledge.HashOptions) string {
	in := j.input()
	c := &knowledge.Content{Name: in.Name, Description: in.Description, URL: in.URL, FileData: in.File, Metadata: knowledge.StripAgnoMetadata(in.Metadata)}
	return knowledge.ContentID(knowledge.ContentHash(c, opts))
}

// defaultReaderKey is the reader the content's type picks; a type no
// reader reads is an error (reader.KeyForType).
func (j *ingestJob) defaultReaderKey() (string, error) {
	switch {
	case j.Text != nil:
		return reader.KeyText, nil
	case j.File != nil:
		if ext := reader.Ext(j.File.Filename); ext != "" {
			return reader.KeyForType(ext)
		}
		return reader.KeyForType(j.File.ContentType)
	}
	if u, err := url.Parse(j.URL); err == nil {
		if ext := reader.Ext(u.Path); ext != "" {
			return reader.KeyForDownload(ext)
		}
	}
	return reader.KeyWebsite, nil
}

// checkReader validates reader_id and the chunking fields up front (agno
// would accept the upload and fail it in the background).
func (j *ingestJob) checkReader() error {
	_, err := j.reader(nil)
	return err
}

// reader is the reader reader_id and the chunking fields ask for; nil
// leaves the choice to the knowledge base. Unlike agno, a chunker without
// reader_id applies to the reader the content's type picks. It fetches
// with client, the knowledge base's, so a chosen reader reaches no more
// than the knowledge base's own would.
func (j *ingestJob) reader(client *http.Client) (reader.Reader, error) {
	if j.ReaderID == "" && j.Chunker == "" && j.ChunkSize == 0 {
		return nil, nil
	}
	var key string
	if j.ReaderID != "" {
		k, ok := reader.ResolveKey(j.ReaderID)
		if !ok {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, "Invalid reader_id: %s: use one of %s (GET /knowledge/config lists them)", j.ReaderID, strings.Join(reader.Names(), ", "))
		}
		key = k
	} else {
		k, err := j.defaultReaderKey()
		if err != nil {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, "%v", err)
		}
		key = k
	}
	opts := reader.Options{ChunkSize: j.ChunkSize}
	if j.Chunker != "" {
		c, err := chunk.New(j.Chunker, chunk.Config{Size: j.ChunkSize, Overlap: j.ChunkOverlap})
		if err != nil {
			return nil, httpapi.ErrStatus(http.StatusBadRequest, "chunker: %v", err)
		}
		opts.Chunker = c
	}
	spec, _ := reader.Lookup(key) // resolved above
	r, err := spec.New(reader.FactoryOptions{Options: opts, HTTPClient: client})
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "reader_id: %v", err)
	}
	return r, nil
}
