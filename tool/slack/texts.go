package slack

import (
	"slices"
	"strings"
)

// buildInstructions is agno's SlackTools._build_instructions: guidance
// naming only the tools enabled, or "" when fewer than two sections
// apply.
func buildInstructions(names []string) string {
	on := func(n string) bool { return slices.Contains(names, n) }
	var sections []string
	if on("search_workspace") {
		sections = append(sections, "**search_workspace** — semantic and keyword search across the workspace.\n"+
			"When to use: finding discussions about a topic, catching up, summarizing activity.\n"+
			"Returns: messages with channel, author, timestamp, and surrounding context.")
	}
	if on("get_channel_history") {
		text := "**get_channel_history** — recent top-level messages from a specific channel.\n" +
			"When to use: reading the latest activity in a known channel.\n" +
			"Note: returns only top-level messages, not thread replies."
		if on("get_thread") {
			text += "\nLook for thread_ts and reply_count, then use get_thread to expand."
		}
		text += "\nRequires: bot must be a member of the channel."
		sections = append(sections, text)
	}
	if on("get_thread") {
		text := "**get_thread** — full thread replies given a channel and thread timestamp.\n" +
			"When to use: expanding a message with replies into its full discussion."
		var sources []string
		for _, s := range []string{"get_channel_history", "search_workspace"} {
			if on(s) {
				sources = append(sources, s)
			}
		}
		if len(sources) > 0 {
			text += "\nChain after " + strings.Join(sources, " or ") + " for complete context."
		}
		sections = append(sections, text)
	}
	if on("get_channel_info") {
		sections = append(sections, "**get_channel_info** — channel metadata (topic, purpose, member count).\n"+
			"When to use: understanding what a channel is about.")
	}
	if on("search_messages") {
		text := "**search_messages** — legacy search API. Requires a user token."
		if on("search_workspace") {
			text += "\nWhen to use: only when search_workspace is unavailable."
		}
		sections = append(sections, text)
	}
	switch {
	case on("send_message") && on("send_message_thread"):
		sections = append(sections, "**send_message** vs **send_message_thread** — choosing correctly:\n"+
			"- If you have a `Slack thread_ts` in your context/dependencies, "+
			"ALWAYS use send_message_thread with that thread_ts. "+
			"Never use send_message when replying inside a thread.\n"+
			"- Only use send_message for new top-level channel messages.")
	case on("send_message_thread"):
		sections = append(sections, "**send_message_thread** — reply inside a thread.\n"+
			"When you have a `Slack thread_ts` in your context/dependencies, use it.")
	}
	if len(sections) < 2 {
		return ""
	}
	result := "## Slack Tool Selection\n\n" + strings.Join(sections, "\n\n")
	var routing []string
	if on("search_workspace") && on("get_channel_history") {
		routing = append(routing, "- Topic search, catch-up, cross-channel → search_workspace",
			"- Latest messages in a specific channel → get_channel_history")
	}
	if on("get_thread") {
		routing = append(routing, "- Deep-dive into a message → get_thread with channel_id and ts",
			"- Always expand threads with high reply_count before summarizing")
	}
	if on("search_messages") && on("search_workspace") {
		routing = append(routing, "- Fallback (user-token only) → search_messages")
	}
	if on("send_message") && on("send_message_thread") {
		routing = append(routing, "- Replying in a thread → send_message_thread (use Slack thread_ts from context)",
			"- New top-level channel message → send_message")
	}
	if len(routing) > 0 {
		result += "\n\n## When to use which\n" + strings.Join(routing, "\n")
	}
	return result
}

const privateHint = "If this is a private channel, add groups:read, reinstall the app, " +
	"invite the bot to the channel, or pass the channel ID directly."

const inviteHint = "Invite the bot to the channel, or pass a channel ID the bot can read."
