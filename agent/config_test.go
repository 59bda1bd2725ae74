package agent_test

import (
	"context"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/memory"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	memstore "github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/tool"
)

type stubCanceller struct{ run.Canceller }

// TestConfigRoundTrip sets every Config field and checks Config returns
// each as given: the agent keeps no copy of Config, it rebuilds it, so a
// field added to Config but not to the rebuild fails here.
func TestConfigRoundTrip(t *testing.T) {
	m := modeltest.New(text("ok"))
	store := memstore.New()
	mm, err := memory.NewManager(memory.ManagerConfig{Model: m, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := memory.NewSummaryManager(memory.SummaryConfig{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := agent.OutputSchemaFor[cityArgs]()
	if err != nil {
		t.Fatal(err)
	}
	reasoner, err := agent.New(agent.Config{Name: "Reasoner", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	in := agent.Config{
		ID: "id-1", Name: "Name", Description: "desc", Role: "role",
		Model: m, FallbackModels: []model.Model{modeltest.New()}, Fallbacks: &agent.Fallbacks{OnError: []model.Model{modeltest.New()}},
		Instructions:      []string{"be brief"},
		InstructionsFunc:  func(context.Context, *run.Context) ([]string, error) { return nil, nil },
		SystemMessage:     "sys",
		SystemMessageFunc: func(context.Context, *run.Context) (string, error) { return "", nil },
		SystemMessageRole: model.RoleSystem,
		BuildContext:      &yes, ResolveInContext: &no, UseInstructionTags: true, Markdown: true,
		AddNameToContext: true, AddDatetime: true, Timezone: time.UTC, ExpectedOutput: "out",
		AdditionalContext: "ctx", AdditionalInput: []model.Message{{Role: model.RoleUser, Content: "x"}},
		Tools: []tool.Provider{getWeather},
		ToolHooks: []tool.Hook{func(ctx context.Context, c *tool.Call, a map[string]any, next tool.Handler) (tool.Result, error) {
			return next(ctx, a)
		}},
		ToolCallLimit: 2, ToolChoice: &model.ToolChoice{},
		Reasoning: true, ReasoningModel: modeltest.New(), ReasoningAgent: reasoner, ReasoningMinSteps: 2, ReasoningMaxSteps: 4,
		Store: store, SessionState: map[string]any{"a": 1}, OverwriteDBSessionState: true,
		AddSessionStateToContext: true, Dependencies: map[string]any{"d": 1}, Metadata: map[string]any{"m": 1},
		AddHistoryToContext: true, NumHistoryRuns: 2, NumHistoryMessages: 5, StoreEvents: true,
		EventsToSkip: []string{"RunStarted"}, StoreHistoryMessages: true, StoreToolMessages: &no, AddSessionSummary: true,
		MemoryManager: mm, EnableUserMemories: true, EnableAgenticMemory: true, AddMemoriesToContext: &no,
		EnableSessionSummaries: true, SessionSummaryManager: sm, AddSessionSummaryToContext: &yes,
		Knowledge: failingKnowledge{}, KnowledgeFilters: filter.Filters{Dict: map[string]any{"k": "v"}},
		SearchKnowledge: &yes, AddSearchKnowledgeInstructions: &no, EnableAgenticKnowledgeFilters: true, AddKnowledgeToContext: true,
		OutputSchema: schema, UseJSONMode: true, ParseResponse: &no,
		PreHooks:  []agent.PreHook{func(context.Context, *agent.HookInput) error { return nil }},
		PostHooks: []agent.PostHook{func(context.Context, *run.Output) error { return nil }},
		Retries:   1, DelayBetweenRetries: time.Second, ExponentialBackoff: true,
		StreamEvents: true, Canceller: stubCanceller{}, Logger: slog.Default(),
	}
	iv := reflect.ValueOf(in)
	for i := range iv.NumField() {
		if iv.Field(i).IsZero() {
			t.Fatalf("test leaves Config.%s unset: set it so the round trip covers it", iv.Type().Field(i).Name)
		}
	}
	a, err := agent.New(in)
	if err != nil {
		t.Fatal(err)
	}
	ov := reflect.ValueOf(a.Config())
	for i := range iv.NumField() {
		name := iv.Type().Field(i).Name
		want, got := iv.Field(i), ov.Field(i)
		if want.Kind() == reflect.Func {
			if want.Pointer() != got.Pointer() {
				t.Errorf("Config().%s is another function", name)
			}
			continue
		}
		if want.Kind() == reflect.Slice && want.Len() > 0 && want.Index(0).Kind() == reflect.Func {
			if got.Len() != want.Len() || got.Index(0).Pointer() != want.Index(0).Pointer() {
				t.Errorf("Config().%s = %v, want %v", name, got, want)
			}
			continue
		}
		if !reflect.DeepEqual(want.Interface(), got.Interface()) {
			t.Errorf("Config().%s = %#v, want %#v", name, got.Interface(), want.Interface())
		}
	}
}

// TestConfigZeroRoundTrip: defaults New applies stay out of Config.
func TestConfigZeroRoundTrip(t *testing.T) {
	m := modeltest.New(text("ok"))
	a, err := agent.New(agent.Config{Model: m, Name: "Some Agent"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Config(), (agent.Config{ID: "some-agent", Name: "Some Agent", Model: m}); !reflect.DeepEqual(got, want) {
		t.Errorf("Config() = %+v, want %+v", got, want)
	}
}

// TestToolDefinitionsFirstWins: a lone tool lends its shared definition;
// a later same-named tool is dropped, and a second tool gets a fresh list.
func TestToolDefinitionsFirstWins(t *testing.T) {
	mk := func(name, desc string) *tool.Function {
		return tool.Must(tool.New(name, desc, func(context.Context, cityArgs) (string, error) { return "", nil }))
	}
	first, again, other := mk("get_weather", "first"), mk("get_weather", "second"), mk("alpha", "other")
	for _, tc := range []struct {
		tools []tool.Provider
		want  []string // name:description, sorted by name
	}{
		{[]tool.Provider{first}, []string{"get_weather:first"}},
		{[]tool.Provider{first, again}, []string{"get_weather:first"}},
		{[]tool.Provider{first, again, other}, []string{"alpha:other", "get_weather:first"}},
		{[]tool.Provider{other, first}, []string{"alpha:other", "get_weather:first"}},
	} {
		m := modeltest.New(text("ok"))
		a := newAgent(t, agent.Config{Model: m, Tools: tc.tools})
		if _, err := a.Run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range m.Requests()[0].Tools {
			got = append(got, d.Name+":"+d.Description)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tools %v: model saw %v, want %v", len(tc.tools), got, tc.want)
		}
	}
}

// TestDefaultIDMatchesLowerReplace: the ASCII fast path gives what
// lower-casing and replacing give, Unicode names included.
func TestDefaultIDMatchesLowerReplace(t *testing.T) {
	for _, name := range []string{"Weather", "weather-agent", "My Agent_v2", "ALL CAPS", "Émile Zola", "Straße_Bot", "a  b__c"} {
		want := strings.NewReplacer(" ", "-", "_", "-").Replace(strings.ToLower(name))
		if got := agent.DefaultID(name); got != want {
			t.Errorf("DefaultID(%q) = %q, want %q", name, got, want)
		}
	}
	if id := agent.DefaultID(""); len(id) != 36 {
		t.Errorf("DefaultID(\"\") = %q, want a UUID", id)
	}
}
