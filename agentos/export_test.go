package agentos

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/agno-go/agno/tool"
)

// The Slack and MCP server interfaces live in packages that import
// agentos (agentos/slack, agentos/mcpserver), so the tests that serve
// them are external (package agentos_test): these are the helpers they
// share with this package's tests, and the hooks through which the
// tests here that serve every interface get those two.

// Drain refuses new runs and waits for o's runs and background work to
// end, as a shutdown does; it answers the ids still running when ctx
// ended.
func Drain(ctx context.Context, o *OS) []string { return o.eng.Drain(ctx, errShutdown) }

var (
	NewAgent     = newAgent
	NewTeam      = newTeam
	GetLocal     = getLocal
	FetchOpenAPI = fetchOpenAPI
	PayTool      = payTool
)

// NewSlackInterface and NewMCPServerInterface build the Slack interface
// answering as agentID and the MCP server, for everyRouteOS and
// fullDocsOS; an external test sets them from its init.
var (
	NewSlackInterface     func(agentID string) Interface
	NewMCPServerInterface func() Interface
)

// payTool adds what it pays to paid; each call needs a confirmation.
func payTool(paid *atomic.Int64) *tool.Function {
	return tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int64(a.Amount))
		return "paid " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresConfirmation()))
}
