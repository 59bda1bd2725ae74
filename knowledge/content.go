// Package knowledge is agno's Knowledge: it ingests content (files,
// directories, URLs, text, topics) by reading, chunking, embedding and
// storing it in a vector store, tracks every content's status in a
// contents DB, and searches it for agents.
//
// The pieces live in subpackages: document (the Document type), reader,
// chunk, embedder, vectordb (the store interface and an in-memory store),
// filter (metadata filters) and contents (the contents table).
package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/reader"
)

// AgnoMetadataKey is agno's reserved metadata namespace for what the
// pipeline itself records (for example the source URL). It never reaches
// the content hash or the vector store's searchable metadata.
const AgnoMetadataKey = "_agno"

// Content is one piece of content a Knowledge ingests or has ingested
// (agno's knowledge.content.Content).
type Content struct {
	ID          string         `json:"id,omitempty"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Path        string         `json:"path,omitempty"`
	URL         string         `json:"url,omitempty"`
	Auth        *Auth          `json:"-"`
	FileData    *FileData      `json:"-"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Topics      []string       `json:"topics,omitempty"`
	// Reader overrides the reader chosen from the file type.
	Reader        reader.Reader   `json:"-"`
	Size          int64           `json:"size,omitempty"`
	FileType      string          `json:"file_type,omitempty"`
	ContentHash   string          `json:"content_hash,omitempty"`
	Status        contents.Status `json:"status,omitempty"`
	StatusMessage string          `json:"status_message,omitempty"`
	// CreatedAt and UpdatedAt are epoch seconds.
	CreatedAt  int64  `json:"created_at,omitempty"`
	UpdatedAt  int64  `json:"updated_at,omitempty"`
	ExternalID string `json:"external_id,omitempty"`
	// Skipped: SkipIfExists left it alone, its hash already stored.
	Skipped bool `json:"-"`
}

// Auth is agno's ContentAuth.
type Auth struct {
	Password string
}

// FileData is content given in memory rather than by path or URL (agno's
// FileData): uploaded bytes, or the text of Input.TextContent.
type FileData struct {
	Content []byte
	// Binary marks content that came as bytes (an upload) rather than a
	// string; the content hash tells the two apart as agno does.
	Binary bool
	// Type is a MIME type or agno's "Text" for text content.
	Type     string
	Filename string
	// Size, when set, is part of the content hash (after Filename and
	// Type).
	Size *int64
}

// StripAgnoMetadata is agno's strip_agno_metadata: a copy of md without
// the reserved "_agno" key (nil stays nil).
func StripAgnoMetadata(md map[string]any) map[string]any {
	if len(md) == 0 {
		return md
	}
	out := maps.Clone(md)
	delete(out, AgnoMetadataKey)
	return out
}

// setAgnoMetadata is agno's set_agno_metadata on a copy of md.
func setAgnoMetadata(md map[string]any, key string, value any) map[string]any {
	out := maps.Clone(md)
	if out == nil {
		out = map[string]any{}
	}
	agno := map[string]any{}
	if prev, ok := out[AgnoMetadataKey].(map[string]any); ok {
		maps.Copy(agno, prev)
	}
	agno[key] = value
	out[AgnoMetadataKey] = agno
	return out
}

// MergeUserMetadata is agno's merge_user_metadata: incoming keys replace
// existing ones, except "_agno", whose keys are merged.
func MergeUserMetadata(existing, incoming map[string]any) map[string]any {
	if len(existing) == 0 {
		return maps.Clone(incoming)
	}
	merged := maps.Clone(existing)
	for k, v := range incoming {
		if k != AgnoMetadataKey {
			merged[k] = v
			continue
		}
		agno := map[string]any{}
		if old, ok := merged[AgnoMetadataKey].(map[string]any); ok {
			maps.Copy(agno, old)
		}
		if m, ok := v.(map[string]any); ok {
			maps.Copy(agno, m)
		}
		merged[AgnoMetadataKey] = agno
	}
	return merged
}

// DecodeMetadata decodes a JSON object the way the content hash needs:
// numbers keep their literal, so 1 stays 1 and is not hashed as 1.0.
// Metadata that comes from JSON (API requests, config files) should be
// decoded with it.
func DecodeMetadata(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var md map[string]any
	if err := dec.Decode(&md); err != nil {
		return nil, fmt.Errorf("knowledge: metadata must be a JSON object: %w", err)
	}
	return md, nil
}

// contentFromRow is agno's _content_row_to_content.
func contentFromRow(r contents.Row) Content {
	c := Content{
		ID:            r.ID,
		Name:          r.Name,
		Description:   r.Description,
		Metadata:      r.Metadata,
		FileType:      r.Type,
		Status:        r.Status,
		StatusMessage: r.StatusMessage,
		CreatedAt:     r.CreatedAt,
		UpdatedAt:     r.UpdatedAt,
		ExternalID:    r.ExternalID,
	}
	if r.Size != nil {
		c.Size = *r.Size
	}
	if c.UpdatedAt == 0 {
		c.UpdatedAt = c.CreatedAt
	}
	if r.Status != "" {
		c.Status = contents.ParseStatus(string(r.Status))
	}
	return c
}
