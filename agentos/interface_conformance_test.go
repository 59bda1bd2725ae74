package agentos

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos/a2a"
	"github.com/agno-go/agno/agentos/agui"
	"github.com/agno-go/agno/agentos/interfacetest"
	"github.com/agno-go/agno/tool"
)

// The built-in interfaces pass the interface conformance suite.

func TestA2AConformance(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		e := newA2AEnv(t, nil, func(c *Config) {
			c.SecurityKey = "os-key"
			c.Agents = []*agent.Agent{newAgent(t, agent.Config{ID: "helper", Name: "Helper", Model: f.Model, Store: c.Store, Tools: []tool.Provider{f.Pay}})}
		})
		return &a2aDriver{e: e, tasks: map[string]map[string]any{}}
	})
}

func TestAGUIConformance(t *testing.T) {
	interfacetest.Run(t, func(t *testing.T, f *interfacetest.Fixture) interfacetest.Driver {
		// The client runs pay: a frontend tool, so the pause is its call.
		e := newAGUIEnv(t, func(c *Config) {
			c.SecurityKey = "os-key"
			c.Agents = []*agent.Agent{newAgent(t, agent.Config{ID: "assistant", Name: "Assistant", Model: f.Model, Store: c.Store})}
		})
		return &aguiDriver{e: e, asked: map[string]string{}}
	})
}

// a2aDriver sends message/send with the key; a pause is an
// input-required task, answered with its requirements confirmed.
type a2aDriver struct {
	e     *a2aEnv
	tasks map[string]map[string]any
}

const a2aPath = "/a2a/agents/helper/v1/message:send"

func (d *a2aDriver) Refuse(t *testing.T, text string) int {
	code, _ := d.e.post(t, a2aPath, a2a.MethodSend, a2aSend(text, ""))
	return code
}

func (d *a2aDriver) reply(t *testing.T, task map[string]any) interfacetest.Reply {
	t.Helper()
	st := task["status"].(map[string]any)
	if st["state"] == "input-required" {
		d.tasks[task["id"].(string)] = task
		return interfacetest.Reply{Paused: true, Ref: task["id"].(string)}
	}
	h, _ := task["history"].([]any)
	if len(h) == 0 {
		return interfacetest.Reply{Text: fmt.Sprint(st["state"])}
	}
	return interfacetest.Reply{Text: textOf(t, h[0])}
}

func (d *a2aDriver) Send(t *testing.T, _, text string) interfacetest.Reply {
	t.Helper()
	return d.reply(t, d.e.call(t, a2aPath, a2a.MethodSend, a2aSend(text, ""), "Authorization", "Bearer os-key"))
}

func (d *a2aDriver) Redeliver(*testing.T, string, string) bool { return false } // no delivery id

func (d *a2aDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	t.Helper()
	task := d.tasks[p.Ref]
	parts := task["status"].(map[string]any)["message"].(map[string]any)["parts"].([]any)
	reqs := parts[1].(map[string]any)["data"].(map[string]any)["requirements"].([]any)
	for _, r := range reqs {
		r.(map[string]any)["confirmation"] = true
	}
	m := a2aSend("", "")
	msg := m["message"].(map[string]any)
	msg["taskId"], msg["contextId"] = task["id"], task["contextId"]
	msg["parts"] = []any{map[string]any{"kind": "data", "data": map[string]any{"requirements": reqs}}}
	return d.reply(t, d.e.call(t, a2aPath, a2a.MethodSend, m, "Authorization", "Bearer os-key"))
}

// aguiDriver posts RunAgentInput with the key, pay declared as a
// frontend tool; a pause is the stream ending on its call, answered with
// the tool message "paid 42".
type aguiDriver struct {
	e     *aguiEnv
	n     int
	asked map[string]string // thread → the message
}

var aguiPay = []agui.Tool{{Name: "pay", Description: "pay an amount", Parameters: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"}}}`)}}

func (d *aguiDriver) Refuse(t *testing.T, text string) int {
	code, _ := d.e.post(t, aguiInput("t-refused", "r-refused", nil, aguiPay, aguiUser("m1", text)))
	return code
}

func (d *aguiDriver) run(t *testing.T, thread string, msgs ...agui.Message) interfacetest.Reply {
	t.Helper()
	d.n++
	code, evs := d.e.post(t, aguiInput(thread, fmt.Sprintf("r%d", d.n), nil, aguiPay, msgs...), "Authorization", "Bearer os-key")
	if code != http.StatusOK || len(evs) == 0 {
		t.Fatalf("AG-UI answered %d", code)
	}
	if call := aguiFind(evs, "TOOL_CALL_START"); call != nil && call["toolCallName"] == "pay" {
		return interfacetest.Reply{Paused: true, Ref: thread + "|" + call["toolCallId"].(string)}
	}
	var text strings.Builder
	for _, ev := range evs {
		if ev["type"] == "TEXT_MESSAGE_CONTENT" {
			text.WriteString(ev["delta"].(string))
		}
		if ev["type"] == "RUN_ERROR" {
			text.WriteString(ev["message"].(string))
		}
	}
	return interfacetest.Reply{Text: text.String()}
}

func (d *aguiDriver) Send(t *testing.T, id, text string) interfacetest.Reply {
	t.Helper()
	d.asked["t-"+id] = text
	return d.run(t, "t-"+id, aguiUser("m1", text))
}

func (d *aguiDriver) Redeliver(*testing.T, string, string) bool { return false } // no delivery id

func (d *aguiDriver) Answer(t *testing.T, p interfacetest.Reply) interfacetest.Reply {
	t.Helper()
	thread, callID, _ := strings.Cut(p.Ref, "|")
	call := agui.Message{ID: "a1", Role: "assistant", ToolCalls: []agui.ToolCall{{ID: callID, Type: "function", Function: agui.FunctionCall{Name: "pay", Arguments: `{"amount":42}`}}}}
	result := agui.Message{ID: "tm1", Role: "tool", ToolCallID: callID, Content: json.RawMessage(`"paid 42"`)}
	return d.run(t, thread, aguiUser("m1", d.asked[thread]), call, result)
}
