// Package memory keeps what agents remember across sessions: user memories
// written by a MemoryManager (agno's memory/manager.py) and session
// summaries written by a SummaryManager (agno's session/summary.py).
//
// Both drive their own model call. The memory manager gives its model
// tools (add_memory, update_memory, delete_memory, clear_memory) that write
// to a storage.Store; every tool is confined to the user the call is for.
// One Manager or SummaryManager serves any number of concurrent runs.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/tool"
)

// DefaultUserID is the user memories belong to when no user is given.
const DefaultUserID = "default"

// Errors returned by the managers (wrapped).
var (
	// ErrConfig is a configuration that cannot work.
	ErrConfig = errors.New("memory: invalid config")
	// ErrNoMessages is CreateUserMemories without anything to read.
	ErrNoMessages = errors.New("memory: no messages to create memories from")
	// ErrToolLoop is a manager model that kept calling tools.
	ErrToolLoop = errors.New("memory: model did not finish")
	// ErrSummaryFormat is a summary response that is not the JSON asked for.
	ErrSummaryFormat = errors.New("memory: summary response is not a valid SessionSummaryResponse")
)

// The agent-facing tool of agentic memory (agno's
// get_update_user_memory_function). The description is the one of agno's
// async variant, the one AgentOS runs use; agno's sync variant opens with
// "Use this function to submit a task to modify the Agent's memory."
const (
	UpdateUserMemoryName        = "update_user_memory"
	updateUserMemoryDescription = "Use this function to update the Agent's memory of a user.\n" +
		"Describe the task in detail and be specific.\n" +
		"The task can include adding a memory, updating a memory, deleting a memory, or clearing all memories."
	// As the agent's tool processing leaves it: not strict, required
	// recomputed, additionalProperties false appended.
	updateUserMemorySchema = `{"type":"object","properties":{"task":{"type":"string","description":"The task to update the memory. Be specific and describe the task in detail."}},"required":["task"],"additionalProperties":false}`
)

// ManagerConfig configures a Manager.
type ManagerConfig struct {
	// Model extracts and edits memories; usually the agent's model.
	Model model.Model
	// Store keeps the memories; usually the agent's store.
	Store storage.Store

	// SystemMessage replaces the manager's whole system prompt (the
	// existing memories are then not shown to the model).
	SystemMessage string
	// CaptureInstructions replaces DefaultCaptureInstructions: what is
	// worth remembering.
	CaptureInstructions string
	// AdditionalInstructions are appended to the system prompt.
	AdditionalInstructions string

	// AddMemories and UpdateMemories enable add_memory and update_memory
	// (default true). DeleteMemories and ClearMemories enable delete_memory
	// and clear_memory for UpdateMemoryTask (default false);
	// CreateUserMemories always offers delete and never clear, as agno.
	AddMemories, UpdateMemories   *bool
	DeleteMemories, ClearMemories bool

	// Logger receives tool failures and debug traces. Default slog.Default().
	Logger *slog.Logger
}

// Manager creates, updates and deletes user memories with a model (agno's
// MemoryManager). It is safe for concurrent use.
type Manager struct {
	model                  model.Model
	store                  storage.Store
	systemMessage          string
	captureInstructions    string
	additionalInstructions string
	flags                  toolSet
	log                    *slog.Logger
	memTools               map[string]*tool.Function
	agentTool              *tool.Function
}

// NewManager checks cfg and returns a Manager.
func NewManager(cfg ManagerConfig) (*Manager, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("%w: ManagerConfig.Model is nil: set the model that manages memories (usually the agent's model)", ErrConfig)
	}
	if cfg.Store == nil {
		return nil, fmt.Errorf("%w: ManagerConfig.Store is nil: set the store that keeps memories (usually the agent's store)", ErrConfig)
	}
	m := &Manager{
		model:                  cfg.Model,
		store:                  cfg.Store,
		systemMessage:          cfg.SystemMessage,
		captureInstructions:    cfg.CaptureInstructions,
		additionalInstructions: cfg.AdditionalInstructions,
		flags: toolSet{
			add:    cfg.AddMemories == nil || *cfg.AddMemories,
			update: cfg.UpdateMemories == nil || *cfg.UpdateMemories,
			del:    cfg.DeleteMemories,
			clear:  cfg.ClearMemories,
		},
		log: cfg.Logger,
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	tools, err := m.buildTools()
	if err != nil {
		return nil, fmt.Errorf("memory: build memory tools: %w", err)
	}
	m.memTools = tools
	f, err := tool.NewRaw(UpdateUserMemoryName, updateUserMemoryDescription, json.RawMessage(updateUserMemorySchema), m.handleUpdateUserMemory)
	if err != nil {
		return nil, fmt.Errorf("memory: build %s tool: %w", UpdateUserMemoryName, err)
	}
	m.agentTool = f
	return m, nil
}

func userOrDefault(userID string) string {
	if userID == "" {
		return DefaultUserID
	}
	return userID
}

// UserMemories returns all memories of a user ("" is DefaultUserID),
// oldest first.
func (m *Manager) UserMemories(ctx context.Context, userID string) ([]*storage.Memory, error) {
	mems, _, err := m.store.ListMemories(ctx, storage.MemoryQuery{
		UserID:    userOrDefault(userID),
		SortBy:    "created_at",
		SortOrder: storage.Asc,
	})
	if err != nil {
		return nil, fmt.Errorf("memory: read memories of user %q: %w", userOrDefault(userID), err)
	}
	return mems, nil
}

// CreateUserMemories is automatic memory (agno's create_user_memories,
// run beside every agent run with update_memory_on_run): one model
// conversation given the user's existing memories and the run's messages,
// with add_memory / update_memory (per the flags) and delete_memory tools
// that write to the store. New memories record agentID and teamID and, as
// input, the messages' text. It returns the user's memories afterwards.
func (m *Manager) CreateUserMemories(ctx context.Context, userID string, messages []model.Message, agentID, teamID string) ([]*storage.Memory, error) {
	if len(messages) == 0 {
		return nil, ErrNoMessages
	}
	userID = userOrDefault(userID)
	ts := toolSet{add: m.flags.add, update: m.flags.update, del: true}
	sc := scope{userID: userID, agentID: agentID, teamID: teamID, input: inputText(messages)}
	if _, err := m.manage(ctx, sc, ts, messages); err != nil {
		return nil, err
	}
	return m.UserMemories(ctx, userID)
}

// UpdateMemoryTask is agentic memory (agno's update_memory_task, behind the
// agent's update_user_memory tool): the model gets the task as the user
// message and the tools the manager's flags enable. It returns the
// model's answer, which the agent passes on to the user.
func (m *Manager) UpdateMemoryTask(ctx context.Context, userID, task, agentID, teamID string) (string, error) {
	sc := scope{userID: userOrDefault(userID), agentID: agentID, teamID: teamID, input: task}
	return m.manage(ctx, sc, m.flags, []model.Message{{Role: model.RoleUser, Content: task, CreatedAt: run.Now()}})
}

func (m *Manager) manage(ctx context.Context, sc scope, ts toolSet, messages []model.Message) (string, error) {
	existing, err := m.UserMemories(ctx, sc.userID)
	if err != nil {
		return "", err
	}
	msgs := make([]model.Message, 0, len(messages)+1)
	msgs = append(msgs, model.Message{Role: model.RoleSystem, Content: m.systemPrompt(existing, ts), CreatedAt: run.Now()})
	msgs = append(msgs, messages...)
	m.log.Debug("memory: manager start", "user_id", sc.userID, "existing", len(existing))
	out, err := m.converse(withScope(ctx, sc), msgs, m.enabled(ts))
	m.log.Debug("memory: manager end", "user_id", sc.userID, "error", err)
	return out, err
}

// inputText is what agno records as a memory's input: the only message's
// text, or the user messages' texts joined by ", ".
func inputText(messages []model.Message) string {
	if len(messages) == 1 {
		return messages[0].Content
	}
	var parts []string
	for _, msg := range messages {
		if msg.Role == model.RoleUser && msg.Content != "" {
			parts = append(parts, msg.Content)
		}
	}
	return strings.Join(parts, ", ")
}

// Tool returns the agent-facing update_user_memory(task) tool. It acts for
// the user, agent and team of the run it is called in
// (run.FromContext(ctx)); outside a run, for DefaultUserID.
func (m *Manager) Tool() *tool.Function { return m.agentTool }

func (m *Manager) handleUpdateUserMemory(ctx context.Context, args map[string]any) (tool.Result, error) {
	task, ok := args["task"].(string)
	if !ok || task == "" {
		return tool.Result{}, fmt.Errorf("%s: argument task must be a non-empty string describing the memory change", UpdateUserMemoryName)
	}
	var userID, agentID, teamID string
	if rc := run.FromContext(ctx); rc != nil {
		userID, agentID, teamID = rc.UserID, rc.AgentID, rc.TeamID
	}
	out, err := m.UpdateMemoryTask(ctx, userID, task, agentID, teamID)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(out), nil
}
