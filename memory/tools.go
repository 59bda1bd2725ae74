package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
	"github.com/google/uuid"
)

// Tool names, descriptions and schemas as agno's Function.from_callable
// (strict=True) renders the manager's db tools: the docstring summary is the
// description, "(type) text" the parameter descriptions, every property
// required and no extra properties.
const (
	addMemoryName    = "add_memory"
	updateMemoryName = "update_memory"
	deleteMemoryName = "delete_memory"
	clearMemoryName  = "clear_memory"

	addMemoryDescription    = "Use this function to add a memory to the database."
	updateMemoryDescription = "Use this function to update an existing memory in the database."
	deleteMemoryDescription = "Use this function to delete a single memory from the database."
	clearMemoryDescription  = "Use this function to remove all (or clear all) memories from the database."

	topicsSchema = `"topics":{"type":"array","items":{"type":"string"},"description":"(Optional[List[str]]) The topics of the memory (e.g. [\"name\", \"hobbies\", \"location\"])."}`

	addMemorySchema = `{"type":"object","properties":{` +
		`"memory":{"type":"string","description":"(str) The memory to be added."},` + topicsSchema +
		`},"additionalProperties":false,"required":["memory","topics"]}`
	updateMemorySchema = `{"type":"object","properties":{` +
		`"memory_id":{"type":"string","description":"(str) The id of the memory to be updated."},` +
		`"memory":{"type":"string","description":"(str) The updated memory."},` + topicsSchema +
		`},"additionalProperties":false,"required":["memory_id","memory","topics"]}`
	deleteMemorySchema = `{"type":"object","properties":{` +
		`"memory_id":{"type":"string","description":"(str) The id of the memory to be deleted."}` +
		`},"additionalProperties":false,"required":["memory_id"]}`
	clearMemorySchema = `{"type":"object","properties":{},"additionalProperties":false,"required":[]}`
)

// Tool results agno returns to the manager's model.
const (
	memoryAdded       = "Memory added successfully"
	memoryUpdated     = "Memory updated successfully"
	memoryDeleted     = "Memory deleted successfully"
	memoryCleared     = "Memory cleared successfully"
	emptyUpdate       = "Can't update memory with empty string. Use the delete memory function if available."
	addErrorPrefix    = "Error adding memory: "
	deleteErrorPrefix = "Error deleting memory: "
	unknownToolText   = "Error: The requested tool does not exist or is not available."
	noResponseText    = "No response from model"
)

// maxToolRounds bounds the manager's model ↔ tool loop. agno has no bound;
// a model that never stops calling tools would otherwise spend forever.
const maxToolRounds = 10

type addArgs struct {
	Memory string   `json:"memory"`
	Topics []string `json:"topics"`
}

func (addArgs) JSONSchema() json.RawMessage { return json.RawMessage(addMemorySchema) }

type updateArgs struct {
	MemoryID string   `json:"memory_id"`
	Memory   string   `json:"memory"`
	Topics   []string `json:"topics"`
}

func (updateArgs) JSONSchema() json.RawMessage { return json.RawMessage(updateMemorySchema) }

type deleteArgs struct {
	MemoryID string `json:"memory_id"`
}

func (deleteArgs) JSONSchema() json.RawMessage { return json.RawMessage(deleteMemorySchema) }

type clearArgs struct{}

func (clearArgs) JSONSchema() json.RawMessage { return json.RawMessage(clearMemorySchema) }

// scope is who a manager call writes for: new memories carry these ids and
// input; every tool only touches memories of userID.
type scope struct {
	userID, agentID, teamID string
	input                   string
}

type scopeKey struct{}

// withScope attaches the scope the memory tools act in. The tools are
// built once per Manager and shared by all calls; the scope travels in the
// context of each call.
func withScope(ctx context.Context, sc scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, sc)
}

func scopeFrom(ctx context.Context) (scope, error) {
	sc, ok := ctx.Value(scopeKey{}).(scope)
	if !ok {
		return scope{}, errors.New("memory: tool called outside a manager call")
	}
	return sc, nil
}

// buildTools builds the four memory tools. Each acts for the scope in its
// context.
func (m *Manager) buildTools() (map[string]*tool.Function, error) {
	fns := map[string]*tool.Function{}
	add := func(f *tool.Function, err error) error {
		if err != nil {
			return err
		}
		fns[f.Name] = f
		return nil
	}
	err := errors.Join(
		add(tool.New(addMemoryName, addMemoryDescription, func(ctx context.Context, a addArgs) (string, error) {
			sc, err := scopeFrom(ctx)
			if err != nil {
				return "", err
			}
			return m.addMemory(ctx, sc, a), nil
		}, tool.Strict())),
		add(tool.New(updateMemoryName, updateMemoryDescription, func(ctx context.Context, a updateArgs) (string, error) {
			sc, err := scopeFrom(ctx)
			if err != nil {
				return "", err
			}
			return m.updateMemory(ctx, sc, a), nil
		}, tool.Strict())),
		add(tool.New(deleteMemoryName, deleteMemoryDescription, func(ctx context.Context, a deleteArgs) (string, error) {
			sc, err := scopeFrom(ctx)
			if err != nil {
				return "", err
			}
			return m.deleteMemory(ctx, sc, a.MemoryID), nil
		}, tool.Strict())),
		add(tool.New(clearMemoryName, clearMemoryDescription, func(ctx context.Context, _ clearArgs) (string, error) {
			sc, err := scopeFrom(ctx)
			if err != nil {
				return "", err
			}
			return m.clearMemories(ctx, sc)
		}, tool.Strict())),
	)
	return fns, err
}

// enabled returns the tools of ts, sorted by name as agno sends tools to
// providers.
func (m *Manager) enabled(ts toolSet) []*tool.Function {
	out := make([]*tool.Function, 0, 4)
	for _, t := range []struct {
		name string
		on   bool
	}{{addMemoryName, ts.add}, {clearMemoryName, ts.clear}, {deleteMemoryName, ts.del}, {updateMemoryName, ts.update}} {
		if t.on {
			out = append(out, m.memTools[t.name])
		}
	}
	return out
}

func (m *Manager) addMemory(ctx context.Context, sc scope, a addArgs) string {
	now := run.Now()
	mem := &storage.Memory{
		MemoryID:  newMemoryID(),
		Memory:    a.Memory,
		Topics:    a.Topics,
		UserID:    sc.userID,
		AgentID:   sc.agentID,
		TeamID:    sc.teamID,
		Input:     sc.input,
		CreatedAt: now,
		UpdatedAt: now,
	}
	if err := m.store.UpsertMemory(ctx, mem); err != nil {
		m.log.Warn("memory: error storing memory", "user_id", sc.userID, "error", err)
		return addErrorPrefix + err.Error()
	}
	m.log.Debug("memory: added", "memory_id", mem.MemoryID, "user_id", sc.userID)
	return memoryAdded
}

// updateMemory rewrites a memory of this user. Unlike agno, an id that is
// not one of the user's memories is refused instead of written, so a
// model cannot create memories under made-up ids or take over another
// user's memory; agent_id, team_id and created_at are kept.
func (m *Manager) updateMemory(ctx context.Context, sc scope, a updateArgs) string {
	if a.Memory == "" {
		return emptyUpdate
	}
	cur, err := m.ownMemory(ctx, sc.userID, a.MemoryID)
	if err != nil {
		m.log.Warn("memory: error updating memory", "memory_id", a.MemoryID, "user_id", sc.userID, "error", err)
		return addErrorPrefix + err.Error()
	}
	cur.Memory = a.Memory
	cur.Topics = a.Topics
	cur.Input = sc.input
	cur.UpdatedAt = run.Now()
	if err := m.store.UpsertMemory(ctx, cur); err != nil {
		m.log.Warn("memory: error storing memory", "memory_id", a.MemoryID, "error", err)
		return addErrorPrefix + err.Error()
	}
	m.log.Debug("memory: updated", "memory_id", a.MemoryID, "user_id", sc.userID)
	return memoryUpdated
}

// deleteMemory deletes a memory of this user. Like agno's delete scoped by
// user_id, an id that is not the user's deletes nothing and still reports
// success.
func (m *Manager) deleteMemory(ctx context.Context, sc scope, id string) string {
	if _, err := m.ownMemory(ctx, sc.userID, id); err != nil {
		if errors.Is(err, errNotOwned) {
			m.log.Debug("memory: nothing to delete", "memory_id", id, "user_id", sc.userID)
			return memoryDeleted
		}
		m.log.Warn("memory: error deleting memory", "memory_id", id, "error", err)
		return deleteErrorPrefix + err.Error()
	}
	if err := m.store.DeleteMemories(ctx, id); err != nil {
		m.log.Warn("memory: error deleting memory", "memory_id", id, "error", err)
		return deleteErrorPrefix + err.Error()
	}
	m.log.Debug("memory: deleted", "memory_id", id, "user_id", sc.userID)
	return memoryDeleted
}

// clearMemories deletes every memory of this user. agno's clear_memory
// empties the whole table, every user's memories; here it is scoped.
func (m *Manager) clearMemories(ctx context.Context, sc scope) (string, error) {
	mems, err := m.UserMemories(ctx, sc.userID)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(mems))
	for i, mem := range mems {
		ids[i] = mem.MemoryID
	}
	if err := m.store.DeleteMemories(ctx, ids...); err != nil {
		return "", fmt.Errorf("clear memories of user %q: %w", sc.userID, err)
	}
	m.log.Debug("memory: cleared", "user_id", sc.userID, "count", len(ids))
	return memoryCleared, nil
}

var errNotOwned = errors.New("not found for this user")

// ownMemory returns the memory if it belongs to userID.
func (m *Manager) ownMemory(ctx context.Context, userID, id string) (*storage.Memory, error) {
	cur, err := m.store.GetMemory(ctx, id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && cur.UserID != userID) {
		return nil, fmt.Errorf("memory %q %w", id, errNotOwned)
	}
	return cur, err
}

// converse runs the manager's model with the tools (sorted by name) until
// it answers without tool calls (agno's Model.response). Content of every
// turn is accumulated, as agno does for non-streamed responses.
func (m *Manager) converse(ctx context.Context, msgs []model.Message, fns []*tool.Function) (string, error) {
	byName := make(map[string]*tool.Function, len(fns))
	defs := make([]model.ToolDefinition, 0, len(fns))
	for _, f := range fns {
		byName[f.Name] = f
		defs = append(defs, f.Definition())
	}
	var content strings.Builder
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return "", context.Cause(ctx)
		}
		if round == maxToolRounds {
			return "", fmt.Errorf("%w: still calling tools after %d model calls", ErrToolLoop, maxToolRounds)
		}
		req := &model.Request{Messages: msgs, Tools: defs}
		resp, err := model.Collect(m.model.Generate(ctx, req))
		if err != nil {
			return "", fmt.Errorf("memory: model call: %w", err)
		}
		content.WriteString(resp.Content)
		if len(resp.ToolCalls) == 0 {
			if content.Len() == 0 {
				return noResponseText, nil
			}
			return content.String(), nil
		}
		msgs = append(msgs, model.Message{
			Role:             model.RoleAssistant,
			Content:          resp.Content,
			ReasoningContent: resp.ReasoningContent,
			ToolCalls:        resp.ToolCalls,
			CreatedAt:        run.Now(),
		})
		for _, tc := range resp.ToolCalls {
			text, failed := m.call(ctx, byName[tc.Function.Name], tc)
			if err := ctx.Err(); err != nil {
				return "", context.Cause(ctx)
			}
			msgs = append(msgs, model.Message{
				Role:          model.RoleTool,
				ToolCallID:    tc.ID,
				ToolName:      tc.Function.Name,
				Content:       text,
				ToolCallError: failed,
				CreatedAt:     run.Now(),
			})
		}
	}
}

// call runs one tool call and returns the text for the model.
func (m *Manager) call(ctx context.Context, f *tool.Function, tc model.ToolCall) (string, bool) {
	if f == nil {
		m.log.Warn("memory: model called an unavailable tool", "tool", tc.Function.Name)
		return unknownToolText, true
	}
	args := f.DecodeArguments(tc.Function.Arguments)
	if args.Error != "" {
		return args.Error, true
	}
	res, err := f.Invoke(ctx, &tool.Call{Function: f, ToolCallID: tc.ID}, args.Values)
	if err != nil {
		m.log.Warn("memory: tool failed", "tool", f.Name, "error", err)
		return err.Error(), true
	}
	return res.Content, false
}

// newMemoryID returns a version 7 UUID: unique like agno's uuid4 ids but
// ordered by creation time, so memories created in the same second still
// list in creation order.
func newMemoryID() string { return uuid.Must(uuid.NewV7()).String() }
