// Package memoriesapi is the Memory route group of AgentOS: agno's
// /memories, /memory_topics, /user_memory_stats and /optimize-memories
// routes over the user memories of the OS store. It builds on the core
// (agentos/internal/httpapi) and on Host, what it needs of the OS;
// agentos serves its rows.
package memoriesapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// Host is what the group needs of the OS.
type Host interface {
	// DataStore resolves the database a data route of feature names by
	// db_id and table (agno's get_db); its error is answered as it is
	// (httpapi.Fail).
	DataStore(r *http.Request, feature, table string) (storage.Store, error)
	// NamedModel is agno's get_model("provider:id"): a model the OS
	// serves, else one of the registered provider (model.FromProvider).
	NamedModel(provider, id string) (model.Model, error)
	// MemoryModel is the model of the first served agent's memory
	// manager, which wrote the memories; nil without one.
	MemoryModel() model.Model
}

// Group is the Memory routes: New, then Routes.
type Group struct{ host Host }

// New is the group serving h's memories.
func New(h Host) *Group { return &Group{host: h} }

// Routes are agno's user-memory routes (tag Memory).
func (g *Group) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Pattern: "POST /memories", Handler: g.handleCreateMemory, Access: httpapi.Needs("memories:write"), Tag: "Memory", Summary: "Create a memory", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "GET /memories", Handler: g.handleListMemories, Access: httpapi.Needs("memories:read"), Tag: "Memory", Summary: "List memories", Query: []httpapi.Param{httpapi.UserQuery, {Name: "agent_id", Type: "string"}, {Name: "team_id", Type: "string"},
			{Name: "topics", Type: "string", Desc: "Comma-separated topics"}, {Name: "search_content", Type: "string"}, httpapi.LimitQuery, httpapi.Page0Query,
			{Name: "sort_by", Type: "string", Default: "updated_at"}, httpapi.SortOrderQuery, httpapi.DBQuery, httpapi.TableQuery},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[UserMemorySchema]"},
		{Pattern: "DELETE /memories", Handler: g.handleDeleteMemories, Access: httpapi.Needs("memories:delete"), Tag: "Memory", Summary: "Delete memories", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "memory_ids", Type: "array", Required: true}, {Name: "user_id", Type: "string"}}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memories/{memory_id}", Handler: g.handleGetMemory, Access: httpapi.Needs("memories:read"), Tag: "Memory", Summary: "Get a memory", Query: []httpapi.Param{httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Result: "UserMemorySchema"},
		{Pattern: "PATCH /memories/{memory_id}", Handler: g.handleUpdateMemory, Access: httpapi.Needs("memories:write"), Tag: "Memory", Summary: "Update a memory", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON: []httpapi.Param{{Name: "memory", Type: "string", Required: true}, {Name: "user_id", Type: "string"}, {Name: "topics", Type: "array"}}, Result: "UserMemorySchema"},
		{Pattern: "DELETE /memories/{memory_id}", Handler: g.handleDeleteMemory, Access: httpapi.Needs("memories:delete"), Tag: "Memory", Summary: "Delete a memory", Query: []httpapi.Param{httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Status: http.StatusNoContent, Result: "Deleted"},
		{Pattern: "GET /memory_topics", Handler: g.handleMemoryTopics, Access: httpapi.Needs("memories:read"), Tag: "Memory", Summary: "List memory topics", Query: []httpapi.Param{httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery}, Result: "[string]"},
		{Pattern: "GET /user_memory_stats", Handler: g.handleUserMemoryStats, Access: httpapi.Needs("memories:read"), Tag: "Memory", Summary: "Memory counts per user", Query: []httpapi.Param{httpapi.LimitQuery, httpapi.Page0Query, httpapi.UserQuery, httpapi.DBQuery, httpapi.TableQuery},
			Schema: "PaginatedResponse", Result: "PaginatedResponse[{user_id, total_memories, last_memory_updated_at}]"},
		{Pattern: "POST /optimize-memories", Handler: g.handleOptimizeMemories, Access: httpapi.Needs("memories:write"), Tag: "Memory", Summary: "Merge and shorten a user's memories", Query: []httpapi.Param{httpapi.DBQuery, httpapi.TableQuery},
			JSON:   []httpapi.Param{{Name: "user_id", Type: "string", Required: true}, {Name: "model", Type: "string", Desc: "\"provider:model_id\""}, {Name: "apply", Type: "boolean", Default: true}},
			Result: "{memories, memories_before, memories_after, tokens_before, tokens_after, tokens_saved, reduction_percentage}"},
	}
}

// feature and table are the memory routes' tag and the table they accept
// in their `table` query parameter.
const (
	feature = "Memory"
	table   = "agno_memories"
)

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
		AgentID: httpapi.NullString(m.AgentID), TeamID: httpapi.NullString(m.TeamID), UserID: httpapi.NullString(m.UserID),
		UpdatedAt: httpapi.IsoSeconds(m.UpdatedAt),
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
	b, ok := httpapi.ReadBody(w, r, true)
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
		httpapi.WriteError(w, http.StatusBadRequest, "User ID is required")
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
		return nil, httpapi.ErrStatus(http.StatusNotFound, "Memory with ID %s not found", id)
	}
	return m, err
}

// store is the database the request names (db_id, table).
func (g *Group) store(r *http.Request) (storage.Store, error) {
	return g.host.DataStore(r, feature, table)
}

// handleCreateMemory is POST /memories.
func (g *Group) handleCreateMemory(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	p, ok := readMemoryPayload(w, r)
	if !ok {
		return
	}
	now := run.Now()
	m := &storage.Memory{MemoryID: run.NewID(), Memory: p.memory, Topics: p.topics, UserID: p.userID, CreatedAt: now, UpdatedAt: now}
	saveMemory(w, r, st, m, "Failed to create memory")
}

// saveMemory upserts and answers the stored row.
func saveMemory(w http.ResponseWriter, r *http.Request, st storage.Store, m *storage.Memory, failure string) {
	if err := st.UpsertMemory(r.Context(), m); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, failure+": "+err.Error())
		return
	}
	stored, err := st.GetMemory(r.Context(), m.MemoryID)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, failure+": "+err.Error())
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, memorySchema(stored))
}

// handleUpdateMemory is PATCH /memories/{memory_id}: replaces the text and
// topics of the user's memory; its agent, team and creation time stay.
func (g *Group) handleUpdateMemory(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	p, ok := readMemoryPayload(w, r)
	if !ok {
		return
	}
	m, err := visibleMemory(r.Context(), st, r.PathValue("memory_id"), p.userID)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	m.Memory, m.Topics = p.memory, p.topics
	m.UpdatedAt = max(run.Now(), m.UpdatedAt)
	saveMemory(w, r, st, m, "Failed to update memory")
}

// handleGetMemory is GET /memories/{memory_id}?user_id=.
func (g *Group) handleGetMemory(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	m, err := visibleMemory(r.Context(), st, r.PathValue("memory_id"), r.URL.Query().Get("user_id"))
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, memorySchema(m))
}

// deleteVisibleMemories deletes the memories, only the user's when userID
// is set; unknown ids are ignored.
func deleteVisibleMemories(ctx context.Context, st storage.Store, userID string, ids ...string) error {
	ids, err := httpapi.OwnedIDs(ids, userID, func(id string) (bool, error) {
		_, err := visibleMemory(ctx, st, id, userID)
		var he *httpapi.StatusError
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
func (g *Group) handleDeleteMemory(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if err := deleteVisibleMemories(r.Context(), st, r.URL.Query().Get("user_id"), r.PathValue("memory_id")); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete memory: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleDeleteMemories is DELETE /memories with {memory_ids, user_id?}.
func (g *Group) handleDeleteMemories(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
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
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if err := deleteVisibleMemories(r.Context(), st, userID, ids...); err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to delete memories: "+err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

var memorySorts = []string{"updated_at", "created_at"}

// handleListMemories is GET /memories.
func (g *Group) handleListMemories(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	p := httpapi.NewQuery(w, r)
	q := storage.MemoryQuery{
		UserID:        p.Str("user_id"),
		AgentID:       p.Str("agent_id"),
		TeamID:        p.Str("team_id"),
		Topics:        splitTopics(p.Str("topics")),
		ContentSearch: p.Str("search_content"),
		Limit:         p.Int("limit", 20, 1, httpapi.MaxPageLimit),
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
		httpapi.Fail(w, err)
		return
	}
	took := time.Since(start)
	data := make([]UserMemorySchema, 0, len(mems))
	for _, m := range mems {
		if m.Memory != "" {
			data = append(data, memorySchema(m))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, q.Page, q.Limit, total, took))
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
func (g *Group) handleMemoryTopics(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	topics, err := st.MemoryTopics(r.Context(), r.URL.Query().Get("user_id"))
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	if topics == nil {
		topics = []string{}
	}
	httpapi.WriteJSON(w, http.StatusOK, topics)
}

// handleUserMemoryStats is GET /user_memory_stats.
func (g *Group) handleUserMemoryStats(w http.ResponseWriter, r *http.Request) {
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	p := httpapi.NewQuery(w, r)
	limit, page := p.Int("limit", 20, 1, httpapi.MaxPageLimit), p.Int("page", 1, 0, 0)
	userID := p.Str("user_id")
	if p.Bad {
		return
	}
	start := time.Now()
	stats, total, err := st.MemoryStats(r.Context(), userID, limit, page)
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to get user statistics: "+err.Error())
		return
	}
	took := time.Since(start)
	data := make([]UserStatsSchema, 0, len(stats))
	for _, s := range stats {
		data = append(data, UserStatsSchema{UserID: s.UserID, TotalMemories: s.TotalMemories, LastMemoryUpdatedAt: httpapi.IsoSeconds(s.LastMemoryUpdatedAt)})
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.Paginated(data, page, limit, total, took))
}
