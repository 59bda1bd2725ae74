package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"sync"
	"time"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/knowledge/filter"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
)

// SearchKnowledgeName is the name of the knowledge search tool.
const SearchKnowledgeName = "search_knowledge_base"

// The tool as agno's Function.from_callable renders
// search_knowledge_base(query) and search_knowledge_base(query, filters:
// Optional[List[KnowledgeFilter]] = None): the docstring summary, the
// Google-style parameter texts, KnowledgeFilter as pydantic's schema,
// only the parameters without a default required, not strict.
const (
	searchKnowledgeDescription = "Use this function to search the knowledge base for information about a query."
	searchKnowledgeQuery       = `"query":{"type":"string","description":"The query to search for."}`
	searchKnowledgeSchema      = `{"type":"object","properties":{` + searchKnowledgeQuery + `},"required":["query"]}`
	searchKnowledgeFilters     = `"filters":{"type":"array","items":{"properties":{"key":{"title":"Key","type":"string"},"value":{"title":"Value"}},"required":["key","value"],"title":"KnowledgeFilter","type":"object"},` +
		`"description":"(optional) The filters to apply to the search. This is a list of KnowledgeFilter objects."}`
	searchKnowledgeAgenticSchema = `{"type":"object","properties":{` + searchKnowledgeQuery + `,` + searchKnowledgeFilters + `},"required":["query"]}`

	noDocumentsFound = "No documents found"
	// agno's tool answers a failed search with the exception's type
	// name only, never its message.
	searchFailedPrefix = "Error searching knowledge base: "
	referencesIntro    = "\n\nUse the following references from the knowledge base if it helps:\n<references>\n"
)

// knowledgeTool builds the search_knowledge_base function of the spec.
func (s *Spec) knowledgeTool() (*tool.Function, error) {
	schema := searchKnowledgeSchema
	if s.EnableAgenticKnowledgeFilters {
		schema = searchKnowledgeAgenticSchema
	}
	return tool.NewRaw(SearchKnowledgeName, searchKnowledgeDescription, json.RawMessage(schema), s.searchKnowledge)
}

// searchKnowledge is the tool's handler (agno's
// create_knowledge_search_tool): it searches with the run's filters —
// merged with the model's when agentic filters are on, then validated —
// records the references on the run and returns the documents as JSON.
func (s *Spec) searchKnowledge(ctx context.Context, args map[string]any) (tool.Result, error) {
	query, ok := args["query"].(string)
	if !ok {
		return tool.Result{}, fmt.Errorf("%s: argument query must be a string, got %s", SearchKnowledgeName, pyTypeName(args["query"]))
	}
	rc := run.FromContext(ctx)
	filters := s.effectiveFilters(rc)
	start := time.Now()
	validate := false
	if s.EnableAgenticKnowledgeFilters {
		agentic, err := agenticFilters(args["filters"])
		if err != nil {
			return tool.Result{}, err
		}
		if len(agentic) > 0 {
			if filters, err = knowledge.MergeAgenticFilters(agentic, filters); err != nil {
				s.logger.Warn("knowledge search failed", "error", err)
				return tool.Text(searchFailedPrefix + "ValueError"), nil
			}
		}
		validate = true
	}
	docs, err := s.retrieve(ctx, query, filters, validate)
	if err != nil {
		s.logger.Warn("knowledge search failed", "query", query, "error", err)
		return tool.Text(searchFailedPrefix + exceptionName(err)), nil
	}
	if len(docs) == 0 {
		return tool.Text(noDocumentsFound), nil
	}
	if refs := referencesOf(rc); refs != nil {
		refs.add(query, docs, time.Since(start))
	}
	text, err := knowledge.DocumentsJSON(docs, false)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(text), nil
}

// retrieve is agno's get_relevant_docs_from_knowledge: with validate, keys
// the knowledge base does not know are dropped (with a warning) before
// the search.
func (s *Spec) retrieve(ctx context.Context, query string, filters filter.Filters, validate bool) ([]*document.Document, error) {
	if validate && !filters.IsZero() {
		valid, invalid, err := s.Knowledge.ValidateFilters(ctx, filters)
		if err != nil {
			return nil, err
		}
		if len(invalid) > 0 {
			s.logger.Warn(fmt.Sprintf("Invalid filter keys provided: %v. These filters will be ignored.", invalid))
			if valid.IsZero() {
				s.logger.Warn("No valid filters remain after validation. Search will proceed without filters.")
			}
		}
		filters = valid
	}
	return s.Knowledge.Retrieve(ctx, query, 0, filters)
}

// effectiveFilters is agno's get_effective_filters: the agent's filters
// with the run's knowledge_filters over them (a dict merges into a dict
// and replaces a list).
func (s *Spec) effectiveFilters(rc *run.Context) filter.Filters {
	base := s.KnowledgeFilters
	var runFilters map[string]any
	if rc != nil {
		runFilters = rc.KnowledgeFilters
	}
	switch {
	case len(runFilters) == 0:
		return base
	case base.IsZero() || base.IsList():
		return filter.Dict(maps.Clone(runFilters))
	}
	merged := maps.Clone(base.Dict)
	maps.Copy(merged, runFilters)
	return filter.Dict(merged)
}

// agenticFilters reads the model's filters argument: a list of
// KnowledgeFilter objects ({"key", "value"}) or of plain dicts, folded
// into one dict as agno does.
func agenticFilters(v any) (map[string]any, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: argument filters must be a list of {\"key\": ..., \"value\": ...} objects, got %s", SearchKnowledgeName, pyTypeName(v))
	}
	out := map[string]any{}
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: filters[%d] must be an object {\"key\": ..., \"value\": ...}, got %s", SearchKnowledgeName, i, pyTypeName(item))
		}
		key, isKF := m["key"].(string)
		if _, hasValue := m["value"]; isKF && hasValue && len(m) == 2 {
			out[key] = m["value"]
			continue
		}
		maps.Copy(out, m)
	}
	return out, nil
}

// exceptionName names an error the way agno's tool reports a failed
// search, by the Python exception agno would raise.
func exceptionName(err error) string {
	switch {
	case errors.Is(err, knowledge.ErrFilters), errors.Is(err, filter.ErrInvalid):
		return "ValueError"
	case errors.Is(err, context.DeadlineExceeded):
		return "TimeoutError"
	case errors.Is(err, context.Canceled):
		return "CancelledError"
	}
	return "Exception"
}

func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// knowledgeContext is the system-message snippet (agno §3.3.13 / team
// §2.3), with the "\n" agno appends; "" when off or unavailable.
func (st *runState) knowledgeContext() string {
	s := st.spec
	if !s.hasKnowledgeTool() || off(s.AddSearchKnowledgeInstructions) {
		return ""
	}
	snippet, err := s.Knowledge.BuildContext(st.ctx, s.EnableAgenticKnowledgeFilters)
	if err != nil {
		st.spec.logger.Warn("knowledge: could not build the system message snippet; it is left out of this run", "error", err)
		return ""
	}
	if snippet == "" {
		return ""
	}
	return snippet + "\n"
}

// withReferences is agno's add_knowledge_to_context: references
// retrieved for the input are recorded on the run and appended to the
// user message. A failed retrieval is logged and the message goes as is.
func (st *runState) withReferences(input string) string {
	s := st.spec
	if s.Knowledge == nil || !s.AddKnowledgeToContext || input == "" {
		return input
	}
	start := time.Now()
	docs, err := s.Knowledge.Retrieve(st.ctx, input, 0, s.effectiveFilters(st.rc))
	if err != nil {
		st.spec.logger.Warn(fmt.Sprintf("Failed to get references: %v", err), "run_id", st.out.RunID)
		return input
	}
	if len(docs) == 0 {
		return input
	}
	st.refs.add(input, docs, time.Since(start))
	text, err := knowledge.DocumentsJSON(docs, true)
	if err != nil {
		st.spec.logger.Warn("Failed to render references", "error", err)
		return input
	}
	return input + referencesIntro + text + "\n</references>"
}

// referencesKey finds a run's reference log in its run context.
type referencesKey struct{}

// referenceLog collects a run's MessageReferences; tool calls of one turn
// add to it concurrently.
type referenceLog struct {
	mu      sync.Mutex
	entries []json.RawMessage
	changed bool
}

// messageReferences is agno's MessageReferences.
type messageReferences struct {
	Query      string          `json:"query"`
	References []document.Dict `json:"references"`
	Time       pyFloat         `json:"time"`
}

// pyFloat marshals as Python's repr, so a time of 0 reads 0.0 as in agno.
type pyFloat float64

func (f pyFloat) MarshalJSON() ([]byte, error) {
	s, err := pyjson.FloatRepr(float64(f))
	return []byte(s), err
}

func referencesOf(rc *run.Context) *referenceLog {
	if rc == nil {
		return nil
	}
	l, _ := rc.Value(referencesKey{}).(*referenceLog)
	return l
}

// startReferences attaches the run's reference log, seeded with the
// references the run already has (a continued run keeps those it paused
// with).
func (st *runState) startReferences() {
	if st.spec.Knowledge == nil {
		return
	}
	l := &referenceLog{}
	if len(st.out.References) > 0 && json.Unmarshal(st.out.References, &l.entries) != nil {
		l.entries = nil
	}
	st.refs = l
	st.rc.SetValue(referencesKey{}, l)
}

func (l *referenceLog) add(query string, docs []*document.Document, elapsed time.Duration) {
	if l == nil {
		return
	}
	ref := messageReferences{Query: query, References: make([]document.Dict, len(docs)), Time: pyFloat(math.Round(elapsed.Seconds()*1e4) / 1e4)}
	for i, d := range docs {
		ref.References[i] = d.ToDict()
	}
	raw, err := json.Marshal(ref)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, raw)
	l.changed = true
}

// flushReferences writes the collected references to the run's output.
func (st *runState) flushReferences() {
	l := st.refs
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.changed {
		return
	}
	if raw, err := json.Marshal(l.entries); err == nil {
		st.out.References = raw
	}
	l.changed = false
}

// prepareKnowledge validates the knowledge settings and adds the search
// tool after the given tools (a given tool of the same name wins, as the
// first of two same-named tools does).
func (s *Spec) prepareKnowledge(tools *[]tool.Provider) error {
	if s.Knowledge == nil {
		if s.AddKnowledgeToContext || s.EnableAgenticKnowledgeFilters || !s.KnowledgeFilters.IsZero() {
			return errors.New("knowledge settings without a knowledge base: set Knowledge, or drop AddKnowledgeToContext, EnableAgenticKnowledgeFilters and KnowledgeFilters")
		}
		return nil
	}
	if !s.hasKnowledgeTool() {
		return nil
	}
	f, err := s.knowledgeTool()
	if err != nil {
		return err
	}
	*tools = append(append([]tool.Provider(nil), *tools...), f)
	return nil
}
