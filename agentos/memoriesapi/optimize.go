package memoriesapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agno-go/agno/agentos/internal/httpapi"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
)

// summarizePrompt is the system prompt of agno's SummarizeStrategy.
const summarizePrompt = `You are a memory compression assistant. Your task is to summarize multiple memories about a user
into a single comprehensive summary while preserving all key facts.

Requirements:
- Combine related information from all memories
- Preserve all factual information
- Remove redundancy and consolidate repeated facts
- Create a coherent narrative about the user
- Maintain third-person perspective
- Do not add information not present in the original memories

Return only the summarized memory text, nothing else.`

// defaultOptimizeModel is the model agno's MemoryManager falls back to.
const defaultOptimizeModel = "openai:gpt-4o"

// handleOptimizeMemories is POST /optimize-memories {user_id, model?,
// apply=true}: agno's summarize strategy, one model call that merges the
// user's memories into one. With apply the merged memory replaces them.
func (g *Group) handleOptimizeMemories(w http.ResponseWriter, r *http.Request) {
	b, ok := httpapi.ReadBody(w, r, true)
	if !ok {
		return
	}
	var userID, modelSpec string
	apply := true
	b.Require("user_id", &userID)
	b.Get("model", &modelSpec)
	b.Get("apply", &apply)
	if b.Bad {
		return
	}
	st, err := g.store(r)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	m, err := g.optimizeModel(modelSpec)
	if err != nil {
		httpapi.Fail(w, err)
		return
	}
	ctx := r.Context()
	mems, _, err := st.ListMemories(ctx, storage.MemoryQuery{UserID: userID, SortBy: "created_at", SortOrder: storage.Asc})
	if err != nil {
		httpapi.WriteError(w, http.StatusInternalServerError, "Failed to optimize memories: "+err.Error())
		return
	}
	if len(mems) == 0 {
		httpapi.WriteError(w, http.StatusNotFound, "No memories found for user "+userID)
		return
	}
	merged, err := summarizeMemories(ctx, m, userID, mems)
	if err != nil {
		httpapi.WriteError(w, http.StatusBadGateway, "Failed to optimize memories: the model call failed: "+err.Error())
		return
	}
	if apply {
		if err := replaceMemories(ctx, st, mems, merged); err != nil {
			httpapi.WriteError(w, http.StatusInternalServerError, "Failed to optimize memories: "+err.Error())
			return
		}
	}
	before, after := memoryTokens(mems...), memoryTokens(merged)
	// The response schema bounds both at 0: a longer summary saves nothing.
	saved, reduction := max(0, before-after), 0.0
	if before > 0 {
		reduction = max(0, float64(before-after)/float64(before)*100)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{
		"memories": []UserMemorySchema{memorySchema(merged)}, "memories_before": len(mems), "memories_after": 1,
		"tokens_before": before, "tokens_after": after, "tokens_saved": saved, "reduction_percentage": reduction,
	})
}

// optimizeModel resolves the model that merges memories. A "provider:id"
// names a model this AgentOS already serves (so its endpoint and key are
// the configured ones), else one built from the provider's API key
// variable. Without one, the model of the first agent's memory manager is
// used (it wrote the memories); failing that, agno's default gpt-4o.
func (g *Group) optimizeModel(spec string) (model.Model, error) {
	named := spec != ""
	if spec == "" {
		if m := g.host.MemoryModel(); m != nil {
			return m, nil
		}
		spec = defaultOptimizeModel
	}
	provider, id, err := model.ParseModelString(spec)
	if err != nil {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Invalid model string format: '%s'. Model strings should be in format '<provider>:<model_id>' e.g. 'openai:gpt-4o'", spec)
	}
	m, err := g.host.NamedModel(provider, id)
	if errors.Is(err, model.ErrUnknownProvider) {
		return nil, httpapi.ErrStatus(http.StatusBadRequest, "Model provider '%s' is not supported here: use one of %s, or a model this AgentOS serves", provider, strings.Join(model.ProviderNames(), ", "))
	}
	if err != nil {
		// No key for the model: the client's choice (400), or the default
		// this server cannot use (503). Neither is a server fault.
		status, fix := http.StatusBadRequest, "name another model in the model field: one this AgentOS serves (GET /models)"
		if !named {
			status, fix = http.StatusServiceUnavailable, "send model=<provider:id> of a model this AgentOS serves (GET /models), or give the server the key"
		}
		return nil, httpapi.ErrStatus(status, "Failed to optimize memories: model '%s' cannot be used: %v; %s", spec, err, fix)
	}
	return m, nil
}

// summarizeMemories is agno's SummarizeStrategy.optimize: every memory's
// text goes to the model in one request; topics are merged and the agent
// or team kept when all memories share it. An empty answer keeps the
// memories' texts joined.
func summarizeMemories(ctx context.Context, m model.Model, userID string, mems []*storage.Memory) (*storage.Memory, error) {
	var texts, topics []string
	agents, teams := map[string]bool{}, map[string]bool{}
	for _, mem := range mems {
		if mem.Memory != "" {
			texts = append(texts, mem.Memory)
		}
		for _, t := range mem.Topics {
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
		if mem.AgentID != "" {
			agents[mem.AgentID] = true
		}
		if mem.TeamID != "" {
			teams[mem.TeamID] = true
		}
	}
	numbered := make([]string, len(texts))
	for i, t := range texts {
		numbered[i] = fmt.Sprintf("Memory %d: %s", i+1, t)
	}
	resp, err := model.Collect(m.Generate(ctx, &model.Request{Messages: []model.Message{
		{Role: model.RoleSystem, Content: summarizePrompt},
		{Role: model.RoleUser, Content: "Summarize these memories into a single summary:\n\n" + strings.Join(numbered, "\n\n")},
	}}))
	if err != nil {
		return nil, err
	}
	text := resp.Content
	if text == "" {
		text = strings.Join(texts, " ")
	}
	now := run.Now()
	return &storage.Memory{MemoryID: run.NewID(), Memory: strings.TrimSpace(text), Topics: topics, UserID: userID,
		AgentID: only(agents), TeamID: only(teams), CreatedAt: now, UpdatedAt: now}, nil
}

// only returns the single key of set, or "" when there are none or many.
func only(set map[string]bool) string {
	if len(set) != 1 {
		return ""
	}
	for k := range set {
		return k
	}
	return ""
}

// replaceMemories puts merged in place of old (agno clears the user's
// memories, then upserts the optimized ones; storing first loses nothing
// if the store fails half way).
func replaceMemories(ctx context.Context, st storage.Store, old []*storage.Memory, merged *storage.Memory) error {
	if err := st.UpsertMemory(ctx, merged); err != nil {
		return err
	}
	ids := make([]string, len(old))
	for i, m := range old {
		ids[i] = m.MemoryID
	}
	return st.DeleteMemories(ctx, ids...)
}

// memoryTokens counts tokens as agno does without tiktoken: a quarter of
// the characters of each memory.
func memoryTokens(mems ...*storage.Memory) int {
	n := 0
	for _, m := range mems {
		n += utf8.RuneCountInString(m.Memory) / 4
	}
	return n
}
