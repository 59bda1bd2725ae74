// Runs @ag-ui/client's HttpAgent against AgentOS's /agui (AGUI_URL) and
// prints what it received as one JSON line; AGUI_AUTH is the
// Authorization header, if any. Scenario: "text", "tool", "frontend" or
// "reasoning".
import { HttpAgent } from "@ag-ui/client";
import { randomUUID } from "node:crypto";

const url = process.env.AGUI_URL;
const headers = process.env.AGUI_AUTH ? { Authorization: process.env.AGUI_AUTH } : {};
const scenario = process.argv[2];

function user(text) {
  return { id: randomUUID(), role: "user", content: text };
}

async function run(agent, params = {}) {
  const events = [];
  const sub = { onEvent: ({ event }) => { events.push(event.type); } };
  try {
    const res = await agent.runAgent(params, sub);
    return { events, newMessages: res.newMessages };
  } catch (e) {
    return { events, error: String(e && e.message || e) };
  }
}

const out = { scenario };
const agent = new HttpAgent({ url, headers, threadId: randomUUID(), initialState: { theme: "dark" } });

if (scenario === "text") {
  agent.addMessage(user("hi"));
  Object.assign(out, await run(agent));
  out.state = agent.state;
} else if (scenario === "tool") {
  agent.addMessage(user("weather please"));
  Object.assign(out, await run(agent));
} else if (scenario === "frontend") {
  const tools = [{ name: "change_color", description: "Change the page color",
    parameters: { type: "object", properties: { color: { type: "string" } }, required: ["color"] } }];
  agent.addMessage(user("make the color red"));
  const first = await run(agent, { tools });
  out.first = first;
  const call = (first.newMessages || []).flatMap((m) => m.toolCalls || [])[0];
  if (call) {
    const args = JSON.parse(call.function.arguments);
    // The client runs its tool and sends the result back.
    agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: call.id, content: "color is now " + args.color });
    out.second = await run(agent, { tools });
  }
} else if (scenario === "reasoning") {
  agent.addMessage(user("What is 6 times 7?"));
  const events = [];
  const deltas = [];
  try {
    const res = await agent.runAgent({}, { onEvent: ({ event }) => {
      events.push(event.type);
      if (event.type === "REASONING_MESSAGE_CONTENT") deltas.push(event.delta);
    } });
    Object.assign(out, { events, deltas, newMessages: res.newMessages });
  } catch (e) {
    Object.assign(out, { events, deltas, error: String(e && e.message || e) });
  }
} else {
  out.error = "unknown scenario " + scenario;
}
out.messages = agent.messages;
console.log(JSON.stringify(out));
