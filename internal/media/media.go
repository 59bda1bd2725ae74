// Package media keeps a run's images and files out of its row: their
// bytes become blobs of the run's session (storage.Store.PutBlob) and the
// run document holds only their ids, so it stays small whatever was
// uploaded. The bytes are read back only to call a model.
package media

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Keep stores the content of images and files — inline, or read from
// their Source — as blobs of the session, and returns them as references
// (ID, no content). With no store there is nowhere to keep them: Sources
// are read into memory instead.
func Keep(ctx context.Context, st storage.Store, sessionID string, images []model.Image, files []model.File) ([]model.Image, []model.File, error) {
	if !pending(images, files) {
		return images, files, nil
	}
	outImages := make([]model.Image, len(images))
	for i, img := range images {
		id, content, err := keep(ctx, st, sessionID, img.Content, img.Source)
		if err != nil {
			return nil, nil, fmt.Errorf("store image %d of the run: %w", i, err)
		}
		if id != "" {
			img.ID = id
		}
		img.Content, img.Source = content, nil
		outImages[i] = img
	}
	outFiles := make([]model.File, len(files))
	for i, f := range files {
		id, content, err := keep(ctx, st, sessionID, f.Content, f.Source)
		if err != nil {
			return nil, nil, fmt.Errorf("store file %s of the run: %w", f.Filename, err)
		}
		if id != "" {
			f.ID = id
		}
		f.Content, f.Source = content, nil
		outFiles[i] = f
	}
	return outImages, outFiles, nil
}

func pending(images []model.Image, files []model.File) bool {
	for _, i := range images {
		if i.Source != nil || len(i.Content) > 0 {
			return true
		}
	}
	for _, f := range files {
		if f.Source != nil || len(f.Content) > 0 {
			return true
		}
	}
	return false
}

// keep stores one item's bytes: the blob id, or (no store) the bytes.
func keep(ctx context.Context, st storage.Store, sessionID string, content []byte, source func() (io.ReadCloser, error)) (string, []byte, error) {
	if source == nil && len(content) == 0 {
		return "", nil, nil
	}
	var r io.Reader
	if source != nil {
		rc, err := source()
		if err != nil {
			return "", nil, err
		}
		defer rc.Close()
		r = rc
	} else {
		r = bytes.NewReader(content)
	}
	if st == nil {
		if source == nil {
			return "", content, nil
		}
		b, err := io.ReadAll(r)
		return "", b, err
	}
	id := run.NewID()
	if _, err := st.PutBlob(ctx, sessionID, id, r); err != nil {
		return "", nil, err
	}
	return id, nil, nil
}

// Loader puts the bytes of stored images and files back into messages
// for a model call. One Loader serves one run; it reads each blob once.
type Loader struct {
	Store     storage.Store
	SessionID string

	mu    sync.Mutex
	cache map[string][]byte
}

// Messages returns msgs with the content of stored media filled in: msgs
// itself when nothing is stored, else a copy (msgs, which the run keeps
// and stores, still hold references only).
func (l *Loader) Messages(ctx context.Context, msgs []model.Message) ([]model.Message, error) {
	if l == nil || l.Store == nil || !references(msgs) {
		return msgs, nil
	}
	out := make([]model.Message, len(msgs))
	copy(out, msgs)
	for i := range out {
		m := &out[i]
		if len(m.Images) > 0 {
			m.Images = append([]model.Image(nil), m.Images...)
			for j := range m.Images {
				if img := &m.Images[j]; stored(img.ID, img.Content, img.URL) {
					b, err := l.load(ctx, img.ID)
					if err != nil {
						return nil, fmt.Errorf("image %s of the conversation: %w", img.ID, err)
					}
					img.Content = b
				}
			}
		}
		if len(m.Files) > 0 {
			m.Files = append([]model.File(nil), m.Files...)
			for j := range m.Files {
				if f := &m.Files[j]; stored(f.ID, f.Content, "") {
					b, err := l.load(ctx, f.ID)
					if err != nil {
						return nil, fmt.Errorf("file %s of the conversation: %w", cmp.Or(f.Filename, f.ID), err)
					}
					f.Content = b
				}
			}
		}
	}
	return out, nil
}

func stored(id string, content []byte, url string) bool {
	return id != "" && len(content) == 0 && url == ""
}

func references(msgs []model.Message) bool {
	for _, m := range msgs {
		for _, img := range m.Images {
			if stored(img.ID, img.Content, img.URL) {
				return true
			}
		}
		for _, f := range m.Files {
			if stored(f.ID, f.Content, "") {
				return true
			}
		}
	}
	return false
}

func (l *Loader) load(ctx context.Context, id string) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.cache[id]; ok {
		return b, nil
	}
	b, err := l.Store.GetBlob(ctx, l.SessionID, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("it is not stored with this session (deleted, or another session's): %w", err)
	}
	if err != nil {
		return nil, err
	}
	if l.cache == nil {
		l.cache = map[string][]byte{}
	}
	l.cache[id] = b
	return b, nil
}
