package agentos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// memoryAPIRoutes are agno's user-memory routes (tag Memory).
func (o *OS) memoryAPIRoutes() []apiRoute {
	return []apiRoute{
		{Pattern: "POST /memories", Handler: o.handleCreateMemory, Access: needs("memories:write"), Tag: "Memory", Summary: "Create a memory", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "GET /memories", Handler: o.handleListMemories, Access: needs("memories:read"), Tag: "Memory", Summary: "List memories", Query: []apiParam{pUserQ, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"},
			{Name: "topics", Type: "string", Desc: "Comma-separated topics"}, {Name: "search_content", Type: "string"}, pLimitQ, pPage0Q,
			{Name: "sort_by", Type: "string", Default: "updated_at"}, pSortOrderQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[UserMemorySchema]"},
		{Pattern: "DELETE /memories", Handler: o.handleDeleteMemories, Access: needs("memories:delete"), Tag: "Memory", Summary: "Delete memories", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory_ids", Type: "array", Required: true}, {Name: "user_id", Type: "string"}}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memories/{memory_id}", Handler: o.handleGetMemory, Access: needs("memories:read"), Tag: "Memory", Summary: "Get a memory", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Result: "UserMemorySchema"},
		{Pattern: "PATCH /memories/{memory_id}", Handler: o.handleUpdateMemory, Access: needs("memories:write"), Tag: "Memory", Summary: "Update a memory", Query: []apiParam{pDBQ, pTableQ},
			JSON: []apiParam{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "DELETE /memories/{memory_id}", Handler: o.handleDeleteMemory, Access: needs("memories:delete"), Tag: "Memory", Summary: "Delete a memory", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memory_topics", Handler: o.handleMemoryTopics, Access: needs("memories:read"), Tag: "Memory", Summary: "List memory topics", Query: []apiParam{pUserQ, pDBQ, pTableQ}, Result: "[string]"},
		{Pattern: "GET /user_memory_stats", Handler: o.handleUserMemoryStats, Access: needs("memories:read"), Tag: "Memory", Summary: "Memory counts per user", Query: []apiParam{pLimitQ, pPage0Q, pUserQ, pDBQ, pTableQ},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[{user_id, total_memories, last_memory_updated_at}]"},
		{Pattern: "POST /optimize-memories", Handler: o.handleOptimizeMemories, Access: needs("memories:write"), Tag: "Memory", Summary: "Merge and shorten a user's memories", Query: []apiParam{pDBQ, pTableQ},
			JSON:   []apiParam{{Name: "user_id", Type: "string", Required: true}, {Name: "model", Type: "string", Desc: "\"provider:model_id\""}, {Name: "apply", Type: "boolean", Default: true}},
			Result: "{memories, memories_before, memories_after, tokens_before, tokens_after, tokens_saved, reduction_percentage}"},
	}
}

const memoryFeature = "Memory"

// maxMemoryChars is UserMemoryCreateSchema's max_length.
const maxMemoryChars = 5000

// UserMemorySchema is agno's UserMemorySchema; every field is present
// (the memory routes keep None).
type UserMemorySchema struct {
	MemoryID  string   `json:"memory_id"`
	Memory    string   `json:"memory"`
	Topics    []string `json:"topics"`
	AgentID   *string  `json:"agent_id"`
	TeamID    *string  `json:"team_id"`
	UserID    *string  `json:"user_id"`
	UpdatedAt any      `json:"updated_at"`
}

// UserStatsSchema is agno's UserStatsSchema (GET /user_memory_stats).
type UserStatsSchema struct {
	UserID              string `json:"user_id"`
	TotalMemories       int    `json:"total_memories"`
	LastMemoryUpdatedAt any    `json:"last_memory_updated_at"`
}

func memorySchema(m *storage.Memory) UserMemorySchema {
	topics := m.Topics
	if topics == nil {
		topics = []string{}
	}
	return UserMemorySchema{
		MemoryID: m.MemoryID, Memory: m.Memory, Topics: topics,
		AgentID: nullString(m.AgentID), TeamID: nullString(m.TeamID), UserID: nullString(m.UserID),
		UpdatedAt: isoSeconds(m.UpdatedAt),
	}
}

// memoryPayload is UserMemoryCreateSchema: memory (1..5000 characters),
// user_id, topics.
type memoryPayload struct {
	memory string
	userID string
	topics []string
}

// readMemoryPayload validates the body of POST and PATCH /memories: 422
// for a bad field, 400 when no user_id is given.
func readMemoryPayload(w http.ResponseWriter, r *http.Request) (*memoryPayload, bool) {
	b, ok := readBody(w, r, true)
	if !ok {
		return nil, false
	}
	var p memoryPayload
	b.Require("memory", &p.memory)
	b.Get("user_id", &p.userID)
	b.Get("topics", &p.topics)
	if b.Bad {
		return nil, false
	}
	switch n := utf8.RuneCountInString(p.memory); {
	case n < 1:
		b.RejectCtx([]string{"memory"}, "String should have at least 1 character", "string_too_short", map[string]any{"min_length": 1})
		return nil, false
	case n > maxMemoryChars:
		b.RejectCtx([]string{"memory"}, fmt.Sprintf("String should have at most %d characters", maxMemoryChars), "string_too_long", map[string]any{"max_length": maxMemoryChars})
		return nil, false
	}
	if p.userID == "" {
		writeError(w, http.StatusBadRequest, "User ID is required")
		return nil, false
	}
	if p.topics == nil {
		p.topics = []string{}
	}
	return &p, true
}

// visibleMemory loads a memory, hiding another user's as not found.
func visibleMemory(ctx context.Context, st storage.Store, id, userID string) (*storage.Memory, error) {
	m, err := st.GetMemory(ctx, id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && userID != "" && m.UserID != userID) {
		return nil, errStatus(http.StatusNotFound, "Memory with ID %s not found", id)
	}
	return m, err
}

// handleCreateMemory is POST /memories.
func (o *OS) handleCreateMemory(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	p, ok := readMemoryPayload(w, r)
	if !ok {
		return
	}
	now := run.Now()
	m := &storage.Memory{MemoryID: run.NewID(), Memory: p.memory, Topics: p.topics, UserID: p.userID, CreatedAt: now, UpdatedAt: now}
	o.saveMemory(w, r, st, m, "Failed to create memory")
}

// saveMemory upserts and answers the stored row.
func (o *OS) saveMemory(w http.ResponseWriter, r *http.Request, st storage.Store, m *storage.Memory, failure string) {
	if err := st.UpsertMemory(r.Context(), m); err != nil {
		writeError(w, http.StatusInternalServerError, failure+": "+err.Error())
		return
	}
	stored, err := st.GetMemory(r.Context(), m.MemoryID)
	if err != nil {
		writeError(w, http.StatusInternalServerError, failure+": "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, memorySchema(stored))
}

// handleUpdateMemory is PATCH /memories/{memory_id}: replaces the text and
// topics of the user's memory; its agent, team and creation time stay.
func (o *OS) handleUpdateMemory(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	p, ok := readMemoryPayload(w, r)
	if !ok {
		return
	}
	m, err := visibleMemory(r.Context(), st, r.PathValue("memory_id"), p.userID)
	if err != nil {
		fail(w, err)
		return
	}
	m.Memory, m.Topics = p.memory, p.topics
	m.UpdatedAt = max(run.Now(), m.UpdatedAt)
	o.saveMemory(w, r, st, m, "Failed to update memory")
}

// handleGetMemory is GET /memories/{memory_id}?user_id=.
func (o *OS) handleGetMemory(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	m, err := visibleMemory(r.Context(), st, r.PathValue("memory_id"), r.URL.Query().Get("user_id"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, memorySchema(m))
}

// deleteVisibleMemories deletes the memories, only the user's when userID
// is set; unknown ids are ignored.
func deleteVisibleMemories(ctx context.Context, st storage.Store, userID string, ids ...string) error {
	ids, err := ownedIDs(ids, userID, func(id string) (bool, error) {
		_, err := visibleMemory(ctx, st, id, userID)
		var he *httpError
		if errors.As(err, &he) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	return st.DeleteMemories(ctx, ids...)
}

// handleDeleteMemory is DELETE /memories/{memory_id}?user_id=: 204.
func (o *OS) handleDeleteMemory(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	if err := deleteVisibleMemories(r.Context(), st, r.URL.Query().Get("user_id"), r.PathValue("memory_id")); err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to delete memory: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleDeleteMemories is DELETE /memories with {memory_ids, user_id?}.
func (o *OS) handleDeleteMemories(w http.ResponseWriter, r *http.Request) {
	b, ok := readBody(w, r, true)
	if !ok {
		return
	}
	var ids []string
	var userID string
	b.Require("memory_ids", &ids)
	b.Get("user_id", &userID)
	if b.Bad {
		return
	}
	if len(ids) == 0 {
		b.RejectCtx([]string{"memory_ids"}, "List should have at least 1 item after validation, not 0", "too_short", map[string]any{"field_type": "List", "min_length": 1, "actual_length": 0})
		return
	}
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	if err := deleteVisibleMemories(r.Context(), st, userID, ids...); err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to delete memories: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

var memorySorts = []string{"updated_at", "created_at"}

// handleListMemories is GET /memories.
func (o *OS) handleListMemories(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	p := newQueryParams(w, r)
	q := storage.MemoryQuery{
		UserID:        p.Str("user_id"),
		AgentID:       p.Str("agent_id"),
		TeamID:        p.Str("team_id"),
		Topics:        splitTopics(p.Str("topics")),
		ContentSearch: p.Str("search_content"),
		Limit:         p.Int("limit", 20, 1, maxPageLimit),
		Page:          p.Int("page", 1, 0, 0),
		SortBy:        p.Enum("sort_by", "updated_at", memorySorts...),
		SortOrder:     p.SortOrder(),
	}
	if p.Bad {
		return
	}
	start := time.Now()
	mems, total, err := st.ListMemories(r.Context(), q)
	if err != nil {
		fail(w, err)
		return
	}
	took := time.Since(start)
	data := make([]UserMemorySchema, 0, len(mems))
	for _, m := range mems {
		if m.Memory != "" {
			data = append(data, memorySchema(m))
		}
	}
	writeJSON(w, http.StatusOK, paginatedResponse(data, q.Page, q.Limit, total, took))
}

// splitTopics parses agno's comma-separated topics filter.
func splitTopics(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// handleMemoryTopics is GET /memory_topics?user_id=.
func (o *OS) handleMemoryTopics(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	topics, err := st.MemoryTopics(r.Context(), r.URL.Query().Get("user_id"))
	if err != nil {
		fail(w, err)
		return
	}
	if topics == nil {
		topics = []string{}
	}
	writeJSON(w, http.StatusOK, topics)
}

// handleUserMemoryStats is GET /user_memory_stats.
func (o *OS) handleUserMemoryStats(w http.ResponseWriter, r *http.Request) {
	st, err := o.dataStore(r, memoryFeature, memoryTable)
	if err != nil {
		fail(w, err)
		return
	}
	p := newQueryParams(w, r)
	limit, page := p.Int("limit", 20, 1, maxPageLimit), p.Int("page", 1, 0, 0)
	userID := p.Str("user_id")
	if p.Bad {
		return
	}
	start := time.Now()
	stats, total, err := st.MemoryStats(r.Context(), userID, limit, page)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "Failed to get user statistics: "+err.Error())
		return
	}
	took := time.Since(start)
	data := make([]UserStatsSchema, 0, len(stats))
	for _, s := range stats {
		data = append(data, UserStatsSchema{UserID: s.UserID, TotalMemories: s.TotalMemories, LastMemoryUpdatedAt: isoSeconds(s.LastMemoryUpdatedAt)})
	}
	writeJSON(w, http.StatusOK, paginatedResponse(data, page, limit, total, took))
}
