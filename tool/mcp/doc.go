// Package mcp connects agents to Model Context Protocol servers (agno's
// MCPTools and MultiMCPTools, v2.6.13) on the official Go SDK.
//
// A *Tools holds one server over stdio, SSE or streamable HTTP; every tool
// the server lists becomes a *tool.Function whose parameters are the
// server's inputSchema. A *MultiTools holds several servers and routes
// each tool to its own server.
//
// Sessions. Each toolkit has a default session, opened by Connect. With a
// HeaderProvider on an HTTP transport, calls made inside a run (see
// run.FromContext) use a session carrying that run's headers:
//   - RefreshConnection on: the call opens, initialises, uses and closes its
//     own session; nothing is cached (agno #8230).
//   - RefreshConnection off: one session per run id, shared by the run's
//     parallel calls, closed by ReleaseRun, after RunSessionTTL, or by Close.
//
// Outside a run the default session is used. A session whose server went
// away is dropped, and the next call opens a new one; the call that found
// the server gone returns an error wrapping ErrSessionLost (agno turned it
// into result text; here the agent records a tool-call error and the run
// goes on). So is a session on which a request (a tool call, tools/list,
// a ping) timed out, though the call gets its timeout as result text.
// OpenSessions and TotalOpenSessions count live sessions, and every open
// and close is logged at debug level.
//
// Where this port differs from agno on purpose:
//   - Connect returns its error (agno logs it and returns) and leaves the
//     toolkit as it was before, so Connect can simply be called again.
//     MultiTools.Connect closes every server it had opened before returning
//     the error, which names the server that failed.
//   - A command such as ./server (any path containing a slash that exists)
//     is accepted; agno rejects it by mistake.
//   - An empty ToolNamePrefix means no prefix (agno turned "" into a
//     leading "_").
//   - MultiTools routes each tool to its own server even when an earlier
//     server failed under AllowPartialFailure (agno's index drift), and each
//     server keeps its own filters, prefix and human-in-the-loop lists.
//   - The go-sdk decodes inputSchema into a Go map, so the schema reaches the
//     model with its object keys sorted; its content is unchanged.
//   - Only a call's own server answering with an error, or the per-request
//     read timeout, becomes "Error: ..." result text; a lost connection is
//     an error (see above).
//   - A request that times out closes its session: a stdio server is
//     killed and reaped, calls still waiting on it fail with
//     ErrSessionLost, and the next call starts a new one. agno keeps the
//     session, so a hung server fails every later call after a full
//     timeout until restart.
package mcp
