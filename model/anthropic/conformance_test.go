package anthropic_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/agno-go/agno/model/anthropic"
	"github.com/agno-go/agno/model/anthropic/anthropictest"
	"github.com/agno-go/agno/model/modeltest/providertest"
)

// The conformance suite against fakeAPI, the fake Messages API server.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Harness{
		Provider: anthropic.ProviderAnthropic,
		ID:       "claude-sonnet-4-5",
		Start:    startMessagesFake,
	})
}

// messagesFake adapts fakeAPI to the suite.
type messagesFake struct{ f *fakeAPI }

func startMessagesFake(t *testing.T, turns ...providertest.Turn) providertest.Fake {
	replies := make([]reply, len(turns))
	for i, turn := range turns {
		replies[i] = renderTurn(turn, fmt.Sprintf("msg_conformance_%d", i+1))
	}
	return messagesFake{newFakeAPIWithKey(t, providertest.APIKey, replies...)}
}

func (m messagesFake) URL() string                   { return m.f.srv.URL }
func (m messagesFake) Disconnected() <-chan struct{} { return m.f.gone }
func (m messagesFake) Close()                        { m.f.close() }

// renderTurn writes a turn as an error body, or as both a message body and
// the event stream of the same message: the fake answers a request with
// the one it asked for.
func renderTurn(turn providertest.Turn, id string) reply {
	if turn.Status != 0 {
		_, body := anthropictest.TurnError(turn)
		r := reply{status: turn.Status, body: string(body)}
		if turn.RetryAfter > 0 {
			// The API sends whole seconds.
			r.header = map[string]string{"retry-after": strconv.Itoa(int(turn.RetryAfter.Seconds()))}
		}
		return r
	}
	return reply{
		body: string(anthropictest.TurnMessage(turn, id)), sse: anthropictest.SSE(anthropictest.TurnEvents(turn, id)...),
		hold: turn.End == providertest.Stall, cut: turn.End == providertest.Cut,
	}
}

// Requests reads what the suite checks out of the recorded bodies.
func (m messagesFake) Requests() []providertest.Request {
	var out []providertest.Request
	for _, rec := range m.f.received() {
		out = append(out, anthropictest.ReadRequest(rec.header, rec.body))
	}
	return out
}
