package memory

import (
	"strings"

	"github.com/agno-go/agno/storage"
)

// Texts of agno v2.6.13's MemoryManager (memory/manager.py
// get_system_message) and of the agent's system message (agent/_messages.py
// step 3.3.9), reproduced verbatim.
const (
	managerIntro = "You are a Memory Manager that is responsible for managing information and preferences about the user. " +
		"You will be provided with a criteria for memories to capture in the <memories_to_capture> section and a list of existing memories in the <existing_memories> section."

	// DefaultCaptureInstructions is agno's default <memories_to_capture>
	// text (a dedented block, so it ends with a newline).
	DefaultCaptureInstructions = "Memories should capture personal information about the user that is relevant to the current conversation, such as:\n" +
		"- Personal facts: name, age, occupation, location, interests, and preferences\n" +
		"- Opinions and preferences: what the user likes, dislikes, enjoys, or finds frustrating\n" +
		"- Significant life events or experiences shared by the user\n" +
		"- Important context about the user's current situation, challenges, or goals\n" +
		"- Any other details that offer meaningful insight into the user's personality, perspective, or needs\n"

	memoriesIntro   = "You have access to user info and preferences from previous interactions that you can use to personalize your response:\n\n"
	memoriesOpen    = "<memories_from_previous_interactions>"
	memoriesClose   = "\n</memories_from_previous_interactions>\n\n"
	memoriesNote    = "Note: this information is from previous interactions and may be updated in this conversation. You should always prefer information from this conversation over the past memories.\n"
	noMemoriesText  = "You have the capability to retain memories from previous interactions with the user, but have not had any interactions with the user yet.\n"
	agenticMemories = "\n<updating_user_memories>\n" +
		"- You have access to the `update_user_memory` tool that you can use to add new memories, update existing memories, delete memories, or clear all memories.\n" +
		"- If the user's message includes information that should be captured as a memory, use the `update_user_memory` tool to update your memory database.\n" +
		"- Memories should include details that could personalize ongoing interactions with the user.\n" +
		"- Use this tool to add new memories or update existing memories that you identify in the conversation.\n" +
		"- Use this tool if the user asks to update their memory, delete a memory, or clear all memories.\n" +
		"- If you use the `update_user_memory` tool, remember to pass on the response to the user.\n" +
		"</updating_user_memories>\n\n"
)

// managerRules are the fixed lines between the intro and the capture
// criteria.
var managerRules = []string{
	"",
	"## When to add or update memories",
	"- Your first task is to decide if a memory needs to be added, updated, or deleted based on the user's message OR if no changes are needed.",
	"- If the user's message meets the criteria in the <memories_to_capture> section and that information is not already captured in the <existing_memories> section, you should capture it as a memory.",
	"- If the users messages does not meet the criteria in the <memories_to_capture> section, no memory updates are needed.",
	"- If the existing memories in the <existing_memories> section capture all relevant information, no memory updates are needed.",
	"",
	"## How to add or update memories",
	"- If you decide to add a new memory, create memories that captures key information, as if you were storing it for future reference.",
	"- Memories should be a brief, third-person statements that encapsulate the most important aspect of the user's input, without adding any extraneous information.",
	"  - Example: If the user's message is 'I'm going to the gym', a memory could be `John Doe goes to the gym regularly`.",
	"  - Example: If the user's message is 'My name is John Doe', a memory could be `User's name is John Doe`.",
	"- Don't make a single memory too long or complex, create multiple memories if needed to capture all the information.",
	"- Don't repeat the same information in multiple memories. Rather update existing memories if needed.",
	"- If a user asks for a memory to be updated or forgotten, remove all reference to the information that should be forgotten. Don't say 'The user used to like ...`",
	"- When updating a memory, append the existing memory with new information rather than completely overwriting it.",
	"- When a user's preferences change, update the relevant memories to reflect the new preferences but also capture what the user's preferences used to be and what has changed.",
	"",
	"## Criteria for creating memories",
	"Use the following criteria to determine if a user's message should be captured as a memory.",
	"",
	"<memories_to_capture>",
}

// toolSet says which memory tools one manager call offers.
type toolSet struct{ add, update, del, clear bool }

// systemPrompt builds the manager's system message: the configured
// SystemMessage as is, else agno's prompt for the enabled tools and the
// user's existing memories.
func (m *Manager) systemPrompt(existing []*storage.Memory, ts toolSet) string {
	if m.systemMessage != "" {
		return m.systemMessage
	}
	capture := m.captureInstructions
	if capture == "" {
		capture = DefaultCaptureInstructions
	}
	lines := make([]string, 0, len(managerRules)+16+3*len(existing))
	lines = append(lines, managerIntro)
	lines = append(lines, managerRules...)
	lines = append(lines, capture,
		"</memories_to_capture>",
		"",
		"## Updating memories",
		"You will also be provided with a list of existing memories in the <existing_memories> section. You can:",
		"  - Decide to make no changes.",
	)
	if ts.add {
		lines = append(lines, "  - Decide to add a new memory, using the `add_memory` tool.")
	}
	if ts.update {
		lines = append(lines, "  - Decide to update an existing memory, using the `update_memory` tool.")
	}
	if ts.del {
		lines = append(lines, "  - Decide to delete an existing memory, using the `delete_memory` tool.")
	}
	if ts.clear {
		lines = append(lines, "  - Decide to clear all memories, using the `clear_memory` tool.")
	}
	lines = append(lines,
		"You can call multiple tools in a single response if needed. ",
		"Only add or update memories if it is necessary to capture key information provided by the user.",
	)
	if len(existing) > 0 {
		lines = append(lines, "\n<existing_memories>")
		for _, mem := range existing {
			lines = append(lines, "ID: "+mem.MemoryID, "Memory: "+mem.Memory, "")
		}
		lines = append(lines, "</existing_memories>")
	}
	if m.additionalInstructions != "" {
		lines = append(lines, m.additionalInstructions)
	}
	return strings.Join(lines, "\n")
}

// RenderMemories renders the memories block of an agent's system message
// (agno's step 3.3.9): the user's memories, or the text for a user without
// any, followed by the <updating_user_memories> guidance when the agent has
// agentic memory (the update_user_memory tool).
func RenderMemories(memories []*storage.Memory, agentic bool) string {
	var b strings.Builder
	if len(memories) > 0 {
		b.WriteString(memoriesIntro)
		b.WriteString(memoriesOpen)
		for _, mem := range memories {
			b.WriteString("\n- ")
			b.WriteString(mem.Memory)
		}
		b.WriteString(memoriesClose)
		b.WriteString(memoriesNote)
	} else {
		b.WriteString(noMemoriesText)
	}
	if agentic {
		b.WriteString(agenticMemories)
	}
	return b.String()
}
