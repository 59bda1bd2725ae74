// Package interfacetest is the conformance suite every AgentOS interface
// (agentos.Interface) runs: a message without the interface's
// credentials is refused and runs nothing, a message runs the agent and
// is answered, a delivery sent again runs once, and a run that pauses on
// a tool call is answered through the interface and continues once,
// however often the answer is sent.
//
// The suite owns the agent's side (Fixture: a scripted model and a tool
// that needs a confirmation); a Driver, one per interface, talks to the
// interface the way its clients do.
package interfacetest

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
)

// Fixture is what the served agent is made of. Model answers a message
// "Echo: <message>"; for a message that contains "pay" it calls the
// tool pay {"amount": 42}, and when the tool's result comes back it
// answers "Done: <result>". Pay needs a confirmation and answers
// "paid 42". The fixture counts what the model was asked.
type Fixture struct {
	Model *modeltest.Fake
	Pay   tool.Provider

	turns, continuations, paid atomic.Int64
}

// NewFixture returns a fresh fixture.
func NewFixture() *Fixture {
	f := &Fixture{}
	f.Model = modeltest.NewFunc(func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			f.continuations.Add(1)
			return modeltest.Response{Content: "Done: " + last.Content}
		}
		f.turns.Add(1)
		if strings.Contains(last.Content, "pay") {
			return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("c1", "pay", `{"amount":42}`)}}
		}
		return modeltest.Response{Content: "Echo: " + last.Content}
	})
	f.Pay = tool.Must(tool.New("pay", "pay an amount", func(_ context.Context, a struct {
		Amount int `json:"amount"`
	}) (string, error) {
		f.paid.Add(1)
		return "paid " + strconv.Itoa(a.Amount), nil
	}, tool.RequiresConfirmation()))
	return f
}

// Turns is how many messages the model answered (tool results aside).
func (f *Fixture) Turns() int64 { return f.turns.Load() }

// Continuations is how many tool results the model was given back.
func (f *Fixture) Continuations() int64 { return f.continuations.Load() }

// Paid is how many times Pay ran on the server.
func (f *Fixture) Paid() int64 { return f.paid.Load() }

// Reply is what an interface said back.
type Reply struct {
	// Text is the answer's text (or the interface's note, for an answer
	// to a pause that was answered already).
	Text string
	// Paused: the run waits on the pay call; Ref is what the driver
	// needs to answer it (a task id, an approval card, a thread).
	Paused bool
	Ref    string
}

// Driver talks to one interface as its clients do, on an OS serving
// one agent made of the Fixture.
type Driver interface {
	// Refuse sends text without valid credentials (a bad signature, no
	// key or token) and returns the HTTP status.
	Refuse(t *testing.T, text string) int
	// Send delivers text as a new message, under the delivery id where
	// the protocol has one, and waits for the answer.
	Send(t *testing.T, id, text string) Reply
	// Redeliver sends the delivery id again, as a retrying sender or a
	// replay would; false when the protocol has no delivery id (the
	// suite skips that check).
	Redeliver(t *testing.T, id, text string) bool
	// Answer approves the pay call of the pause p (or, for a tool the
	// client runs, answers "paid 42") and waits for the answer.
	Answer(t *testing.T, p Reply) Reply
}

// Run runs the suite, each case on a new fixture and driver.
func Run(t *testing.T, newDriver func(t *testing.T, f *Fixture) Driver) {
	for _, c := range []struct {
		name  string
		check func(t *testing.T, f *Fixture, d Driver)
	}{{"Refused", refused}, {"Run", answered}, {"Replay", replayed}, {"PauseAndAnswer", pauseAndAnswer}} {
		t.Run(c.name, func(t *testing.T) {
			f := NewFixture()
			c.check(t, f, newDriver(t, f))
		})
	}
}

// refused: a message without credentials is refused and runs nothing.
func refused(t *testing.T, f *Fixture, d Driver) {
	if code := d.Refuse(t, "hello"); code != 401 && code != 403 {
		t.Fatalf("a message without credentials: status %d, want 401 or 403", code)
	}
	settle()
	if n := f.Turns(); n != 0 {
		t.Fatalf("a refused message ran the agent (%d turns)", n)
	}
}

// answered: a message runs the agent once and gets its answer.
func answered(t *testing.T, f *Fixture, d Driver) {
	r := d.Send(t, "d1", "hello there")
	if r.Paused || !strings.Contains(r.Text, "Echo: ") || !strings.Contains(r.Text, "hello there") {
		t.Fatalf("answer %+v, want the agent's Echo of the message", r)
	}
	if n := f.Turns(); n != 1 {
		t.Fatalf("%d turns, want 1", n)
	}
}

// replayed: a delivery sent twice runs once.
func replayed(t *testing.T, f *Fixture, d Driver) {
	d.Send(t, "d1", "hello there")
	if !d.Redeliver(t, "d1", "hello there") {
		t.Skip("the protocol has no delivery id")
	}
	// A later message is answered after the replay was taken: had the
	// replay run, its turn would be counted by then.
	d.Send(t, "d2", "and again")
	settle()
	if n := f.Turns(); n != 2 {
		t.Fatalf("%d turns after a delivery sent twice and another, want 2", n)
	}
}

// pauseAndAnswer: a run paused on pay continues once it is answered,
// once however often the answer is sent.
func pauseAndAnswer(t *testing.T, f *Fixture, d Driver) {
	p := d.Send(t, "d1", "pay please")
	if !p.Paused {
		t.Fatalf("answer %+v, want the run paused on pay", p)
	}
	if f.Paid() != 0 || f.Continuations() != 0 {
		t.Fatal("the tool ran before it was answered")
	}
	r := d.Answer(t, p)
	if r.Paused || !strings.Contains(r.Text, "Done: paid 42") {
		t.Fatalf("answer to the pause %+v, want Done: paid 42", r)
	}
	if n := f.Continuations(); n != 1 {
		t.Fatalf("%d continuations, want 1", n)
	}
	paid := f.Paid()
	d.Answer(t, p) // answered again: nothing runs
	settle()
	if n := f.Continuations(); n != 1 || f.Paid() != paid {
		t.Fatalf("a second answer continued the run again (%d continuations, paid %d times)", n, f.Paid())
	}
}

// settle gives work started in the background a moment to show.
func settle() { time.Sleep(50 * time.Millisecond) }
