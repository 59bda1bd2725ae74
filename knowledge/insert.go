package knowledge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/internal/textutil"
	"github.com/agno-go/agno/knowledge/reader"
)

// typeManual is agno's FileData type of text typed into an AgentOS
// upload; like "Text" (TextContent), it is read as text.
const typeManual = "manual"

// Input is one insert: agno's Knowledge.insert arguments. At least one of
// Path, URL, TextContent, File and Topics must be set; several may be.
type Input struct {
	Name        string
	Description string
	// Path is a file or a directory (walked recursively, see reader.Walk).
	Path string
	URL  string
	// TextContent is inserted as text (agno's FileData type "Text").
	TextContent string
	// File is content given in memory, such as an upload.
	File     *FileData
	Metadata map[string]any
	Topics   []string
	// Reader replaces the reader chosen from the file type.
	Reader reader.Reader
	// Include and Exclude are fnmatch patterns for files (reader.Included).
	Include []string
	Exclude []string
	// Upsert replaces what the vector store holds under the same content
	// hash; nil means true, as agno. With false (or a store without
	// upsert) documents are inserted as new records.
	Upsert *bool
	// SkipIfExists leaves content whose hash the vector store already has
	// alone, marking it completed.
	SkipIfExists bool
	// Password opens protected files (PDF).
	Password string
}

type insertMode struct {
	upsert, skip     bool
	include, exclude []string
}

// Insert ingests the input: for each content it records a contents row
// (status processing), reads and chunks it, embeds and stores the chunks,
// and sets the status to completed, or failed with a message. It returns
// every content it processed; the error joins the failures, which are
// also recorded in the contents rows.
func (k *Knowledge) Insert(ctx context.Context, in Input) ([]*Content, error) {
	if in.Path == "" && in.URL == "" && in.TextContent == "" && in.File == nil && len(in.Topics) == 0 {
		return nil, fmt.Errorf("%w: set one of path, url, text_content, file or topics", ErrNoSource)
	}
	if in.TextContent != "" && in.File != nil {
		return nil, fmt.Errorf("%w: set text_content or file, not both", ErrNoSource)
	}
	fd := in.File
	if in.TextContent != "" {
		fd = &FileData{Content: []byte(in.TextContent), Type: "Text"}
	}
	c := &Content{
		Name:        in.Name,
		Description: in.Description,
		Path:        in.Path,
		URL:         in.URL,
		FileData:    fd,
		Metadata:    StripAgnoMetadata(in.Metadata),
		Topics:      in.Topics,
		Reader:      in.Reader,
	}
	if in.Password != "" {
		c.Auth = &Auth{Password: in.Password}
	}
	c.ContentHash = ContentHash(c, k.cfg.ContentHash)
	c.ID = ContentID(c.ContentHash)
	mode := insertMode{upsert: in.Upsert == nil || *in.Upsert, skip: in.SkipIfExists, include: in.Include, exclude: in.Exclude}

	var out []*Content
	var errs []error
	collect := func(cs []*Content, err error) {
		out = append(out, cs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	// Like agno, every source of the input is loaded, each from a copy of
	// the one content (and so with the one content id).
	if c.Path != "" {
		collect(k.loadPath(ctx, clone(c), mode))
	}
	if c.URL != "" {
		collect(k.loadURL(ctx, clone(c), mode))
	}
	if c.FileData != nil {
		collect(k.loadFileData(ctx, clone(c), mode))
	}
	if len(c.Topics) > 0 {
		collect(k.loadTopics(ctx, clone(c), mode))
	}
	return out, errors.Join(errs...)
}

func clone(c *Content) *Content {
	cp := *c
	cp.Metadata = maps.Clone(c.Metadata)
	return &cp
}

// loadPath ingests a file, or every file under a directory.
func (k *Knowledge) loadPath(ctx context.Context, c *Content, m insertMode) ([]*Content, error) {
	info, err := os.Stat(c.Path)
	if err != nil {
		return nil, fmt.Errorf("knowledge: path %s: %w", c.Path, err)
	}
	if !info.IsDir() {
		if !reader.Included(c.Path, m.include, m.exclude) {
			k.log.Debug("knowledge: file left out by include/exclude", "path", c.Path)
			return nil, nil
		}
		return k.loadFile(ctx, c, info, m)
	}
	files, err := reader.Walk(c.Path, m.include, m.exclude)
	if err != nil {
		return nil, fmt.Errorf("knowledge: walking %s: %w", c.Path, err)
	}
	var out []*Content
	var errs []error
	for _, f := range files {
		fc := &Content{Name: c.Name, Description: c.Description, Path: f, Metadata: maps.Clone(c.Metadata), Reader: c.Reader, Auth: c.Auth}
		fc.ContentHash = ContentHash(fc, k.cfg.ContentHash)
		fc.ID = ContentID(fc.ContentHash)
		fi, err := os.Stat(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("knowledge: path %s: %w", f, err))
			continue
		}
		cs, err := k.loadFile(ctx, fc, fi, m)
		out = append(out, cs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

func (k *Knowledge) loadFile(ctx context.Context, c *Content, info fs.FileInfo, m insertMode) ([]*Content, error) {
	if c.Name == "" {
		c.Name = filepath.Base(c.Path)
	}
	c.FileType = filepath.Ext(c.Path)
	c.Size = info.Size()
	if err := k.insertRow(ctx, c); err != nil {
		return nil, err
	}
	if done, err := k.skip(ctx, c, c.ContentHash, m); done || err != nil {
		return []*Content{c}, err
	}
	r := c.Reader
	if r == nil {
		var err error
		if r, err = k.readerForType(c.FileType); err != nil {
			return []*Content{c}, k.noReader(ctx, c, err)
		}
	}
	docs, err := r.Read(ctx, reader.Source{Path: c.Path, Name: c.Name, Password: password(c)})
	if err != nil {
		return []*Content{c}, k.fail(ctx, c, "Error reading "+c.Path, err)
	}
	k.prepare(docs, c.ID, false, c.Metadata)
	return []*Content{c}, k.store(ctx, c, c.ContentHash, docs, m)
}

func password(c *Content) string {
	if c.Auth != nil {
		return c.Auth.Password
	}
	return ""
}

// loadURL ingests a URL: a file URL (one with an extension) is downloaded
// and read by its type; any other URL is crawled by the website reader.
func (k *Knowledge) loadURL(ctx context.Context, c *Content, m insertMode) ([]*Content, error) {
	c.FileType = "url"
	// Source tracking goes under _agno after hashing, as agno does, and
	// never into the hash or the vector store's metadata.
	c.Metadata = setAgnoMetadata(c.Metadata, "source_type", "url")
	c.Metadata = setAgnoMetadata(c.Metadata, "source_url", c.URL)
	u, parseErr := url.Parse(c.URL)
	if c.Name == "" {
		c.Name = c.URL
		if parseErr == nil && path.Base(u.Path) != "/" && path.Base(u.Path) != "." {
			c.Name = path.Base(u.Path)
		}
	}
	if err := k.insertRow(ctx, c); err != nil {
		return nil, err
	}
	if done, err := k.skip(ctx, c, c.ContentHash, m); done || err != nil {
		return []*Content{c}, err
	}
	if parseErr != nil || u.Scheme == "" || u.Host == "" {
		return []*Content{c}, k.fail(ctx, c, "Invalid URL format: "+c.URL, parseErr)
	}

	ext := reader.Ext(u.Path)
	src := reader.Source{URL: c.URL, Name: cmp.Or(c.Name, c.URL), Password: password(c)}
	r := c.Reader
	var err error
	if ext != "" {
		key, kerr := reader.KeyForDownload(ext)
		if r == nil && kerr != nil {
			// Refused before downloading what nothing would read.
			return []*Content{c}, k.noReader(ctx, c, kerr)
		}
		if src.Data, err = reader.Fetch(ctx, k.cfg.HTTPClient, c.URL, k.cfg.MaxDownloadBytes); err != nil {
			return []*Content{c}, k.fail(ctx, c, fmt.Sprintf("Error reading URL: %s - %v", c.URL, err), err)
		}
		if key == reader.KeyCSV {
			src.Name = path.Base(u.Path) // agno names downloaded CSVs after the file
		}
		if r == nil {
			r, err = k.reader(key)
		}
	} else if r == nil {
		r, err = k.reader(reader.KeyWebsite)
	}
	if err != nil {
		return []*Content{c}, k.fail(ctx, c, "No reader available", err)
	}
	docs, err := r.Read(ctx, src)
	if err != nil {
		return []*Content{c}, k.fail(ctx, c, fmt.Sprintf("Error reading URL: %s - %v", c.URL, err), err)
	}

	// Multi-page readers: every page gets its own hash and id.
	var order []string
	groups := map[string][]*document.Document{}
	for _, d := range docs {
		page := c.URL
		if v, ok := d.MetaData["url"]; ok {
			page = fmt.Sprint(v)
		}
		if _, seen := groups[page]; !seen {
			order = append(order, page)
		}
		groups[page] = append(groups[page], d)
	}
	if len(order) <= 1 {
		k.prepare(docs, c.ID, true, nil)
		return []*Content{c}, k.store(ctx, c, c.ContentHash, docs, m)
	}
	var errs []error
	for _, page := range order {
		pageDocs := groups[page]
		hash := DocumentContentHash(pageDocs[0], c, k.cfg.ContentHash)
		if skip, err := k.hashExists(ctx, hash, m); err != nil || skip {
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		k.prepare(pageDocs, ContentID(hash), true, nil)
		if err := k.write(ctx, hash, pageDocs, c.Metadata, m); err != nil {
			// agno logs a failed page and goes on with the others.
			k.log.Error("knowledge: storing a page failed", "url", page, "error", err)
			errs = append(errs, fmt.Errorf("knowledge: page %s: %w", page, err))
		}
	}
	c.Status = contents.StatusCompleted
	if err := k.updateContent(ctx, c); err != nil {
		errs = append(errs, err)
	}
	return []*Content{c}, errors.Join(errs...)
}

// loadFileData ingests text content or in-memory file data.
func (k *Knowledge) loadFileData(ctx context.Context, c *Content, m insertMode) ([]*Content, error) {
	fd := c.FileData
	switch {
	case c.Name != "":
	case fd.Filename != "":
		c.Name = fd.Filename
	case len(fd.Content) > 0:
		if fd.Binary {
			c.Name = strings.ToValidUTF8(string(fd.Content[:min(10, len(fd.Content))]), "")
		} else {
			c.Name = textutil.Prefix(string(fd.Content), 10)
		}
	}
	if c.Size == 0 {
		c.Size = int64(len(fd.Content))
	}
	if err := k.insertRow(ctx, c); err != nil {
		return nil, err
	}
	if done, err := k.skip(ctx, c, c.ContentHash, m); done || err != nil {
		return []*Content{c}, err
	}
	r := c.Reader
	if r == nil {
		// The filename's extension beats the MIME type, which browsers
		// often get wrong.
		hint := fd.Type
		if ext := reader.Ext(fd.Filename); ext != "" {
			hint = ext
		} else if strings.EqualFold(hint, typeManual) {
			hint = reader.KeyText
		}
		var err error
		if r, err = k.readerForType(hint); err != nil {
			return []*Content{c}, k.noReader(ctx, c, err)
		}
	}
	name := cmp.Or(fd.Filename, c.Name, "content_"+fd.Type)
	docs, err := r.Read(ctx, reader.Source{Data: fd.Content, Name: name, Password: password(c)})
	if err != nil {
		return []*Content{c}, k.fail(ctx, c, "Content could not be read", err)
	}
	if len(docs) == 0 {
		return []*Content{c}, k.fail(ctx, c, "Content could not be read", nil)
	}
	k.prepare(docs, c.ID, false, c.Metadata)
	return []*Content{c}, k.store(ctx, c, c.ContentHash, docs, m)
}

// loadTopics ingests each topic as its own content through the input's
// reader (topic readers such as Wikipedia or arXiv).
func (k *Knowledge) loadTopics(ctx context.Context, parent *Content, m insertMode) ([]*Content, error) {
	var out []*Content
	var errs []error
	for _, topic := range parent.Topics {
		c := &Content{
			Name:     topic,
			Metadata: maps.Clone(parent.Metadata),
			Reader:   parent.Reader,
			FileData: &FileData{Type: "Topic"},
			Topics:   []string{topic},
		}
		c.ContentHash = ContentHash(c, k.cfg.ContentHash)
		c.ID = ContentID(c.ContentHash)
		if err := k.insertRow(ctx, c); err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
		if done, err := k.skip(ctx, c, c.ContentHash, m); done || err != nil {
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if c.Reader == nil {
			errs = append(errs, k.fail(ctx, c, "No reader available for topic", nil))
			continue
		}
		docs, err := c.Reader.Read(ctx, reader.Source{Topic: topic, Name: topic})
		if err != nil {
			errs = append(errs, k.fail(ctx, c, "Error reading topic "+topic, err))
			continue
		}
		if len(docs) == 0 {
			errs = append(errs, k.fail(ctx, c, "No content found for topic", nil))
			continue
		}
		k.prepare(docs, c.ID, true, nil)
		if err := k.store(ctx, c, c.ContentHash, docs, m); err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// prepare is agno's _prepare_documents_for_insert.
func (k *Knowledge) prepare(docs []*document.Document, contentID string, sizes bool, metadata map[string]any) {
	for _, d := range docs {
		d.ContentID = contentID
		if sizes && d.Content != "" && d.Size == 0 {
			d.Size = int64(len(d.Content))
		}
		if d.MetaData == nil {
			d.MetaData = map[string]any{}
		}
		maps.Copy(d.MetaData, metadata)
		d.MetaData["linked_to"] = k.cfg.Name
	}
}

// skip handles skip_if_exists: content already stored is marked completed.
func (k *Knowledge) skip(ctx context.Context, c *Content, hash string, m insertMode) (bool, error) {
	exists, err := k.hashExists(ctx, hash, m)
	if err != nil || !exists {
		return false, err
	}
	k.log.Debug("knowledge: content already exists, skipping", "content_hash", hash)
	c.Status, c.Skipped = contents.StatusCompleted, true
	return true, k.updateContent(ctx, c)
}

func (k *Knowledge) hashExists(ctx context.Context, hash string, m insertMode) (bool, error) {
	if !m.skip || k.cfg.VectorDB == nil {
		return false, nil
	}
	ok, err := k.cfg.VectorDB.ContentHashExists(ctx, hash)
	if err != nil {
		return false, fmt.Errorf("knowledge: checking content hash %s: %w", hash, err)
	}
	return ok, nil
}

// store is agno's _handle_vector_db_insert: it writes the documents and
// records the outcome.
func (k *Knowledge) store(ctx context.Context, c *Content, hash string, docs []*document.Document, m insertMode) error {
	if k.cfg.VectorDB == nil {
		return k.fail(ctx, c, "No vector database configured", nil)
	}
	if err := k.write(ctx, hash, docs, c.Metadata, m); err != nil {
		msg := "Could not insert embedding"
		if k.cfg.VectorDB.UpsertAvailable() && m.upsert {
			msg = "Could not upsert embedding"
		}
		return k.fail(ctx, c, msg, err)
	}
	c.Status = contents.StatusCompleted
	return k.updateContent(ctx, c)
}

func (k *Knowledge) write(ctx context.Context, hash string, docs []*document.Document, metadata map[string]any, m insertMode) error {
	filters := StripAgnoMetadata(metadata)
	if k.cfg.VectorDB.UpsertAvailable() && m.upsert {
		return k.cfg.VectorDB.Upsert(ctx, hash, docs, filters)
	}
	return k.cfg.VectorDB.Insert(ctx, hash, docs, filters)
}

// fail marks the content failed with msg and returns the error Insert
// reports for it.
func (k *Knowledge) fail(ctx context.Context, c *Content, msg string, cause error) error {
	err := fmt.Errorf("knowledge: content %q (%s): %s", c.Name, c.ID, msg)
	if cause != nil {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	return k.failed(ctx, c, msg, cause, err)
}

// failed marks the content failed with msg and returns err, what Insert
// reports for it.
func (k *Knowledge) failed(ctx context.Context, c *Content, msg string, cause, err error) error {
	c.Status = contents.StatusFailed
	c.StatusMessage = msg
	k.log.Error("knowledge: content failed", "content_id", c.ID, "name", c.Name, "message", msg, "error", cause)
	if uerr := k.updateContent(ctx, c); uerr != nil {
		return errors.Join(err, uerr)
	}
	return err
}

// noReader fails content of a type no reader reads. The status message
// carries the reason (the type and the known ones): it is all an upload's
// caller sees.
func (k *Knowledge) noReader(ctx context.Context, c *Content, err error) error {
	return k.failed(ctx, c, "No reader available: "+strings.TrimPrefix(err.Error(), "reader: "), err,
		fmt.Errorf("knowledge: content %q (%s): no reader available: %w", c.Name, c.ID, err))
}

// insertRow is agno's _insert_contents_db: the row is upserted with
// status processing before anything is read.
func (k *Knowledge) insertRow(ctx context.Context, c *Content) error {
	if k.cfg.ContentsDB == nil {
		if c.Status == "" {
			c.Status = contents.StatusProcessing
		}
		return nil
	}
	row := k.row(c)
	c.Status, c.CreatedAt, c.UpdatedAt = row.Status, row.CreatedAt, row.UpdatedAt
	if err := k.cfg.ContentsDB.Upsert(ctx, row); err != nil {
		return fmt.Errorf("knowledge: recording content %q: %w", c.Name, err)
	}
	return nil
}

// row is agno's _build_knowledge_row.
func (k *Knowledge) row(c *Content) contents.Row {
	t := now()
	r := contents.Row{
		ID:            c.ID,
		Name:          c.Name,
		Description:   c.Description,
		Metadata:      c.Metadata,
		Type:          c.FileType,
		LinkedTo:      k.cfg.Name,
		Status:        cmp.Or(c.Status, contents.StatusProcessing),
		StatusMessage: c.StatusMessage,
		CreatedAt:     cmp.Or(c.CreatedAt, t),
		UpdatedAt:     cmp.Or(c.UpdatedAt, t),
		ExternalID:    c.ExternalID,
	}
	if r.Type == "" && c.FileData != nil {
		r.Type = c.FileData.Type
	}
	switch {
	case c.Size != 0:
		size := c.Size
		r.Size = &size
	case c.FileData != nil && len(c.FileData.Content) > 0:
		size := int64(len(c.FileData.Content))
		r.Size = &size
	}
	return r
}

// updateContent is agno's _update_content: it merges the content into its
// row and pushes the user metadata to the vector store. Without a contents
// DB it does nothing, as in agno.
func (k *Knowledge) updateContent(ctx context.Context, c *Content) error {
	if k.cfg.ContentsDB == nil {
		return nil
	}
	_, err := k.patch(ctx, c)
	return err
}

func (k *Knowledge) patch(ctx context.Context, c *Content) (contents.Row, error) {
	if c.ID == "" {
		return contents.Row{}, fmt.Errorf("knowledge: content id is required to update content")
	}
	row, err := k.cfg.ContentsDB.Get(ctx, c.ID)
	if err != nil {
		return contents.Row{}, fmt.Errorf("knowledge: updating content %s: %w", c.ID, err)
	}
	if c.Name != "" {
		row.Name = c.Name
	}
	if c.Description != "" {
		row.Description = c.Description
	}
	if c.Metadata != nil {
		row.Metadata = MergeUserMetadata(row.Metadata, c.Metadata)
	}
	if c.Status != "" {
		row.Status = c.Status
	}
	if c.StatusMessage != "" {
		row.StatusMessage = c.StatusMessage
	}
	if c.ExternalID != "" {
		row.ExternalID = c.ExternalID
	}
	row.UpdatedAt = now()
	if err := k.cfg.ContentsDB.Upsert(ctx, row); err != nil {
		return contents.Row{}, fmt.Errorf("knowledge: updating content %s: %w", c.ID, err)
	}
	c.UpdatedAt = row.UpdatedAt
	if k.cfg.VectorDB != nil {
		md := StripAgnoMetadata(c.Metadata)
		if md == nil {
			md = map[string]any{}
		}
		if err := k.cfg.VectorDB.UpdateMetadata(ctx, c.ID, md); err != nil {
			return row, fmt.Errorf("knowledge: updating vector metadata of %s: %w", c.ID, err)
		}
	}
	return row, nil
}
