// Drives AgentOS's A2A interface with the official JS client
// (@a2a-js/sdk's A2AClient, pinned in package.json). Run by
// agentos/a2a_test.go TestA2AJSClient with A2A_CARD_URL and A2A_KEY.
import { A2AClient } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";
import assert from "node:assert/strict";

const cardUrl = process.env.A2A_CARD_URL;
const key = process.env.A2A_KEY;
// Every call but the (open) card carries the key.
const fetchImpl = (url, init = {}) =>
  fetch(url, { ...init, headers: { ...(init.headers || {}), Authorization: `Bearer ${key}` } });

const userMessage = (text, extra = {}) => ({
  message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text }], ...extra },
});

// 1. The card, fetched without credentials.
const client = await A2AClient.fromCardUrl(cardUrl);
const card = await client.getAgentCard();
assert.equal(card.name, "Helper");
assert.equal(card.capabilities.streaming, true);
assert.match(card.url, /\/a2a\/agents\/helper\/v1\/message:stream$/);
console.log("card:", card.name, card.url);

// Without the key the JSON-RPC endpoint refuses.
await assert.rejects(client.sendMessage(userMessage("hi")), /401/);

const authed = new A2AClient(card, { fetchImpl });

// 2. message/send → a completed Task.
const sent = await authed.sendMessage(userMessage("hello"));
assert.ok(!("error" in sent), JSON.stringify(sent));
const task = sent.result;
assert.equal(task.kind, "task");
assert.equal(task.status.state, "completed");
assert.equal(task.history[0].parts[0].text, "Echo: hello");
console.log("send:", task.id, task.status.state);

// 3. message/stream in the same context: working, content, final status, Task.
const kinds = [];
let text = "";
let final;
for await (const ev of authed.sendMessageStream(userMessage("stream me", { contextId: task.contextId }))) {
  kinds.push(ev.kind);
  if (ev.kind === "message") text += ev.parts.map((p) => p.text).join("");
  if (ev.kind === "task") final = ev;
}
assert.equal(kinds[0], "status-update");
assert.equal(kinds.at(-2), "status-update");
assert.equal(kinds.at(-1), "task");
assert.equal(text, "Echo: stream me");
assert.equal(final.contextId, task.contextId);
assert.equal(final.status.state, "completed");
console.log("stream:", kinds.join(","));

// 4. tasks/get of the first task.
const got = await authed.getTask({ id: task.id });
assert.ok(!("error" in got), JSON.stringify(got));
assert.equal(got.result.id, task.id);
assert.equal(got.result.status.state, "completed");
console.log("get:", got.result.id, got.result.status.state);

// Unknown task: JSON-RPC error -32001.
const missing = await authed.getTask({ id: "no-such-task" });
assert.equal(missing.error.code, -32001);

// 5. tasks/cancel of a running (non-blocking) task.
const bg = await authed.sendMessage({ ...userMessage("slow please"), configuration: { blocking: false } });
assert.equal(bg.result?.status?.state, "submitted", JSON.stringify(bg));
let cancelled;
for (let i = 0; i < 200; i++) {
  cancelled = await authed.cancelTask({ id: bg.result.id });
  if (cancelled.result?.status?.state === "canceled") break;
  await new Promise((r) => setTimeout(r, 20));
}
assert.equal(cancelled.result.status.state, "canceled", JSON.stringify(cancelled));
let state;
for (let i = 0; i < 200; i++) {
  state = (await authed.getTask({ id: bg.result.id })).result.status.state;
  if (state === "canceled") break;
  await new Promise((r) => setTimeout(r, 20));
}
assert.equal(state, "canceled");
console.log("cancel:", bg.result.id, state);
console.log("A2A CLIENT OK");
