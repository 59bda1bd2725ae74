// The TypeScript SDK's client against AgentOS's /mcp: connects over
// streamable HTTP, lists the tools, runs an agent through run_agent and
// reads its session back with get_sessions and get_session_runs.
// Usage: node client.mjs <mcp url> <agent id> <message>; MCP_TOKEN is
// sent as the bearer token. Prints one JSON object on stdout.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, agentId, message] = process.argv.slice(2);
const headers = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
const client = new Client({ name: "agno-go-ts-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });

const text = (res) => {
  if (res.isError) throw new Error(`tool error: ${res.content[0].text}`);
  return res.content[0].text;
};

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const run = JSON.parse(text(await client.callTool({ name: "run_agent", arguments: { agent_id: agentId, message } })));
  const sessions = JSON.parse(text(await client.callTool({ name: "get_sessions", arguments: { db_id: "agno-db" } })));
  const runs = JSON.parse(text(await client.callTool({ name: "get_session_runs", arguments: { db_id: "agno-db", session_id: run.session_id } })));
  const unknown = await client.callTool({ name: "run_agent", arguments: { agent_id: "nope", message } });
  console.log(JSON.stringify({
    server: client.getServerVersion(),
    tools: tools.map((t) => t.name),
    runAgentSchema: tools.find((t) => t.name === "run_agent").inputSchema,
    run: { run_id: run.run_id, session_id: run.session_id, content: run.content, status: run.status },
    sessionIds: sessions.data.map((s) => s.session_id),
    meta: sessions.meta,
    runIds: runs.map((r) => r.run_id),
    unknown: { isError: unknown.isError, text: unknown.content[0].text },
  }));
  await client.close();
} catch (err) {
  console.error(String(err && err.stack ? err.stack : err));
  process.exit(1);
}
