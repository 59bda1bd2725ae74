// Package vectordb defines the vector store a Knowledge writes chunks to
// and searches: agno's VectorDb. Backends live in subpackages (memory here;
// SQLite and Postgres elsewhere) and all pass the vectordbtest suite.
//
// A store owns its embedder, as agno's do: Insert and Upsert embed the
// documents that have no embedding yet, and Search embeds the query.
package vectordb

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/google/uuid"
)

// Errors stores return (wrapped).
var (
	// ErrUnsupportedSearch is returned for a search type the store lacks
	// (for example vector search on Postgres without pgvector).
	ErrUnsupportedSearch = errors.New("vectordb: unsupported search type")
	// ErrDuplicate is returned by Insert for a record id already stored.
	ErrDuplicate = errors.New("vectordb: duplicate record")
	// ErrInvalidConfig is returned by constructors for unusable configs.
	ErrInvalidConfig = errors.New("vectordb: invalid config")
	// ErrNotExist is returned when writing to a table that was never
	// created or was dropped.
	ErrNotExist = errors.New("vectordb: table does not exist")
)

// SearchType is agno's SearchType.
type SearchType string

// Search types.
const (
	SearchVector  SearchType = "vector"
	SearchKeyword SearchType = "keyword"
	SearchHybrid  SearchType = "hybrid"
)

// ParseSearchType accepts agno's names; "" is returned as "".
func ParseSearchType(s string) (SearchType, error) {
	switch t := SearchType(strings.ToLower(s)); t {
	case "", SearchVector, SearchKeyword, SearchHybrid:
		return t, nil
	}
	return "", fmt.Errorf("%w: %q: use vector, keyword or hybrid", ErrUnsupportedSearch, s)
}

// Distance is agno's Distance metric.
type Distance string

// Distance metrics.
const (
	Cosine          Distance = "cosine"
	L2              Distance = "l2"
	MaxInnerProduct Distance = "max_inner_product"
)

// ScoreKey is the metadata key search results carry their score in.
const ScoreKey = "similarity_score"

// Query is one search.
type Query struct {
	Text string
	// Limit is the number of results; zero means 5, agno's default.
	Limit   int
	Filters filter.Filters
	// Type overrides the store's default search type for this query.
	Type SearchType
}

// DefaultLimit is agno's VectorDb.search limit default.
const DefaultLimit = 5

// Info describes a store.
type Info struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// DB is a vector store. Implementations are safe for concurrent use.
//
// Stored records keep the document's name, content, metadata (the
// document's metadata merged with the filters given at insert), embedding,
// usage, content id and the content hash they were inserted under. Their
// id is RecordID(doc, contentHash); search results carry that id.
type DB interface {
	Info() Info
	// Create makes the table or collection if it is missing.
	Create(ctx context.Context) error
	// Exists reports whether the table or collection exists.
	Exists(ctx context.Context) (bool, error)
	// Drop removes the table or collection.
	Drop(ctx context.Context) error

	// Insert adds documents; a record id that exists already is an error
	// wrapping ErrDuplicate.
	Insert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error
	// Upsert replaces every record stored under contentHash by docs.
	Upsert(ctx context.Context, contentHash string, docs []*document.Document, filters map[string]any) error
	// UpsertAvailable is agno's upsert_available(); a Knowledge uses
	// Insert when it is false.
	UpsertAvailable() bool

	// Search returns at most q.Limit documents, best first, with the score
	// they were ranked by in MetaData[ScoreKey] (vector and hybrid).
	Search(ctx context.Context, q Query) ([]*document.Document, error)
	// SupportedSearchTypes lists the search types Search accepts.
	SupportedSearchTypes() []SearchType

	ContentHashExists(ctx context.Context, contentHash string) (bool, error)
	IDExists(ctx context.Context, id string) (bool, error)
	NameExists(ctx context.Context, name string) (bool, error)

	// Delete removes every record (agno's delete()).
	Delete(ctx context.Context) (bool, error)
	// The DeleteBy methods report whether they removed anything.
	DeleteByID(ctx context.Context, id string) (bool, error)
	DeleteByName(ctx context.Context, name string) (bool, error)
	// DeleteByMetadata removes records whose metadata contains metadata.
	DeleteByMetadata(ctx context.Context, metadata map[string]any) (bool, error)
	DeleteByContentID(ctx context.Context, contentID string) (bool, error)

	// UpdateMetadata merges metadata into every record of contentID.
	UpdateMetadata(ctx context.Context, contentID string, metadata map[string]any) error
}

// RecordID is agno's PgVector record id, md5("{doc.id}_{content_hash}")
// with md5 of the content standing in for a missing doc id, so one
// document stored under two content hashes is two records.
func RecordID(doc *document.Document, contentHash string) string {
	base := doc.ID
	if base == "" {
		sum := md5.Sum([]byte(CleanContent(doc.Content)))
		base = hex.EncodeToString(sum[:])
	}
	sum := md5.Sum([]byte(base + "_" + contentHash))
	return hex.EncodeToString(sum[:])
}

// CleanContent replaces NUL characters, which Postgres text rejects, by
// U+FFFD as agno's PgVector does before storing.
func CleanContent(s string) string { return strings.ReplaceAll(s, "\x00", "\ufffd") }

// DefaultID is agno's VectorDb id default: uuid5(NAMESPACE_DNS, name).
func DefaultID(name string) string { return uuid.NewSHA1(uuid.NameSpaceDNS, []byte(name)).String() }

// ValidateThreshold checks agno's similarity_threshold range.
func ValidateThreshold(t *float64) error {
	if t != nil && (math.IsNaN(*t) || *t < 0 || *t > 1) {
		return fmt.Errorf("%w: similarity_threshold must be between 0.0 and 1.0, got %v", ErrInvalidConfig, *t)
	}
	return nil
}

// EmbedDocuments embeds, in one Embed call, the documents that have no
// embedding yet, and sets their Embedding and Usage. The call's usage is
// shared out over the documents in proportion to their length.
func EmbedDocuments(ctx context.Context, e embedder.Embedder, docs []*document.Document) error {
	var todo []*document.Document
	for _, d := range docs {
		if d.Embedding == nil {
			todo = append(todo, d)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if e == nil {
		return fmt.Errorf("%w: documents need embeddings but the store has no embedder", ErrInvalidConfig)
	}
	texts := make([]string, len(todo))
	total := 0
	for i, d := range todo {
		texts[i] = d.Content
		total += len(d.Content)
	}
	vecs, usage, err := e.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("vectordb: embedding %d documents: %w", len(todo), err)
	}
	if len(vecs) != len(todo) {
		return fmt.Errorf("vectordb: embedder returned %d vectors for %d documents", len(vecs), len(todo))
	}
	for i, d := range todo {
		d.Embedding = vecs[i]
		share := 1.0 / float64(len(todo))
		if total > 0 {
			share = float64(len(d.Content)) / float64(total)
		}
		d.Usage = &embedder.Usage{
			PromptTokens: int(math.Round(share * float64(usage.PromptTokens))),
			TotalTokens:  int(math.Round(share * float64(usage.TotalTokens))),
		}
	}
	return nil
}

// NormalizeScore is agno's vectordb.score.normalize_score: cosine distance
// d gives clamp(1-d), l2 gives 1/(1+d), and an inner product ip gives
// clamp((ip+1)/2). NaN and infinite distances give 0 (an infinite inner
// product gives 1).
func NormalizeScore(d float64, metric Distance) float64 {
	if math.IsNaN(d) {
		return 0
	}
	switch metric {
	case L2:
		if math.IsInf(d, 0) {
			return 0
		}
		return 1 / (1 + d)
	case MaxInnerProduct:
		if math.IsInf(d, 1) {
			return 1
		}
		if math.IsInf(d, -1) {
			return 0
		}
		return clamp01((d + 1) / 2)
	default:
		if math.IsInf(d, 0) {
			return 0
		}
		return clamp01(1 - d)
	}
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }

// DefaultRRFK is the k of reciprocal rank fusion, as in the RRF paper and
// most hybrid search engines.
const DefaultRRFK = 60

// Fused is one entry of a fused ranking.
type Fused struct {
	ID    string
	Score float64
}

// FuseRRF merges rankings (ids, best first) by reciprocal rank fusion:
// each id scores the sum of 1/(k+rank) over the rankings it appears in,
// rank counting from 1. Scores are divided by the best possible score,
// len(rankings)/(k+1), so an id ranked first everywhere scores 1. Ties
// keep the order of first appearance.
func FuseRRF(k int, rankings ...[]string) []Fused {
	if k <= 0 {
		k = DefaultRRFK
	}
	scores := map[string]float64{}
	var order []string
	for _, ranking := range rankings {
		for i, id := range ranking {
			if _, seen := scores[id]; !seen {
				order = append(order, id)
			}
			scores[id] += 1 / float64(k+i+1)
		}
	}
	best := float64(len(rankings)) / float64(k+1)
	out := make([]Fused, len(order))
	for i, id := range order {
		out[i] = Fused{ID: id, Score: scores[id] / best}
	}
	slices.SortStableFunc(out, func(a, b Fused) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}
