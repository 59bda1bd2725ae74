package contents

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/agno-go/agno/internal/keyorder"
)

// Memory is a Store in process memory.
type Memory struct {
	mu   sync.RWMutex
	rows map[string]Row
	// The ids by creation and by update (the SQL stores' indexed orders),
	// of every knowledge base ("") and of each.
	created, updated keyorder.Order[string]
}

var _ Store = (*Memory)(nil)

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{rows: map[string]Row{}, created: keyorder.Order[string]{}, updated: keyorder.Order[string]{}}
}

// scopes are the listings r is in: every knowledge base's, and its own.
func scopes(r Row) []string {
	if r.LinkedTo == "" {
		return []string{""}
	}
	return []string{"", r.LinkedTo}
}

func (m *Memory) place(r Row) {
	m.created.Add(keyorder.Key{At: r.CreatedAt, ID: r.ID}, scopes(r))
	m.updated.Add(keyorder.Key{At: r.UpdatedAt, ID: r.ID}, scopes(r))
}

func (m *Memory) unplace(r Row) {
	m.created.Remove(keyorder.Key{At: r.CreatedAt, ID: r.ID}, scopes(r))
	m.updated.Remove(keyorder.Key{At: r.UpdatedAt, ID: r.ID}, scopes(r))
}

// Upsert implements Store.
func (m *Memory) Upsert(ctx context.Context, row Row) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if row.ID == "" {
		return fmt.Errorf("contents: row id is empty")
	}
	c, err := clone(row)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.rows[row.ID]; ok {
		m.unplace(old)
	}
	m.rows[row.ID] = c
	m.place(c)
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, id string) (Row, error) {
	if err := ctx.Err(); err != nil {
		return Row{}, err
	}
	m.mu.RLock()
	row, ok := m.rows[id]
	m.mu.RUnlock()
	if !ok {
		return Row{}, fmt.Errorf("%w: content %q", ErrNotFound, id)
	}
	return clone(row)
}

// List implements Store.
func (m *Memory) List(ctx context.Context, opts ListOptions) ([]Row, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	less, err := sorter(opts.SortBy)
	if err != nil {
		return nil, 0, err
	}
	desc := opts.SortOrder != SortAsc
	var ord keyorder.Order[string]
	switch opts.SortBy {
	case "", "created_at":
		ord = m.created
	case "updated_at":
		ord = m.updated
	}
	if ord != nil {
		// One page of an order kept by the writes.
		m.mu.RLock()
		ids, total := ord.Window(opts.LinkedTo, !desc, opts.Limit, opts.Page)
		rows := make([]Row, len(ids))
		for i, id := range ids {
			rows[i] = m.rows[id]
		}
		m.mu.RUnlock()
		return cloneAll(rows, total)
	}
	m.mu.RLock()
	rows := make([]Row, 0, len(m.rows))
	for _, r := range m.rows {
		if opts.LinkedTo == "" || r.LinkedTo == opts.LinkedTo {
			rows = append(rows, r)
		}
	}
	m.mu.RUnlock()
	// The tie-break id runs in the sort's direction, as the SQL stores'
	// (one index serves a column both ways).
	slices.SortFunc(rows, func(a, b Row) int {
		c := cmp.Or(less(a, b), cmp.Compare(a.ID, b.ID))
		if desc {
			c = -c
		}
		return c
	})
	start, end := keyorder.PageRange(len(rows), opts.Limit, opts.Page)
	return cloneAll(rows[start:end], len(rows))
}

// cloneAll is a page of rows, copied, with the listing's total.
func cloneAll(rows []Row, total int) ([]Row, int, error) {
	out := make([]Row, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = clone(r); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.rows[id]; ok {
		m.unplace(old)
		delete(m.rows, id)
	}
	return nil
}

// sorter returns the comparison for a ListOptions.SortBy column.
func sorter(column string) (func(a, b Row) int, error) {
	switch column {
	case "", "created_at":
		return func(a, b Row) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) }, nil
	case "updated_at":
		return func(a, b Row) int { return cmp.Compare(a.UpdatedAt, b.UpdatedAt) }, nil
	case "name":
		return func(a, b Row) int { return cmp.Compare(a.Name, b.Name) }, nil
	case "status":
		return func(a, b Row) int { return cmp.Compare(a.Status, b.Status) }, nil
	case "access_count":
		return func(a, b Row) int { return cmp.Compare(a.AccessCount, b.AccessCount) }, nil
	case "size":
		return func(a, b Row) int { return cmp.Compare(sizeOf(a), sizeOf(b)) }, nil
	}
	return nil, fmt.Errorf("contents: cannot sort by %q: use created_at, updated_at, name, size, status or access_count", column)
}

func sizeOf(r Row) int64 {
	if r.Size == nil {
		return -1
	}
	return *r.Size
}

// clone deep-copies a row through JSON so nested metadata is not shared.
func clone(r Row) (Row, error) {
	if r.Size != nil {
		s := *r.Size
		r.Size = &s
	}
	if r.Metadata == nil {
		return r, nil
	}
	b, err := json.Marshal(r.Metadata)
	if err != nil {
		return Row{}, fmt.Errorf("contents: metadata of %q is not JSON: %w", r.ID, err)
	}
	var md map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&md); err != nil {
		return Row{}, err
	}
	r.Metadata = md
	return r, nil
}
