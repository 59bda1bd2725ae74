// Package memorytools is agno's MemoryTools: think, get_memories,
// add_memory, update_memory, delete_memory and analyze, the model
// managing the user memories of the run's user itself. think and analyze
// keep their notes in the run's session state ("memory_thoughts",
// "memory_analysis"), each memory operation its result
// ("memory_operations"), as agno does.
package memorytools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/reasoning"
)

// ToolkitName is the name agents list in tools, agno's toolkit name.
const ToolkitName = "memory_tools"

// Store is where the memories are kept; storage.Store is one.
type Store interface {
	UpsertMemory(ctx context.Context, m *storage.Memory) error
	GetMemory(ctx context.Context, memoryID string) (*storage.Memory, error)
	ListMemories(ctx context.Context, q storage.MemoryQuery) ([]*storage.Memory, int, error)
	DeleteMemories(ctx context.Context, memoryIDs ...string) error
}

// Config configures the toolkit.
type Config struct {
	// Store keeps the memories; required.
	Store                                                               Store
	EnableThink, EnableGetMemories, EnableAddMemory, EnableUpdateMemory bool
	EnableDeleteMemory, EnableAnalyze, All                              bool
	// Instructions replace agno's; "" uses DefaultInstructions (with
	// FewShotExamples, or FewShot, when AddFewShot).
	Instructions    string
	AddInstructions bool
	AddFewShot      bool
	FewShot         string
	// Logger receives failed operations; nil discards them.
	Logger *slog.Logger
}

type thinkArgs struct {
	Thought string `json:"thought" description:"Your thought process and reasoning about memory operations."`
}

type getArgs struct{}

type addArgs struct {
	Memory string    `json:"memory" description:"The memory content to store"`
	Topics *[]string `json:"topics,omitempty" description:"Optional list of topics associated with this memory"`
}

type updateArgs struct {
	MemoryID string    `json:"memory_id" description:"The ID of the memory to update"`
	Memory   *string   `json:"memory,omitempty" description:"Updated memory content (if provided)"`
	Topics   *[]string `json:"topics,omitempty" description:"Updated list of topics (if provided)"`
}

type deleteArgs struct {
	MemoryID string `json:"memory_id" description:"The ID of the memory to delete"`
}

type analyzeArgs struct {
	Analysis string `json:"analysis" description:"Your analysis of the memory operations results."`
}

type toolkit struct {
	store Store
	log   *slog.Logger
}

// New builds agno's MemoryTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Store == nil {
		return nil, errors.New("memorytools: Config.Store is nil: give the store keeping the memories")
	}
	t := &toolkit{store: cfg.Store, log: cfg.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	instructions := reasoning.Instructions(cfg.Instructions, DefaultInstructions, cfg.AddFewShot, cfg.FewShot, FewShotExamples)
	enabled := tool.Enabled{All: cfg.All}
	add := enabled.If
	add(cfg.EnableThink)(tool.New("think", "Use this tool as a scratchpad to reason about memory operations, refine your approach, brainstorm memory content, or revise your plan.\nCall `Think` whenever you need to figure out what to do next, analyze the user's requirements, plan memory operations, or decide on execution strategy.\nYou should use this tool as frequently as needed.",
		func(ctx context.Context, a thinkArgs) (string, error) {
			return reasoning.AppendNote(ctx, "memory_thoughts", "Memory Thoughts", a.Thought)
		}))
	add(cfg.EnableGetMemories)(tool.New("get_memories", "Use this tool to get a list of memories for the current user from the database.", t.get))
	add(cfg.EnableAddMemory)(tool.New("add_memory", "Use this tool to add a new memory to the database.", t.add))
	add(cfg.EnableUpdateMemory)(tool.New("update_memory", "Use this tool to update an existing memory in the database.", t.update))
	add(cfg.EnableDeleteMemory)(tool.New("delete_memory", "Use this tool to delete a memory from the database.", t.delete))
	add(cfg.EnableAnalyze)(tool.New("analyze", "Use this tool to evaluate whether the memory operations results are correct and sufficient.\nIf not, go back to \"Think\" or use memory operations with refined parameters.",
		func(ctx context.Context, a analyzeArgs) (string, error) {
			return reasoning.AppendNote(ctx, "memory_analysis", "Memory Analysis", a.Analysis)
		}))
	fns, err := enabled.Functions()
	if err != nil {
		return nil, fmt.Errorf("memorytools: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

var errNoRun = errors.New("memory_tools acts on the memories of the run's user, and this call has no run")

// user is the run's user. A run without one is memory.DefaultUserID's,
// as the memory manager files it; agno would read every user's memories.
func user(ctx context.Context) (*run.Context, string, error) {
	rc := run.FromContext(ctx)
	if rc == nil {
		return nil, "", errNoRun
	}
	if rc.UserID == "" {
		return rc, memory.DefaultUserID, nil
	}
	return rc, rc.UserID, nil
}

func (t *toolkit) get(ctx context.Context, _ getArgs) (string, error) {
	rc, userID, err := user(ctx)
	if err != nil {
		return "", err
	}
	mems, _, err := t.store.ListMemories(ctx, storage.MemoryQuery{UserID: userID, SortBy: "created_at", SortOrder: storage.Asc})
	if err != nil {
		t.log.Warn("memory_tools: get_memories failed", "user_id", userID, "error", err)
		return dumps(map[string]any{"error": err.Error()})
	}
	dicts := make([]memoryDict, len(mems))
	for i, m := range mems {
		dicts[i] = toDict(m)
	}
	recordOperation(rc, op{Operation: "get_memories", Success: true, Memories: &dicts})
	return dumps(dicts)
}

func (t *toolkit) add(ctx context.Context, a addArgs) (string, error) {
	rc, userID, err := user(ctx)
	if err != nil {
		return "", err
	}
	m := &storage.Memory{MemoryID: uuid.NewString(), Memory: a.Memory, UserID: userID}
	if a.Topics != nil {
		m.Topics = *a.Topics
	}
	stored, err := t.upsert(ctx, m)
	if err != nil {
		return t.failed("add_memory", err)
	}
	d := toDict(stored)
	recordOperation(rc, op{Operation: "add_memory", Success: true, Memory: &d})
	return dumps(result{Success: true, Operation: "add_memory", Memory: &d})
}

func (t *toolkit) update(ctx context.Context, a updateArgs) (string, error) {
	rc, userID, err := user(ctx)
	if err != nil {
		return "", err
	}
	existing, err := t.owned(ctx, a.MemoryID, userID)
	if existing == nil {
		return t.missing("update_memory", a.MemoryID, err)
	}
	// agno's update writes a new UserMemory from the old one's memory,
	// topics and user; the rest (input, agent, team) is kept here too.
	m := *existing
	m.UpdatedAt = 0
	if a.Memory != nil {
		m.Memory = *a.Memory
	}
	if a.Topics != nil {
		m.Topics = *a.Topics
	}
	stored, err := t.upsert(ctx, &m)
	if err != nil {
		return t.failed("update_memory", err)
	}
	d := toDict(stored)
	recordOperation(rc, op{Operation: "update_memory", Success: true, Memory: &d})
	return dumps(result{Success: true, Operation: "update_memory", Memory: &d})
}

func (t *toolkit) delete(ctx context.Context, a deleteArgs) (string, error) {
	rc, userID, err := user(ctx)
	if err != nil {
		return "", err
	}
	existing, err := t.owned(ctx, a.MemoryID, userID)
	if existing == nil {
		return t.missing("delete_memory", a.MemoryID, err)
	}
	if err := t.store.DeleteMemories(ctx, a.MemoryID); err != nil {
		return t.failed("delete_memory", err)
	}
	d := toDict(existing)
	recordOperation(rc, op{Operation: "delete_memory", Success: true, MemoryID: &a.MemoryID, DeletedMemory: &d})
	return dumps(result{Success: true, Operation: "delete_memory", MemoryID: &a.MemoryID, DeletedMemory: &d})
}

// owned is the memory when it exists and is the user's: a model acting
// for one user never reaches another's memories by guessing an id (agno
// does not check). A read failure is the error, with a nil memory.
func (t *toolkit) owned(ctx context.Context, id, userID string) (*storage.Memory, error) {
	m, err := t.store.GetMemory(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m == nil || memoryUser(m) != userID {
		return nil, nil
	}
	return m, nil
}

func memoryUser(m *storage.Memory) string {
	if m.UserID == "" {
		return memory.DefaultUserID
	}
	return m.UserID
}

// upsert writes m and reads it back, as agno returns the stored memory.
func (t *toolkit) upsert(ctx context.Context, m *storage.Memory) (*storage.Memory, error) {
	if err := t.store.UpsertMemory(ctx, m); err != nil {
		return nil, err
	}
	return t.store.GetMemory(ctx, m.MemoryID)
}

func (t *toolkit) missing(operation, id string, err error) (string, error) {
	if err != nil {
		return t.failed(operation, err)
	}
	return dumps(result{Operation: operation, Error: "Memory with ID " + id + " not found"})
}

// failed is agno's answer to an exception: the model is told, the run
// goes on.
func (t *toolkit) failed(operation string, err error) (string, error) {
	t.log.Warn("memory_tools: "+operation+" failed", "error", err)
	return dumps(result{Operation: operation, Error: err.Error()})
}

// memoryDict is agno's UserMemory.to_dict(): its keys in order, None
// values left out, times as naive local ISO 8601.
type memoryDict struct {
	MemoryID  string    `json:"memory_id,omitempty"`
	Memory    string    `json:"memory"`
	Topics    *[]string `json:"topics,omitempty"`
	CreatedAt string    `json:"created_at,omitempty"`
	UpdatedAt string    `json:"updated_at,omitempty"`
	Input     string    `json:"input,omitempty"`
	UserID    string    `json:"user_id,omitempty"`
	AgentID   string    `json:"agent_id,omitempty"`
	TeamID    string    `json:"team_id,omitempty"`
	Feedback  string    `json:"feedback,omitempty"`
}

func toDict(m *storage.Memory) memoryDict {
	d := memoryDict{MemoryID: m.MemoryID, Memory: m.Memory, Input: m.Input, UserID: m.UserID, AgentID: m.AgentID, TeamID: m.TeamID, Feedback: m.Feedback}
	if m.Topics != nil {
		d.Topics = &m.Topics
	}
	if m.CreatedAt != 0 {
		d.CreatedAt = isoTime(m.CreatedAt)
	}
	d.UpdatedAt = d.CreatedAt // agno: updated_at falls back to created_at
	if m.UpdatedAt != 0 {
		d.UpdatedAt = isoTime(m.UpdatedAt)
	}
	return d
}

// isoTime is datetime.fromtimestamp(epoch).isoformat().
func isoTime(epoch int64) string { return time.Unix(epoch, 0).Format("2006-01-02T15:04:05") }

// result is what the write operations answer, in agno's key order.
type result struct {
	Success       bool        `json:"success"`
	Operation     string      `json:"operation"`
	Memory        *memoryDict `json:"memory,omitempty"`
	MemoryID      *string     `json:"memory_id,omitempty"`
	DeletedMemory *memoryDict `json:"deleted_memory,omitempty"`
	Error         string      `json:"error,omitempty"`
}

// op is one entry of session_state["memory_operations"], agno's
// operation_result.
type op struct {
	Operation     string        `json:"operation"`
	Success       bool          `json:"success"`
	Memories      *[]memoryDict `json:"memories,omitempty"`
	Memory        *memoryDict   `json:"memory,omitempty"`
	MemoryID      *string       `json:"memory_id,omitempty"`
	DeletedMemory *memoryDict   `json:"deleted_memory,omitempty"`
	Error         any           `json:"error"`
}

// recordOperation appends the result to memory_operations, as plain JSON
// values so the state stays what a stored session reads back.
func recordOperation(rc *run.Context, o op) {
	raw, err := json.Marshal(o)
	if err != nil {
		return
	}
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	rc.State(func(state map[string]any) {
		list, _ := state["memory_operations"].([]any)
		state["memory_operations"] = append(list, v)
	})
}

// dumps is agno's json.dumps(..., indent=2).
func dumps(v any) (string, error) { return pyjson.DumpsOpts(v, pyjson.Options{Indent: 2}) }
