package a2a

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agno-go/agno/reasoning"
	"github.com/agno-go/agno/run"
)

func sendReq(t *testing.T, body string) (*SendParams, error) {
	t.Helper()
	req, err := ParseRequest([]byte(body))
	if err != nil {
		return nil, err
	}
	return ParseSend(req)
}

func TestParseSend(t *testing.T) {
	bad := map[string]string{
		`{"jsonrpc":"1.0","id":1,"method":"message/send","params":{}}`:                                             "jsonrpc must be",
		`{"jsonrpc":"2.0","method":"message/send","params":{}}`:                                                    "id is required",
		`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}`:                                             "params.message is required",
		`{"jsonrpc":"2.0","id":1,"params":{"message":{"messageId":"m","role":"bot","parts":[]}}}`:                  "role must be",
		`{"jsonrpc":"2.0","id":1,"params":{"message":{"messageId":"m","role":"user"}}}`:                            "parts is required",
		`{"jsonrpc":"2.0","id":1,"params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"video"}]}}}`: `kind "video"`,
		`{"jsonrpc":"2.0","id":1,"params":{"message":{"messageId":"m","role":"user","parts":[{"kind":"data"}]}}}`:  "needs data",
		`{"jsonrpc":"2.0","id":1,"params":{"message":{"kind":"task","messageId":"m","role":"user","parts":[]}}}`:   `kind must be "message"`,
	}
	for body, want := range bad {
		_, err := sendReq(t, body)
		var ie *InvalidError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "Invalid A2A request: ") {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if _, err := sendReq(t, `{"jsonrpc":"2.0","id":"x","params":{"message":{"messageId":"m","role":"agent","parts":[]}}}`); !errors.Is(err, ErrNotUser) {
		t.Fatalf("agent role: %v", err)
	}
	p, err := sendReq(t, `{"jsonrpc":"2.0","id":"x","method":"message/send","params":{"message":{"messageId":"m","role":"user","contextId":"s1",
		"parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"b":1,"a":[true,null],"c":{"x":1.5,"y":"\u00e9","z":[]}}},{"kind":"file","file":{"uri":"https://x/img.png","mimeType":"image/png"}},
		{"kind":"file","file":{"bytes":"aGVsbG8=","mimeType":"text/plain","name":"h.txt"}},{"kind":"file","file":{"uri":"https://x/y"}}]}}}`)
	if err != nil {
		t.Fatal(err)
	}
	in, err := MapInput(p.Message)
	if err != nil {
		t.Fatal(err)
	}
	// Data parts are json.dumps'd (Python separators, key order kept).
	if in.Text != `hi`+"\n"+`{"b": 1, "a": [true, null], "c": {"x": 1.5, "y": "\u00e9", "z": []}}` || len(in.Images) != 1 || in.Images[0].URL != "https://x/img.png" ||
		len(in.Files) != 1 || string(in.Files[0].Content) != "hello" || in.Files[0].Filename != "h.txt" {
		t.Fatalf("input %+v", in)
	}
	m := &Message{Parts: []Part{{Kind: "file", File: &FileContent{URI: "https://x/doc.pdf", MimeType: "application/pdf"}}}}
	if _, err := MapInput(m); err == nil || !strings.Contains(err.Error(), "send other files inline") {
		t.Fatalf("pdf by uri: %v", err)
	}
}

func TestStreamOutcomes(t *testing.T) {
	s := NewStream("r1", "s1")
	ev := run.Stamp(&run.RunContent{EventBase: run.EventBase{RunID: "r1", SessionID: "s1"}, Content: "part"})
	if fs := s.Event(ev); len(fs) != 1 || fs[0].Name != EventMessage {
		t.Fatalf("content frames %v", fs)
	}
	// A member's start is not the task's.
	if fs := s.Event(run.Stamp(&run.RunStarted{EventBase: run.EventBase{RunID: "member"}})); len(fs) != 0 {
		t.Fatalf("member start %v", fs)
	}
	fs := s.End(Outcome{Status: run.StatusCancelled, Reason: "stop"})
	st := fs[0].Result.(*TaskStatusUpdateEvent)
	task := fs[1].Result.(*Task)
	if st.Status.State != StateCanceled || !st.Final || st.Metadata["reason"] != "stop" || task.Status.State != StateCanceled ||
		len(task.History[0].Parts) != 2 || task.History[0].Parts[0].Text != "part" || task.History[0].Parts[1].Text != "Run was cancelled: stop" {
		t.Fatalf("cancelled %+v %+v", st, task)
	}
	fs = NewStream("r2", "s2").End(Outcome{Err: errors.New("model down")})
	task = fs[1].Result.(*Task)
	if fs[0].Result.(*TaskStatusUpdateEvent).Status.State != StateFailed || task.History[0].Parts[0].Text != "Error: model down" || task.ID != "r2" {
		t.Fatalf("failed %+v", task)
	}
	// Golden key sets of the wire objects.
	b, _ := json.Marshal(NewStatus("t", "c", StateWorking, false, nil))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if len(m) != 5 || m["kind"] != "status-update" || m["taskId"] != "t" || m["contextId"] != "c" || m["final"] != false {
		t.Fatalf("status-update %s", b)
	}
}

func TestStates(t *testing.T) {
	for s, want := range map[run.Status]TaskState{run.StatusPending: StateSubmitted, run.StatusRunning: StateWorking, run.StatusCompleted: StateCompleted,
		run.StatusError: StateFailed, run.StatusCancelled: StateCanceled, run.StatusPaused: StateInputRequired} {
		if State(s) != want {
			t.Errorf("%s → %s, want %s", s, State(s), want)
		}
	}
}

// Reasoning events as agno's A2A interface streams them: started and
// completed as working statuses, each step as a reasoning message with
// its reasoning_content and step_type.
func TestStreamReasoning(t *testing.T) {
	s := NewStream("r1", "s1")
	b := run.EventBase{RunID: "r1", SessionID: "s1"}
	title := "Plan"
	fs := s.Event(run.Stamp(&run.ReasoningStarted{EventBase: b}))
	if len(fs) != 1 || fs[0].Result.(*TaskStatusUpdateEvent).Metadata["agno_event_type"] != "reasoning_started" {
		t.Fatalf("started %+v", fs)
	}
	fs = s.Event(run.Stamp(&run.ReasoningStep{EventBase: b, Content: reasoning.Step{Title: &title}, ContentType: reasoning.StepContentType, ReasoningContent: "## Plan\n\n"}))
	if len(fs) != 1 || fs[0].Name != EventMessage {
		t.Fatalf("step %+v", fs)
	}
	msg, _ := json.Marshal(fs[0].Result)
	var m map[string]any
	_ = json.Unmarshal(msg, &m)
	part := m["parts"].([]any)[0].(map[string]any)
	if part["text"] != "## Plan\n\n" || part["metadata"].(map[string]any)["step_type"] != "ReasoningStep" || m["metadata"].(map[string]any)["agno_content_category"] != "reasoning" {
		t.Fatalf("step message %s", msg)
	}
	team := run.EventBase{RunID: "r1", TeamID: "t"}
	fs = s.Event(run.Stamp(&run.ReasoningCompleted{EventBase: team, Content: reasoning.Completed{}, ContentType: reasoning.CompletedContentType}))
	if len(fs) != 1 || fs[0].Result.(*TaskStatusUpdateEvent).Metadata["agno_event_type"] != "reasoning_completed" {
		t.Fatalf("team completed %+v", fs)
	}
}
