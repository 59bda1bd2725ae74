package memory

import (
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage"
)

// Read-only views of a manager's settings, for listings such as
// AgentOS's registry (agno's memory_manager entries).

// Model returns the model that manages the memories.
func (m *Manager) Model() model.Model { return m.model }

// Store returns the store that keeps the memories.
func (m *Manager) Store() storage.Store { return m.store }

// Abilities reports which memory tools UpdateMemoryTask offers its model
// (agno's add_memories, update_memories, delete_memories,
// clear_memories).
func (m *Manager) Abilities() (add, update, del, clear bool) {
	return m.flags.add, m.flags.update, m.flags.del, m.flags.clear
}

// Model returns the model that writes the summaries.
func (s *SummaryManager) Model() model.Model { return s.model }

// LastNRuns is SummaryConfig.LastNRuns (0: all runs).
func (s *SummaryManager) LastNRuns() int { return s.lastNRuns }

// ConversationLimit is SummaryConfig.ConversationLimit (0: no limit).
func (s *SummaryManager) ConversationLimit() int { return s.limit }
