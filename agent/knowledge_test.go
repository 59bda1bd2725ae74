package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/contents"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/knowledge/vectordb"
	vmemory "github.com/agno-go/agno/knowledge/vectordb/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/tool"
)

// agno's snippet (agent/_messages.py §3.3.13 → Knowledge.build_context).
const knowledgeSnippet = "<knowledge_base>\nYou have a knowledge base you can search using the search_knowledge_base tool. " +
	"Search before answering questions—don't assume you know the answer. " +
	"For ambiguous questions, search first rather than asking for clarification.\n</knowledge_base>"

const (
	jordanDoc = "Jordan Mitchell's salary review happens every March."
	alexDoc   = "Alex Rivera works on the payments team in Lisbon."
)

// handbook is a real knowledge base (in-memory stores, the built-in
// embedder) holding two documents with a user_id each.
func handbook(t *testing.T) *knowledge.Knowledge {
	t.Helper()
	lex, err := embedder.NewLexical(embedder.LexicalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vmemory.New(vmemory.Config{Embedder: lex, SearchType: vectordb.SearchHybrid})
	if err != nil {
		t.Fatal(err)
	}
	k, err := knowledge.New(t.Context(), knowledge.Config{Name: "handbook", VectorDB: vs, ContentsDB: contents.NewMemory(), MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []knowledge.Input{
		{Name: "jordan", TextContent: jordanDoc, Metadata: map[string]any{"user_id": "jordan"}},
		{Name: "alex", TextContent: alexDoc, Metadata: map[string]any{"user_id": "alex"}},
	} {
		if _, err := k.Insert(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	return k
}

// wireTool is a tool definition as the OpenAI client sent it.
type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict"`
	} `json:"function"`
}

func wireTools(t *testing.T, r modeltest.RecordedRequest) []wireTool {
	t.Helper()
	var body struct {
		Tools []wireTool `json:"tools"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Tools
}

func jsonEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v in %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

// toolResultDocs decodes the documents a search_knowledge_base result
// lists.
func toolResultDocs(t *testing.T, content string) []map[string]any {
	t.Helper()
	if !strings.HasPrefix(content, "[\n  {") {
		t.Fatalf("tool result is not json.dumps(docs, indent=2): %q", content)
	}
	var docs []map[string]any
	if err := json.Unmarshal([]byte(content), &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

// searchThenAnswer calls search_knowledge_base with args, then answers
// with the tool result it got.
func searchThenAnswer(args string) modeltest.Responder {
	return func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "answer from: " + last.Content}
		}
		return calls(modeltest.ToolCall("call_kb", "search_knowledge_base", args))
	}
}

// The agentic RAG round trip over the OpenAI wire format: the tool as
// agno declares it, the system-prompt snippet, the search result as the
// tool message, and the references on the output, the stored run and
// the RunCompleted event.
func TestAgentSearchesKnowledge(t *testing.T) {
	kb := handbook(t)
	m, srv := fakeOpenAI(t, searchThenAnswer(`{"query":"salary review March"}`))
	store := memory.New()
	a := newAgent(t, agent.Config{Name: "hr", Model: m, Knowledge: kb, Store: store})

	out, err := a.Run(t.Context(), "When is Jordan's salary review?", run.WithSessionID("s1"))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run: %v %s %v", err, out.Status, out.Content)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	tools := wireTools(t, reqs[0])
	if len(tools) != 1 || tools[0].Type != "function" || tools[0].Function.Name != "search_knowledge_base" {
		t.Fatalf("tools sent: %+v", tools)
	}
	if d := tools[0].Function.Description; d != "Use this function to search the knowledge base for information about a query." {
		t.Errorf("description %q", d)
	}
	if tools[0].Function.Strict != nil && *tools[0].Function.Strict {
		t.Error("the tool is strict; agno's from_callable is not")
	}
	jsonEqual(t, "parameters", tools[0].Function.Parameters,
		`{"type":"object","properties":{"query":{"type":"string","description":"The query to search for."}},"required":["query"]}`)

	first := reqs[0].Request
	if first.Messages[0].Role != model.RoleSystem || first.Messages[0].Content != knowledgeSnippet {
		t.Errorf("system message %q, want the knowledge snippet", first.Messages[0].Content)
	}
	// The user message is left alone without add_knowledge_to_context.
	if got := first.Messages[1].Content; got != "When is Jordan's salary review?" {
		t.Errorf("user message %q", got)
	}

	toolMsgs := toolMessages(reqs[1].Request)
	if len(toolMsgs) != 1 {
		t.Fatalf("tool messages %v", toolMsgs)
	}
	docs := toolResultDocs(t, toolMsgs[0].Content)
	if docs[0]["content"] != jordanDoc || docs[0]["name"] != "jordan" {
		t.Errorf("best document %v, want Jordan's", docs[0])
	}
	md, _ := docs[0]["meta_data"].(map[string]any)
	if md["user_id"] != "jordan" || md["linked_to"] != "handbook" {
		t.Errorf("meta_data %v", md)
	}
	// json.dumps' ensure_ascii: the apostrophe is ASCII, so the text is
	// the document's own; the result is what the model gets, unchanged.
	if !strings.Contains(out.ContentString(), `"content": "Jordan Mitchell's salary review happens every March."`) {
		t.Errorf("content %q", out.ContentString())
	}

	refs, err := agent.References(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Query != "salary review March" || len(refs[0].References) != len(docs) ||
		refs[0].References[0].Content != jordanDoc || refs[0].Time < 0 {
		t.Fatalf("references %+v", refs)
	}

	// The stored run carries them in agno's shape.
	rec, err := store.GetRun(t.Context(), out.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		References []map[string]any `json:"references"`
	}
	if err := json.Unmarshal(rec.Data, &stored); err != nil {
		t.Fatal(err)
	}
	if len(stored.References) != 1 || stored.References[0]["query"] != "salary review March" {
		t.Fatalf("stored references %v", stored.References)
	}
	if _, ok := stored.References[0]["time"].(float64); !ok {
		t.Errorf("time %v is not a number", stored.References[0]["time"])
	}
	list, _ := stored.References[0]["references"].([]any)
	if first, _ := list[0].(map[string]any); first["content"] != jordanDoc {
		t.Errorf("stored reference %v", list)
	}

	// A streamed run ends with RunCompleted carrying the references.
	var completed *run.RunCompleted
	for ev, err := range a.RunStream(t.Context(), "And Alex?", run.WithStreamEvents(true), run.WithSessionID("s2")) {
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := ev.(*run.RunCompleted); ok {
			completed = c
		}
	}
	if completed == nil || !strings.Contains(string(completed.References), `"query":"salary review March"`) {
		t.Fatalf("RunCompleted references: %+v", completed)
	}
}

// Nothing found: agno's "No documents found", and no references.
func TestAgentSearchFindsNothing(t *testing.T) {
	lex, _ := embedder.NewLexical(embedder.LexicalConfig{})
	vs, _ := vmemory.New(vmemory.Config{Embedder: lex})
	kb, err := knowledge.New(t.Context(), knowledge.Config{Name: "empty", VectorDB: vs})
	if err != nil {
		t.Fatal(err)
	}
	m, srv := fakeOpenAI(t, searchThenAnswer(`{"query":"anything"}`))
	a := newAgent(t, agent.Config{Model: m, Knowledge: kb})
	out, err := a.Run(t.Context(), "hi")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	if msgs := toolMessages(lastRequest(t, srv)); len(msgs) != 1 || msgs[0].Content != "No documents found" {
		t.Errorf("tool messages %v", msgs)
	}
	if len(out.References) != 0 {
		t.Errorf("references %s", out.References)
	}
}

// failingKnowledge is a knowledge base whose store is down.
type failingKnowledge struct{ agent.Knowledge }

func (failingKnowledge) Retrieve(context.Context, string, int, filter.Filters) ([]*document.Document, error) {
	return nil, errors.New("connection refused: password=hunter2")
}

// A failing search answers with the error's type only (agno hides the
// message, which may carry secrets), and the run goes on.
func TestAgentSearchFailureHidesTheMessage(t *testing.T) {
	m, srv := fakeOpenAI(t, searchThenAnswer(`{"query":"x"}`))
	a := newAgent(t, agent.Config{Model: m, Knowledge: failingKnowledge{handbook(t)}})
	out, err := a.Run(t.Context(), "hi")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	msgs := toolMessages(lastRequest(t, srv))
	if len(msgs) != 1 || msgs[0].Content != "Error searching knowledge base: Exception" {
		t.Errorf("tool messages %v", msgs)
	}
}

// With agentic filters the tool takes filters (agno's
// Optional[List[KnowledgeFilter]]), the system message lists the valid
// keys, and the model's filters narrow the search; unknown keys are
// dropped.
func TestAgentAgenticKnowledgeFilters(t *testing.T) {
	kb := handbook(t)
	args := make(chan string, 1)
	m, srv := fakeOpenAI(t, func(req *model.Request) modeltest.Response {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == model.RoleTool {
			return modeltest.Response{Content: "ok"}
		}
		return calls(modeltest.ToolCall("call_kb", "search_knowledge_base", <-args))
	})
	a := newAgent(t, agent.Config{Model: m, Knowledge: kb, EnableAgenticKnowledgeFilters: true})

	args <- `{"query":"salary review March","filters":[{"key":"user_id","value":"alex"}]}`
	if out, err := a.Run(t.Context(), "Where does Alex work?"); err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	reqs := srv.Requests()
	tools := wireTools(t, reqs[0])
	if len(tools) != 1 {
		t.Fatalf("tools %+v", tools)
	}
	jsonEqual(t, "agentic parameters", tools[0].Function.Parameters, `{"type":"object","properties":{
		"query":{"type":"string","description":"The query to search for."},
		"filters":{"type":"array","items":{"properties":{"key":{"title":"Key","type":"string"},"value":{"title":"Value"}},"required":["key","value"],"title":"KnowledgeFilter","type":"object"},
			"description":"(optional) The filters to apply to the search. This is a list of KnowledgeFilter objects."}},
		"required":["query"]}`)
	wantSystem, err := kb.BuildContext(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	sys := reqs[0].Request.Messages[0].Content
	if sys != wantSystem || !strings.HasPrefix(sys, strings.TrimSuffix(knowledgeSnippet, "\n</knowledge_base>")+"\n") ||
		!strings.Contains(sys, "user_id") || !strings.HasSuffix(sys, "\n</knowledge_base>") {
		t.Errorf("system message %q", sys)
	}
	// Despite a query matching Jordan's document, the filter keeps Alex's.
	docs := toolResultDocs(t, toolMessages(reqs[1].Request)[0].Content)
	if len(docs) != 1 || docs[0]["content"] != alexDoc {
		t.Errorf("filtered search returned %v", docs)
	}

	// A key no content has is dropped: the search runs unfiltered.
	args <- `{"query":"salary review March","filters":[{"key":"department","value":"payments"}]}`
	if _, err := a.Run(t.Context(), "Who?"); err != nil {
		t.Fatal(err)
	}
	if docs := toolResultDocs(t, toolMessages(lastRequest(t, srv))[0].Content); len(docs) != 2 || docs[0]["content"] != jordanDoc {
		t.Errorf("unknown filter key: %v", docs)
	}

	// Agent filters in the list form cannot be merged with the model's:
	// agno raises ValueError, which the tool reports by name.
	b := newAgent(t, agent.Config{Model: m, Knowledge: kb, EnableAgenticKnowledgeFilters: true,
		KnowledgeFilters: filter.List(filter.EQ("user_id", "jordan"))})
	args <- `{"query":"salary","filters":[{"key":"user_id","value":"alex"}]}`
	if _, err := b.Run(t.Context(), "Who?"); err != nil {
		t.Fatal(err)
	}
	if msgs := toolMessages(lastRequest(t, srv)); msgs[0].Content != "Error searching knowledge base: ValueError" {
		t.Errorf("unmergeable filters: %q", msgs[0].Content)
	}
}

// add_knowledge_to_context: references for the user message are appended
// to it as agno formats them (ensure_ascii=False), filtered by the run's
// knowledge_filters; with search_knowledge off there is no tool and no
// snippet.
func TestAgentAddKnowledgeToContext(t *testing.T) {
	kb := handbook(t)
	m, srv := fakeOpenAI(t, func(*model.Request) modeltest.Response { return text("March.") })
	off := false
	a := newAgent(t, agent.Config{Model: m, Knowledge: kb, AddKnowledgeToContext: true, SearchKnowledge: &off})

	const input = "When is the salary review — in March?"
	out, err := a.Run(t.Context(), input, run.WithKnowledgeFilters(map[string]any{"user_id": "jordan"}))
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	req := lastRequest(t, srv)
	if len(req.Tools) != 0 {
		t.Errorf("tools %v, want none with search_knowledge off", req.Tools)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != model.RoleUser {
		t.Fatalf("messages %v, want only the user message (no snippet without search)", req.Messages)
	}
	user := req.Messages[0].Content
	head := input + "\n\nUse the following references from the knowledge base if it helps:\n<references>\n"
	if !strings.HasPrefix(user, head) || !strings.HasSuffix(user, "\n</references>") {
		t.Fatalf("user message %q", user)
	}
	docs := toolResultDocs(t, strings.TrimSuffix(strings.TrimPrefix(user, head), "\n</references>"))
	if len(docs) != 1 || docs[0]["content"] != jordanDoc {
		t.Errorf("references in the message %v, want Jordan's only", docs)
	}
	refs, _ := agent.References(out)
	if len(refs) != 1 || refs[0].Query != input || refs[0].References[0].Content != jordanDoc {
		t.Errorf("references %+v", refs)
	}

	// Non-ASCII stays as is in the references (ensure_ascii=False).
	if _, err := kb.Insert(t.Context(), knowledge.Input{Name: "café", TextContent: "Le café ouvre à 8h — salary review aussi."}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(t.Context(), "café salary review"); err != nil {
		t.Fatal(err)
	}
	if user := lastRequest(t, srv).Messages[0].Content; !strings.Contains(user, "Le café ouvre à 8h — salary review aussi.") {
		t.Errorf("references escaped non-ASCII: %q", user)
	}
}

// A team leader searches its own knowledge base: the snippet follows the
// instructions (agno's team §2.3) and the tool is the leader's.
func TestTeamSearchesKnowledge(t *testing.T) {
	kb := handbook(t)
	m, srv := fakeOpenAI(t, searchThenAnswer(`{"query":"payments Lisbon"}`))
	member := newAgent(t, agent.Config{Name: "Writer", Model: m})
	tm, err := team.New(team.Config{Name: "HR Team", Model: m, Members: []run.Executor{member},
		Instructions: []string{"Answer from the handbook."}, Knowledge: kb})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tm.Run(t.Context(), "Where does Alex work?")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, out)
	}
	reqs := srv.Requests()
	sys := reqs[0].Request.Messages[0].Content
	// The snippet ends the message here, so its trailing "\n" is stripped.
	if !strings.HasSuffix(sys, "</how_to_respond>\n\nAnswer from the handbook.\n\n"+knowledgeSnippet) {
		t.Errorf("team system message %q", sys)
	}
	var names []string
	for _, tl := range wireTools(t, reqs[0]) {
		names = append(names, tl.Function.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "search_knowledge_base") {
		t.Errorf("team tools %v", names)
	}
	refs, _ := agent.References(out)
	if len(refs) != 1 || refs[0].References[0].Content != alexDoc {
		t.Errorf("team references %+v", refs)
	}
}

// Knowledge settings without a knowledge base are a configuration error.
func TestAgentKnowledgeSettingsNeedKnowledge(t *testing.T) {
	_, err := agent.New(agent.Config{Model: modeltest.New(), AddKnowledgeToContext: true})
	if err == nil || !strings.Contains(err.Error(), "Knowledge") {
		t.Fatalf("err %v", err)
	}
}

// References survive a pause: the run stored while paused has the first
// search's, and the continuation (a new agent on the same store, as
// after a restart) adds its own to them.
func TestReferencesAcrossPauseAndContinue(t *testing.T) {
	kb := handbook(t)
	var sent atomic.Int32
	send, _ := hitlTools(t, &sent)
	store := memory.New()
	first := modeltest.New(calls(modeltest.ToolCall("c1", "search_knowledge_base", `{"query":"salary review"}`),
		modeltest.ToolCall("c2", "send_email", `{"to":"jordan@example.com","subject":"review"}`)))
	cfg := agent.Config{Name: "Mailer", Model: first, Tools: []tool.Provider{send}, Store: store, Knowledge: kb}
	out, err := newAgent(t, cfg).Run(context.Background(), "email jordan", run.WithSessionID("s1"))
	if err != nil || out.Status != run.StatusPaused {
		t.Fatalf("%v %v", err, out)
	}
	rec, err := store.GetRun(context.Background(), out.RunID)
	if err != nil || !strings.Contains(string(rec.Data), `"references":[{"query":"salary review"`) {
		t.Fatalf("paused run stored without references: %v %s", err, rec.Data)
	}

	cfg.Model = modeltest.New(calls(modeltest.ToolCall("c3", "search_knowledge_base", `{"query":"payments Lisbon"}`)), text("Sent, and Alex is in Lisbon."))
	reqs := out.ActiveRequirements()
	if err := reqs[0].Confirm(); err != nil {
		t.Fatal(err)
	}
	done, err := newAgent(t, cfg).Continue(context.Background(), run.ContinueRequest{RunID: out.RunID, SessionID: "s1", Requirements: reqs})
	if err != nil || done.Status != run.StatusCompleted {
		t.Fatalf("%v %v", err, done)
	}
	refs, err := agent.References(done)
	if err != nil || len(refs) != 2 || refs[0].Query != "salary review" || refs[1].Query != "payments Lisbon" || refs[1].References[0].Content != alexDoc {
		t.Fatalf("references after continue %+v %v", refs, err)
	}
	rec, _ = store.GetRun(context.Background(), out.RunID)
	var stored struct {
		References []agent.MessageReferences `json:"references"`
	}
	if err := json.Unmarshal(rec.Data, &stored); err != nil || len(stored.References) != 2 {
		t.Fatalf("stored references %+v %v", stored.References, err)
	}
}
