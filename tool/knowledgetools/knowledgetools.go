// Package knowledgetools is agno's KnowledgeTools: think, search_knowledge
// and analyze, a search-think-analyze loop over one knowledge base. think
// and analyze keep their notes in the run's session state under
// "thoughts" and "analysis", as agno does.
package knowledgetools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/agno-go/agno/internal/pyjson"
	"github.com/agno-go/agno/knowledge"
	"github.com/agno-go/agno/knowledge/document"
	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/reasoning"
)

// ToolkitName is the name agents list in tools, agno's toolkit name.
const ToolkitName = "knowledge_tools"

// Searcher is the knowledge base the toolkit searches;
// *knowledge.Knowledge is one.
type Searcher interface {
	Search(ctx context.Context, query string, opts knowledge.SearchOptions) ([]*document.Document, error)
}

// Config configures the toolkit.
type Config struct {
	// Knowledge is searched by search_knowledge; required.
	Knowledge                                Searcher
	EnableThink, EnableSearch, EnableAnalyze bool
	All                                      bool
	// Instructions replace agno's; "" uses DefaultInstructions (with
	// FewShotExamples, or FewShot, when AddFewShot).
	Instructions    string
	AddInstructions bool
	AddFewShot      bool
	FewShot         string
	// Logger receives failed searches; nil discards them.
	Logger *slog.Logger
}

type thinkArgs struct {
	Thought string `json:"thought" description:"Your thought process and reasoning."`
}

type searchArgs struct {
	Query string `json:"query" description:"The query to search the knowledge base for."`
}

type analyzeArgs struct {
	Analysis string `json:"analysis" description:"A thought to think about and log."`
}

// New builds agno's KnowledgeTools.
func New(cfg Config) (*tool.Toolkit, error) {
	if cfg.Knowledge == nil {
		return nil, errors.New("knowledgetools: Config.Knowledge is nil: give the knowledge base to search")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	instructions := reasoning.Instructions(cfg.Instructions, DefaultInstructions, cfg.AddFewShot, cfg.FewShot, FewShotExamples)
	enabled := tool.Enabled{All: cfg.All}
	add := enabled.If
	add(cfg.EnableThink)(tool.New("think", "Use this tool as a scratchpad to reason about the question, refine your approach, brainstorm search terms, or revise your plan.\nCall `Think` whenever you need to figure out what to do next, analyze the user's question, or plan your approach.\nYou should use this tool as frequently as needed.",
		func(ctx context.Context, a thinkArgs) (string, error) {
			return reasoning.AppendNote(ctx, "thoughts", "Thoughts", a.Thought)
		}))
	add(cfg.EnableSearch)(tool.New("search_knowledge", "Use this tool to search the knowledge base for relevant information.\nAfter thinking through the question, use this tool as many times as needed to search for relevant information.",
		func(ctx context.Context, a searchArgs) (string, error) {
			return search(ctx, cfg.Knowledge, log, a.Query), nil
		}))
	add(cfg.EnableAnalyze)(tool.New("analyze", "Use this tool to evaluate whether the returned documents are correct and sufficient.\nIf not, go back to \"Think\" or \"Search\" with refined queries.",
		func(ctx context.Context, a analyzeArgs) (string, error) {
			return reasoning.AppendNote(ctx, "analysis", "Analysis", a.Analysis)
		}))
	fns, err := enabled.Functions()
	if err != nil {
		return nil, fmt.Errorf("knowledgetools: %w", err)
	}
	return tool.NewToolkit(tool.ToolkitConfig{Name: ToolkitName, Functions: fns, Instructions: instructions, AddInstructions: cfg.AddInstructions})
}

// search is agno's search_knowledge: the knowledge base's default number
// of results, no filters, the documents as json.dumps of their to_dict();
// a failure is told to the model, as agno catches it.
func search(ctx context.Context, k Searcher, log *slog.Logger, query string) string {
	docs, err := k.Search(ctx, query, knowledge.SearchOptions{})
	if err == nil && len(docs) == 0 {
		return "No documents found"
	}
	var text string
	if err == nil {
		dicts := make([]document.Dict, len(docs))
		for i, d := range docs {
			dicts[i] = d.ToDict()
		}
		text, err = pyjson.Dumps(dicts)
	}
	if err != nil {
		log.Warn("knowledge_tools: search failed", "query", query, "error", err)
		return "Error searching knowledge base: " + err.Error()
	}
	return text
}
