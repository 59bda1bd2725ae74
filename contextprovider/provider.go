// Package contextprovider exposes an outside source (a wiki, a mailbox, a
// database…) to an agent as tools, in agno's ContextProvider shape:
// query_<id>(question) and update_<id>(instruction). When the source hands
// the work to a sub-agent, the sub-agent's events stream live into the
// calling agent's stream (agno v2.6.13, PRs #7924 and #8348).
package contextprovider

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/agenttool"
)

// Answer is what a query or update returns (agno's Answer).
type Answer struct {
	Results []map[string]any
	Text    string
}

// Source is the outside source. It must answer queries; it may also
// implement Updater, QueryAgenter and UpdateAgenter.
type Source interface {
	Query(ctx context.Context, question string, rc *run.Context) (Answer, error)
}

// Updater is a writable source.
type Updater interface {
	Update(ctx context.Context, instruction string, rc *run.Context) (Answer, error)
}

// QueryAgenter hands queries to a sub-agent (nil: use Query).
type QueryAgenter interface {
	QueryAgent(ctx context.Context, rc *run.Context) (run.Executor, error)
}

// UpdateAgenter hands updates to a sub-agent (nil: use Update).
type UpdateAgenter interface {
	UpdateAgent(ctx context.Context, rc *run.Context) (run.Executor, error)
}

// ErrReadOnly is what a source's Update returns to say it cannot write;
// a Source without Update is read-only too.
var ErrReadOnly = errors.New("context provider is read-only")

// Config configures a provider.
type Config struct {
	ID   string
	Name string
	// Read and Write choose the tools (default both).
	Read, Write *bool
	// Tool names default to query_<id> / update_<id> with the id
	// sanitised.
	QueryToolName  string
	UpdateToolName string
	// StreamSubAgentEvents asks sub-agents for their full event set
	// (default true).
	StreamSubAgentEvents *bool
	// StreamToParent forwards sub-agent events into the parent stream
	// (default true; settings.json runtime.event_streaming.sub_agent_to_parent).
	StreamToParent *bool
	Source         Source
}

// Provider is a configured context provider.
type Provider struct {
	cfg                Config
	events, toParent   bool
	queryName, updName string
}

// New validates cfg.
func New(cfg Config) (*Provider, error) {
	if cfg.Source == nil {
		return nil, errors.New("contextprovider: Source is required")
	}
	if cfg.ID == "" {
		return nil, errors.New("contextprovider: ID is required (it names the tools)")
	}
	if cfg.Name == "" {
		cfg.Name = cfg.ID
	}
	p := &Provider{cfg: cfg, events: isTrue(cfg.StreamSubAgentEvents), toParent: isTrue(cfg.StreamToParent)}
	id := agenttool.SanitizeID(cfg.ID)
	p.queryName = orDefault(cfg.QueryToolName, "query_"+id)
	p.updName = orDefault(cfg.UpdateToolName, "update_"+id)
	return p, nil
}

func isTrue(b *bool) bool { return b == nil || *b }

func orDefault(s, d string) string {
	if s != "" {
		return s
	}
	return d
}

type questionArgs struct {
	Question string `json:"question" description:"What to look up."`
}

type instructionArgs struct {
	Instruction string `json:"instruction" description:"What to change."`
}

// Functions implements tool.Provider: the query tool when readable, the
// update tool when writable.
func (p *Provider) Functions(context.Context) ([]*tool.Function, error) {
	var fns []*tool.Function
	if isTrue(p.cfg.Read) {
		f, err := tool.New(p.queryName, fmt.Sprintf("Query %s.", p.cfg.Name), func(ctx context.Context, a questionArgs) (string, error) {
			return p.query(ctx, a.Question), nil
		})
		if err != nil {
			return nil, err
		}
		fns = append(fns, f)
	}
	if isTrue(p.cfg.Write) {
		f, err := tool.New(p.updName, fmt.Sprintf("Update %s.", p.cfg.Name), func(ctx context.Context, a instructionArgs) (string, error) {
			return p.update(ctx, a.Instruction), nil
		})
		if err != nil {
			return nil, err
		}
		fns = append(fns, f)
	}
	return fns, nil
}

func (p *Provider) query(ctx context.Context, question string) string {
	rc := run.FromContext(ctx)
	if qa, ok := p.cfg.Source.(QueryAgenter); ok {
		sub, err := qa.QueryAgent(ctx, rc)
		if err != nil {
			return errorJSON(err)
		}
		if sub != nil {
			return p.stream(ctx, sub, question)
		}
	}
	ans, err := p.cfg.Source.Query(ctx, question, rc)
	if err != nil {
		return errorJSON(err)
	}
	return serialize(ans)
}

func (p *Provider) update(ctx context.Context, instruction string) string {
	rc := run.FromContext(ctx)
	if ua, ok := p.cfg.Source.(UpdateAgenter); ok {
		sub, err := ua.UpdateAgent(ctx, rc)
		if errors.Is(err, ErrReadOnly) {
			return p.readOnly()
		}
		if err != nil {
			return errorJSON(err)
		}
		if sub != nil {
			return p.stream(ctx, sub, instruction)
		}
	}
	u, ok := p.cfg.Source.(Updater)
	if !ok {
		return p.readOnly()
	}
	ans, err := u.Update(ctx, instruction, rc)
	if errors.Is(err, ErrReadOnly) {
		return p.readOnly()
	}
	if err != nil {
		return errorJSON(err)
	}
	return serialize(ans)
}

func (p *Provider) readOnly() string {
	s, _ := pyjson.Dumps(map[string]any{"error": p.cfg.Name + " is read-only"})
	return s
}

// stream runs the sub-agent as a child of the calling run. As in agno,
// the tool result is the sub-agent's streamed content followed by the
// JSON answer.
func (p *Provider) stream(ctx context.Context, sub run.Executor, message string) string {
	var content strings.Builder
	emit := run.EmitterFrom(ctx)
	parent := parentID(ctx)
	collect := func(e run.Event) bool {
		// Nested sub-agents keep their own parent.
		if e.Base().ParentRunID == "" {
			e.Base().ParentRunID = parent
		}
		if c, ok := e.(*run.RunContent); ok && e.Base().ParentRunID == parent {
			if s, ok := c.Content.(string); ok {
				content.WriteString(s)
			}
		}
		if p.toParent && emit != nil {
			return emit(e)
		}
		return true
	}
	out, err := agenttool.RunNested(run.WithEmitter(ctx, collect), sub, message, true, p.events)
	if err != nil {
		return content.String() + errorJSON(err)
	}
	return content.String() + serialize(Answer{Text: out.ContentString()})
}

func parentID(ctx context.Context) string {
	if rc := run.FromContext(ctx); rc != nil {
		return rc.RunID
	}
	return ""
}

// serialize is agno's serialize_answer: empty fields omitted.
func serialize(a Answer) string {
	m := map[string]any{}
	if len(a.Results) > 0 {
		rs := make([]any, len(a.Results))
		for i, r := range a.Results {
			rs[i] = r
		}
		m["results"] = rs
	}
	if a.Text != "" {
		m["text"] = a.Text
	}
	s, _ := pyjson.Dumps(m)
	return s
}

// errorJSON renders {"error": "<Type>: <message>"} as agno does.
func errorJSON(err error) string {
	s, _ := pyjson.Dumps(map[string]any{"error": typeName(err) + ": " + err.Error()})
	return s
}

func typeName(err error) string {
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
