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
// share with this package's tests (ExtraInterfaces, in route_test.go, is
// how the tests here that serve every interface get them).

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

// payTool adds what it pays to paid; each call needs a confirmation.
func payTool(paid *atomic.Int64) *tool.Function {
	return tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		paid.Add(int64(a.Amount))
		return "paid " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresConfirmation()))
}
