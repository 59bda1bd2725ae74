package memory

import (
	"testing"

	"github.com/agno-go/agno/storage"
)

func TestRenderMemories(t *testing.T) {
	mems := []*storage.Memory{{Memory: "User's name is Ana"}, {Memory: "User likes Go"}}
	const withMemories = "You have access to user info and preferences from previous interactions that you can use to personalize your response:\n\n" +
		"<memories_from_previous_interactions>\n- User's name is Ana\n- User likes Go\n</memories_from_previous_interactions>\n\n" +
		"Note: this information is from previous interactions and may be updated in this conversation. You should always prefer information from this conversation over the past memories.\n"
	const none = "You have the capability to retain memories from previous interactions with the user, but have not had any interactions with the user yet.\n"
	const agentic = "\n<updating_user_memories>\n" +
		"- You have access to the `update_user_memory` tool that you can use to add new memories, update existing memories, delete memories, or clear all memories.\n" +
		"- If the user's message includes information that should be captured as a memory, use the `update_user_memory` tool to update your memory database.\n" +
		"- Memories should include details that could personalize ongoing interactions with the user.\n" +
		"- Use this tool to add new memories or update existing memories that you identify in the conversation.\n" +
		"- Use this tool if the user asks to update their memory, delete a memory, or clear all memories.\n" +
		"- If you use the `update_user_memory` tool, remember to pass on the response to the user.\n" +
		"</updating_user_memories>\n\n"
	for _, tc := range []struct {
		name    string
		mems    []*storage.Memory
		agentic bool
		want    string
	}{
		{"memories", mems, false, withMemories},
		{"none", nil, false, none},
		{"memories agentic", mems, true, withMemories + agentic},
		{"none agentic", []*storage.Memory{}, true, none + agentic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RenderMemories(tc.mems, tc.agentic); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
