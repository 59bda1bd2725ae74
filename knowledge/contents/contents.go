// Package contents keeps the knowledge contents table: one row per piece
// of content a Knowledge ingested (agno's KnowledgeRow in agno_knowledge),
// with its processing status. Store is what a Knowledge takes as its
// contents DB; NewMemory is the in-process implementation and the
// contentstest suite is the contract every backend passes.
package contents

import (
	"context"
	"errors"
	"strings"
)

// DefaultTable is agno's default knowledge table name.
const DefaultTable = "agno_knowledge"

// ErrNotFound is returned (wrapped) for a content id that has no row.
var ErrNotFound = errors.New("contents: not found")

// Status is agno's ContentStatus.
type Status string

// Content statuses.
const (
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
)

// ParseStatus is agno's _parse_content_status: the value lower-cased,
// any unknown value containing "failed" or "completed" as that status,
// and processing otherwise.
func ParseStatus(s string) Status {
	switch st := Status(strings.ToLower(s)); st {
	case StatusProcessing, StatusCompleted, StatusFailed:
		return st
	}
	switch {
	case strings.Contains(strings.ToLower(s), "failed"):
		return StatusFailed
	case strings.Contains(strings.ToLower(s), "completed"):
		return StatusCompleted
	}
	return StatusProcessing
}

// Row is agno's KnowledgeRow.
type Row struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// Type is content.file_type (".pdf", "url") or file_data.type ("Text").
	Type          string `json:"type,omitempty"`
	Size          *int64 `json:"size,omitempty"`
	LinkedTo      string `json:"linked_to"`
	AccessCount   int    `json:"access_count"`
	Status        Status `json:"status"`
	StatusMessage string `json:"status_message"`
	// CreatedAt and UpdatedAt are epoch seconds.
	CreatedAt  int64  `json:"created_at"`
	UpdatedAt  int64  `json:"updated_at"`
	ExternalID string `json:"external_id,omitempty"`
}

// Sort orders for List.
const (
	SortAsc  = "asc"
	SortDesc = "desc"
)

// ListOptions selects and pages rows.
type ListOptions struct {
	// Limit is the page size; zero returns every row.
	Limit int
	// Page is 1-based; zero is the first page.
	Page int
	// SortBy is a column: "created_at" (default), "updated_at", "name",
	// "size", "status" or "access_count".
	SortBy string
	// SortOrder is SortAsc or SortDesc (default).
	SortOrder string
	// LinkedTo, when set, keeps rows of that knowledge base only.
	LinkedTo string
}

// Store is a contents DB. Implementations are safe for concurrent use and
// return copies, so callers may change what they get.
type Store interface {
	// Upsert inserts the row or replaces the row with its id.
	Upsert(ctx context.Context, row Row) error
	// Get returns the row with id, or an error wrapping ErrNotFound.
	Get(ctx context.Context, id string) (Row, error)
	// List returns one page of rows and the number of rows that match.
	List(ctx context.Context, opts ListOptions) ([]Row, int, error)
	// Delete removes the row with id; a missing row is not an error.
	Delete(ctx context.Context, id string) error
}
