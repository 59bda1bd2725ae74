package memorytools

// agno v2.6.13's MemoryTools texts (tools/memory.py), as the model sees them:
// the instructions are part of the toolkit's contract with the model.

// DefaultInstructions are agno's MemoryTools.DEFAULT_INSTRUCTIONS.
const DefaultInstructions = `You have access to the Think, Add Memory, Update Memory, Delete Memory, and Analyze tools that will help you manage user memories and analyze their operations. Use these tools as frequently as needed to successfully complete memory management tasks.

## How to use the Think, Memory Operations, and Analyze tools:

1. **Think**
- Purpose: A scratchpad for planning memory operations, brainstorming memory content, and refining your approach. You never reveal your "Think" content to the user.
- Usage: Call ` + "`" + `think` + "`" + ` whenever you need to figure out what memory operations to perform, analyze requirements, or decide on strategy.

2. **Get Memories**
- Purpose: Retrieves a list of memories from the database for the current user.
- Usage: Call ` + "`" + `get_memories` + "`" + ` when you need to retrieve memories for the current user.

3. **Add Memory**
- Purpose: Creates new memories in the database with specified content and metadata.
- Usage: Call ` + "`" + `add_memory` + "`" + ` with memory content and optional topics when you need to store new information.

4. **Update Memory**
- Purpose: Modifies existing memories in the database by memory ID.
- Usage: Call ` + "`" + `update_memory` + "`" + ` with a memory ID and the fields you want to change. Only specify the fields that need updating.

5. **Delete Memory**
- Purpose: Removes memories from the database by memory ID.
- Usage: Call ` + "`" + `delete_memory` + "`" + ` with a memory ID when a memory is no longer needed or requested to be removed.

6. **Analyze**
- Purpose: Evaluate whether the memory operations results are correct and sufficient. If not, go back to "Think" or use memory operations with refined parameters.
- Usage: Call ` + "`" + `analyze` + "`" + ` after performing memory operations to verify:
    - Success: Did the operation complete successfully?
    - Accuracy: Is the memory content correct and well-formed?
    - Completeness: Are all required fields populated appropriately?
    - Errors: Were there any failures or unexpected behaviors?

**Important Guidelines**:
- Do not include your internal chain-of-thought in direct user responses.
- Use "Think" to reason internally. These notes are never exposed to the user.
- When you provide a final answer to the user, be clear, concise, and based on the memory operation results.
- If memory operations fail or produce unexpected results, acknowledge limitations and explain what went wrong.
- Always verify memory IDs exist before attempting updates or deletions.
- Use descriptive topics and clear memory content to make memories easily searchable and understandable.    `

// FewShotExamples are agno's MemoryTools.FEW_SHOT_EXAMPLES.
const FewShotExamples = `You can refer to the examples below as guidance for how to use each tool.

### Examples

#### Example 1: Adding User Preferences

User: I prefer vegetarian recipes and I'm allergic to nuts.
Think: I should store the user's dietary preferences. I should create a memory with this information and use relevant topics for easy retrieval.
Add Memory: memory="User prefers vegetarian recipes and is allergic to nuts", topics=["dietary_preferences", "allergies", "food"]
Analyze: Successfully created memory with dietary preferences. The topics are well-chosen for future retrieval. This should help with future food-related requests.

Final Answer: Noted. I've stored your dietary preferences. I'll remember that you prefer vegetarian recipes and have a nut allergy for future reference.

#### Example 2: Updating Existing Information

User: Actually, update my dietary info - I'm now eating fish too, so I'm pescatarian.
Think: The user wants to update their previous dietary preference from vegetarian to pescatarian. I need to find their existing dietary memory and update it.
Update Memory: memory_id="previous_memory_id", memory="User follows pescatarian diet (vegetarian + fish) and is allergic to nuts", topics=["dietary_preferences", "allergies", "food", "pescatarian"]
Analyze: Successfully updated the dietary preference memory. The content now accurately reflects pescatarian diet and maintains the nut allergy information.

Final Answer: I've updated your dietary preferences to reflect that you follow a pescatarian diet (vegetarian plus fish) while maintaining your nut allergy information.

#### Example 3: Removing Outdated Information

User: Please forget about my old work schedule - it's completely changed.
Think: The user wants me to delete their old work schedule memory since it's no longer relevant. I should find and remove that memory.
Delete Memory: memory_id="work_schedule_memory_id"
Analyze: Successfully deleted the outdated work schedule memory. The old information won't interfere with future scheduling requests.

Final Answer: I've removed your old work schedule information. Feel free to share your new schedule when you're ready, and I'll store the updated information.

#### Example 4: Retrieving Memories

User: What have you remembered about me?
Think: The user wants to retrieve memories about themselves. I should use the get_memories tool to retrieve the memories.
Get Memories:
Analyze: Successfully retrieved the memories about the user. The memories are relevant to the user's preferences and activities.

Final Answer: I've retrieved the memories about you. You like to hike in the mountains on weekends and travel to new places and experience different cultures. You are planning to travel to Africa in December.    `
