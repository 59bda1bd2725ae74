package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func tool(t *testing.T, name string) Tool {
	t.Helper()
	for _, tl := range Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return Tool{}
}

func TestTitlesArePydantics(t *testing.T) {
	for in, want := range map[string]string{"agent_id": "Agent Id", "db_id": "Db Id", "session_state": "Session State", "message": "Message"} {
		if got := title(in); got != want {
			t.Errorf("title(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseAppliesDefaultsAndChecksTypes(t *testing.T) {
	gs := tool(t, "get_sessions")
	args, err := gs.parse(json.RawMessage(`{"db_id":"db"}`))
	if err != nil {
		t.Fatal(err)
	}
	if args.Str("session_type") != "agent" || args.Int("limit") != 20 || args.Int("page") != 1 || args.Str("sort_by") != "created_at" || args.Set("user_id") {
		t.Errorf("defaults %v", args)
	}
	for raw, want := range map[string]string{
		`{}`:                                "db_id: Missing required argument",
		`{"db_id":1}`:                       "db_id: Input should be a valid string",
		`{"db_id":"d","limit":"x"}`:         "limit: Input should be a valid integer",
		`{"db_id":"d","limit":2.5}`:         "limit: Input should be a valid integer",
		`{"db_id":"d","limit":null}`:        "limit: Input should be a valid integer, not null",
		`{"db_id":"d","nope":1}`:            "nope: Unexpected keyword argument",
		`[1]`:                               "arguments must be a JSON object",
		`{"db_id":"d","user_id":null}`:      "",
		`{"db_id":"d","session_name":"n"}`:  "",
		`{"db_id":"d","component_id":true}`: "component_id: Input should be a valid string",
	} {
		_, err := gs.parse(json.RawMessage(raw))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", raw, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	ds := tool(t, "delete_sessions")
	if _, err := ds.parse(json.RawMessage(`{"db_id":"d","session_ids":["a",2]}`)); err == nil || !strings.Contains(err.Error(), "session_ids: Input should be a valid list of strings") {
		t.Errorf("list of non-strings: %v", err)
	}
	cs := tool(t, "create_session")
	if _, err := cs.parse(json.RawMessage(`{"db_id":"d","session_state":[1]}`)); err == nil || !strings.Contains(err.Error(), "session_state: Input should be a valid dictionary") {
		t.Errorf("state not a dict: %v", err)
	}
}

func TestInputSchemaOfOptionalDict(t *testing.T) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(tool(t, "update_session").InputSchema(), &s); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Properties["session_state"])
	if string(b) != `{"anyOf":[{"additionalProperties":true,"type":"object"},{"type":"null"}],"default":null,"title":"Session State"}` {
		t.Errorf("session_state %s", b)
	}
	if strings.Join(s.Required, ",") != "session_id,db_id" {
		t.Errorf("required %v", s.Required)
	}
}

func TestResultShapes(t *testing.T) {
	r, err := result("Session deleted successfully")
	if err != nil || r.StructuredContent != nil || r.Content[0].(*mcp.TextContent).Text != "Session deleted successfully" {
		t.Fatalf("a str is its text: %v %v", r, err)
	}
	r, err = result(json.RawMessage("{\n  \"a\": 1\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(r.StructuredContent); string(b) != `{"a":1}` || r.Content[0].(*mcp.TextContent).Text != `{"a":1}` {
		t.Errorf("structured %s", b)
	}
	r, _ = result(json.RawMessage(`[1]`))
	if r.StructuredContent != nil {
		t.Errorf("a list has no structured content: %v", r.StructuredContent)
	}
}
