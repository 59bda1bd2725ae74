package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

// fakeOpenAI returns a real OpenAI client on a fake OpenAI-compatible
// server answering with fn, and the server, whose recorded requests show
// exactly what the model received.
func fakeOpenAI(t *testing.T, fn modeltest.Responder) (model.Model, *modeltest.Server) {
	t.Helper()
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fn})
	t.Cleanup(srv.Close)
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "test", ID: "fake-model", Compatible: true, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

// historyModel answers "re: <input>", calls echo for inputs starting with
// "tool", and answers a tool result with "done: <result>".
func historyModel(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	switch {
	case last.Role == model.RoleTool:
		return modeltest.Response{Content: "done: " + last.Content}
	case strings.HasPrefix(last.Content, "tool"):
		return calls(modeltest.ToolCall("c-"+last.Content, "echo", `{"text":"`+last.Content+`"}`))
	}
	return modeltest.Response{Content: "re: " + last.Content}
}

// transcript renders a request's messages one per line: role, then text
// or the tool calls of an assistant turn.
func transcript(req *model.Request) string {
	var lines []string
	for _, m := range req.Messages {
		line := string(m.Role) + ": " + m.Content
		for _, tc := range m.ToolCalls {
			line += " [call " + tc.Function.Name + " " + tc.Function.Arguments + "]"
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// lastRequest is the last chat completion request the server received.
func lastRequest(t *testing.T, srv *modeltest.Server) *model.Request {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Request == nil {
		t.Fatal("no request recorded")
	}
	return reqs[len(reqs)-1].Request
}

// runAll runs each input in session "s", failing unless every run completes.
func runAll(t *testing.T, a *agent.Agent, inputs ...string) {
	t.Helper()
	for _, in := range inputs {
		out, err := a.Run(context.Background(), in, run.WithSessionID("s"))
		if err != nil || out.Status != run.StatusCompleted {
			t.Fatalf("run %q: err %v status %s content %v", in, err, out.Status, out.Content)
		}
	}
}

func lines(s ...string) string { return strings.Join(s, "\n") }

func TestHistoryDefaultsToThreeRuns(t *testing.T) {
	m, srv := fakeOpenAI(t, historyModel)
	a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true})
	runAll(t, a, "q1", "q2", "q3", "q4", "q5")
	want := lines(
		"user: q2", "assistant: re: q2",
		"user: q3", "assistant: re: q3",
		"user: q4", "assistant: re: q4",
		"user: q5")
	if got := transcript(lastRequest(t, srv)); got != want {
		t.Fatalf("model received:\n%s\nwant:\n%s", got, want)
	}
}

func TestHistoryNumRuns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		runs     int
		messages int
		want     string
	}{
		{"one run", 1, 0, lines("user: q3", "assistant: re: q3", "user: q4")},
		{"more runs than stored", 10, 0, lines("user: q1", "assistant: re: q1", "user: q2", "assistant: re: q2", "user: q3", "assistant: re: q3", "user: q4")},
		// agno: the two limits are exclusive and the run limit wins.
		{"runs win over messages", 1, 1, lines("user: q3", "assistant: re: q3", "user: q4")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, srv := fakeOpenAI(t, historyModel)
			a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true,
				NumHistoryRuns: tc.runs, NumHistoryMessages: tc.messages})
			runAll(t, a, "q1", "q2", "q3", "q4")
			if got := transcript(lastRequest(t, srv)); got != tc.want {
				t.Fatalf("model received:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestHistoryNumMessages(t *testing.T) {
	// Stored messages, oldest first: user q1, assistant re: q1, user tool1,
	// assistant [call echo], tool echo:tool1, assistant done: echo:tool1,
	// user q3, assistant re: q3 — eight, over more than three runs.
	for _, tc := range []struct {
		limit int
		want  string
	}{
		{2, lines("user: q3", "assistant: re: q3")},
		// The last four start with the tool result: it is dropped so
		// history never opens with a result whose call is missing.
		{4, lines("assistant: done: echo:tool1", "user: q3", "assistant: re: q3")},
		{5, lines(`assistant:  [call echo {"text":"tool1"}]`, "tool: echo:tool1", "assistant: done: echo:tool1", "user: q3", "assistant: re: q3")},
		// A message limit reads every run of the session, not the default
		// last three.
		{100, lines("user: q0", "assistant: re: q0", "user: q1", "assistant: re: q1", `user: tool1`, `assistant:  [call echo {"text":"tool1"}]`,
			"tool: echo:tool1", "assistant: done: echo:tool1", "user: q3", "assistant: re: q3")},
	} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			m, srv := fakeOpenAI(t, historyModel)
			a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true,
				NumHistoryMessages: tc.limit, Tools: []tool.Provider{echoTool(t)}})
			runAll(t, a, "q0", "q1", "tool1", "q3", "now")
			want := tc.want + "\nuser: now"
			if got := transcript(lastRequest(t, srv)); got != want {
				t.Fatalf("model received:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// Runs that paused, were cancelled or failed are not history, and they do
// not count towards the run limit: the limit picks among the rest.
func TestHistorySkipsPausedCancelledAndFailedRuns(t *testing.T) {
	ctx := context.Background()
	blocked := make(chan struct{})
	confirm := tool.Must(tool.New("pay", "Pay", func(context.Context, struct{}) (string, error) { return "paid", nil }, tool.RequiresConfirmation()))
	wait := tool.Must(tool.New("wait", "Wait", func(ctx context.Context, _ struct{}) (string, error) {
		close(blocked)
		<-ctx.Done()
		return "", ctx.Err()
	}))
	m, srv := fakeOpenAI(t, func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		switch last.Content {
		case "fail":
			return modeltest.Response{Status: 400, ErrorMessage: "bad request"}
		case "pause":
			return calls(modeltest.ToolCall("p", "pay", `{}`))
		case "cancel":
			return calls(modeltest.ToolCall("w", "wait", `{}`))
		}
		return historyModel(req)
	})
	a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true,
		Tools: []tool.Provider{confirm, wait}})

	runAll(t, a, "q1")
	for in, want := range map[string]run.Status{"fail": run.StatusError, "pause": run.StatusPaused} {
		out, _ := a.Run(ctx, in, run.WithSessionID("s"))
		if out.Status != want {
			t.Fatalf("%s: status %s, want %s", in, out.Status, want)
		}
	}
	done := make(chan *run.Output)
	go func() {
		out, _ := a.Run(ctx, "cancel", run.WithSessionID("s"), run.WithRunID("to-cancel"))
		done <- out
	}()
	<-blocked
	if ok, err := a.Cancel(ctx, "to-cancel"); !ok || err != nil {
		t.Fatalf("cancel: %v %v", ok, err)
	}
	if out := <-done; out.Status != run.StatusCancelled {
		t.Fatalf("cancel: status %s", out.Status)
	}
	runAll(t, a, "q5", "now")
	want := lines("user: q1", "assistant: re: q1", "user: q5", "assistant: re: q5", "user: now")
	if got := transcript(lastRequest(t, srv)); got != want {
		t.Fatalf("model received:\n%s\nwant:\n%s", got, want)
	}
}

// A run with a parent (a member or sub-run stored in the same session) is
// not history of the session's own conversation.
func TestHistoryOnlyTopLevelRuns(t *testing.T) {
	m, srv := fakeOpenAI(t, historyModel)
	a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true})
	ctx := context.Background()
	runAll(t, a, "q1")
	child, err := a.Run(ctx, "child", run.WithSessionID("s"), run.WithParentRunID("parent-run"), run.WithHistory(false))
	if err != nil || child.Status != run.StatusCompleted || child.ParentRunID != "parent-run" {
		t.Fatalf("child run: err %v status %s parent %q", err, child.Status, child.ParentRunID)
	}
	runAll(t, a, "q2", "now")
	want := lines("user: q1", "assistant: re: q1", "user: q2", "assistant: re: q2", "user: now")
	if got := transcript(lastRequest(t, srv)); got != want {
		t.Fatalf("model received:\n%s\nwant:\n%s", got, want)
	}
}

// History keeps the user's messages when the system message is sent with a
// conversation role: agno skips the system role from history only when it
// is not user, assistant or tool.
func TestHistoryWithUserRoleSystemMessage(t *testing.T) {
	m, srv := fakeOpenAI(t, historyModel)
	a := newAgent(t, agent.Config{Name: "Pal", Model: m, Store: memory.New(), AddHistoryToContext: true,
		Instructions: []string{"Be brief."}, SystemMessageRole: model.RoleUser})
	runAll(t, a, "q1", "now")
	want := lines("user: Be brief.", "user: Be brief.", "user: q1", "assistant: re: q1", "user: now")
	if got := transcript(lastRequest(t, srv)); got != want {
		t.Fatalf("model received:\n%s\nwant:\n%s", got, want)
	}
}
