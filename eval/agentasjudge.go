package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// Scoring strategies of an agent-as-judge eval.
const (
	ScoringNumeric = "numeric" // a score from 1 to 10, passed at Threshold
	ScoringBinary  = "binary"  // pass or fail
)

// AgentAsJudgeConfig configures an agent-as-judge eval (agno's
// AgentAsJudgeEval): a judge model decides whether an answer meets
// Criteria.
type AgentAsJudgeConfig struct {
	ID   string // the eval run's id; default a new UUID
	Name string

	// Agent or Team answers Input; without them Run judges Output.
	Agent  *agent.Agent
	Team   *team.Team
	Input  string
	Output string

	Criteria string
	// ScoringStrategy is ScoringBinary (default) or ScoringNumeric.
	ScoringStrategy string
	// Threshold is the passing score of numeric scoring (1-10, default 7).
	Threshold            int
	AdditionalGuidelines string

	// Model is the judge's model; default the evaluated agent's or team's
	// model (agno defaults to OpenAI gpt-5-mini).
	Model     model.Model
	Evaluator *agent.Agent

	// UserID is the user the agent or team runs as, and the eval run's
	// creator (created_by) in Store.
	UserID string
	Store  *Store
	Logger *slog.Logger
}

// AgentAsJudgeEvaluation is one judged answer; Score is nil with binary
// scoring.
type AgentAsJudgeEvaluation struct {
	Input    string `json:"input"`
	Output   string `json:"output"`
	Criteria string `json:"criteria"`
	Score    *int   `json:"score"`
	Reason   string `json:"reason"`
	Passed   bool   `json:"passed"`
}

// AgentAsJudgeResult is agno's AgentAsJudgeResult; the score statistics
// are null with binary scoring. PassRate is a percentage.
type AgentAsJudgeResult struct {
	RunID       string                   `json:"run_id"`
	Results     []AgentAsJudgeEvaluation `json:"results"`
	AvgScore    *float64                 `json:"avg_score"`
	MinScore    *float64                 `json:"min_score"`
	MaxScore    *float64                 `json:"max_score"`
	StdDevScore *float64                 `json:"std_dev_score"`
	PassRate    float64                  `json:"pass_rate"`
}

func (r *AgentAsJudgeResult) computeStats() {
	var scores []float64
	passed := 0
	for _, e := range r.Results {
		if e.Passed {
			passed++
		}
		if e.Score != nil {
			scores = append(scores, float64(*e.Score))
		}
	}
	if len(r.Results) > 0 {
		r.PassRate = float64(passed) / float64(len(r.Results)) * 100
	}
	if len(scores) > 0 {
		s := summarize(scores)
		r.AvgScore, r.MinScore, r.MaxScore, r.StdDevScore = &s.avg, &s.min, &s.max, &s.std
	}
}

// AgentAsJudge is a configured agent-as-judge eval.
type AgentAsJudge struct {
	cfg AgentAsJudgeConfig
	sub subject
}

// NewAgentAsJudge validates cfg.
func NewAgentAsJudge(cfg AgentAsJudgeConfig) (*AgentAsJudge, error) {
	var sub subject
	if cfg.Agent != nil || cfg.Team != nil {
		s, err := newSubject(cfg.Agent, cfg.Team, cfg.UserID)
		if err != nil {
			return nil, err
		}
		sub = s
	}
	if strings.TrimSpace(cfg.Criteria) == "" {
		return nil, errors.New("eval: agent-as-judge needs Criteria (what the judge checks the answer against)")
	}
	switch cfg.ScoringStrategy {
	case "":
		cfg.ScoringStrategy = ScoringBinary
	case ScoringBinary, ScoringNumeric:
	default:
		return nil, fmt.Errorf("eval: ScoringStrategy is %q; use %q or %q", cfg.ScoringStrategy, ScoringNumeric, ScoringBinary)
	}
	if cfg.Threshold == 0 {
		cfg.Threshold = 7
	}
	if cfg.ScoringStrategy == ScoringNumeric && (cfg.Threshold < 1 || cfg.Threshold > 10) {
		return nil, fmt.Errorf("eval: threshold must be between 1 and 10, got %d", cfg.Threshold)
	}
	if !sub.set() && cfg.Model == nil && cfg.Evaluator == nil {
		return nil, errors.New("eval: set Agent or Team to answer, or a judge Model to judge the given Output")
	}
	if cfg.ID == "" {
		cfg.ID = run.NewID()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &AgentAsJudge{cfg: cfg, sub: sub}, nil
}

// ID is the eval run's id.
func (e *AgentAsJudge) ID() string { return e.cfg.ID }

const (
	numericSchema = `{"type":"object","properties":{` +
		`"score":{"type":"integer","description":"Score between 1 and 10."},` +
		`"reason":{"type":"string","description":"Detailed reasoning for the evaluation."}},` +
		`"required":["score","reason"],"additionalProperties":false}`
	binarySchema = `{"type":"object","properties":{` +
		`"passed":{"type":"boolean","description":"Pass/fail result."},` +
		`"reason":{"type":"string","description":"Detailed reasoning for the evaluation."}},` +
		`"required":["passed","reason"],"additionalProperties":false}`
	judgeDescription = "You are an expert evaluator. Score outputs objectively based on the provided criteria."
)

// judgeInstructions are agno's instructions for the scoring strategy.
func (e *AgentAsJudge) judgeInstructions() string {
	parts := []string{"## Criteria", e.cfg.Criteria, ""}
	if e.cfg.ScoringStrategy == ScoringNumeric {
		parts = append(parts,
			"## Scoring (1-10)",
			"- 1-2: Completely fails the criteria",
			"- 3-4: Major issues",
			"- 5-6: Partial success with significant issues",
			"- 7-8: Mostly meets criteria with minor issues",
			"- 9-10: Fully meets or exceeds criteria",
			"",
			"## Instructions",
			"1. Carefully evaluate the output against the criteria above",
			"2. Provide a score from 1-10",
			"3. Provide detailed reasoning that references specific parts of the output")
	} else {
		parts = append(parts,
			"## Evaluation",
			"Determine if the output PASSES or FAILS the criteria above.",
			"",
			"## Instructions",
			"1. Carefully evaluate the output against the criteria above",
			"2. Decide if it passes (true) or fails (false)",
			"3. Provide detailed reasoning that references specific parts of the output")
	}
	if e.cfg.AdditionalGuidelines != "" {
		parts = append(parts, "", "## Additional Guidelines", e.cfg.AdditionalGuidelines)
	}
	parts = append(parts, "", "Be objective and thorough in your evaluation.")
	return strings.Join(parts, "\n")
}

func (e *AgentAsJudge) judgeModel() model.Model {
	if e.cfg.Model != nil {
		return e.cfg.Model
	}
	return e.sub.model()
}

// Run answers Input with the agent or team (or takes Output) and has the
// judge decide.
func (e *AgentAsJudge) Run(ctx context.Context) (*AgentAsJudgeResult, error) {
	output := e.cfg.Output
	if e.sub.set() {
		out, _, err := e.sub.answer(ctx, e.cfg.Input)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoResult, err)
		}
		output = out
	}
	judge := e.cfg.Evaluator
	if judge == nil {
		schemaName, schema := "BinaryJudgeResponse", binarySchema
		if e.cfg.ScoringStrategy == ScoringNumeric {
			schemaName, schema = "NumericJudgeResponse", numericSchema
		}
		j, err := newJudge(e.judgeModel(), schemaName, schema, judgeDescription, []string{e.judgeInstructions()}, e.cfg.Logger)
		if err != nil {
			return nil, err
		}
		judge = j
	}
	ev, err := e.decide(ctx, judge, output)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoResult, err)
	}
	res := &AgentAsJudgeResult{RunID: e.cfg.ID, Results: []AgentAsJudgeEvaluation{*ev}}
	res.computeStats()
	rec, err := e.Record(res)
	if err != nil {
		return nil, err
	}
	return res, store(ctx, e.cfg.Store, rec, e.cfg.UserID)
}

func (e *AgentAsJudge) decide(ctx context.Context, judge *agent.Agent, output string) (*AgentAsJudgeEvaluation, error) {
	prompt := "<input>\n" + e.cfg.Input + "\n</input>\n\n<output>\n" + output + "\n</output>\n"
	ev := &AgentAsJudgeEvaluation{Input: e.cfg.Input, Output: output, Criteria: e.cfg.Criteria}
	if e.cfg.ScoringStrategy == ScoringNumeric {
		ans, err := askJudge(ctx, judge, prompt, `{"score": <1-10>, "reason": "<why>"}`)
		if err != nil {
			return nil, err
		}
		score, err := ans.integer("score")
		if err != nil {
			return nil, err
		}
		if score < 1 || score > 10 {
			return nil, ans.bad("score", fmt.Sprintf("is %d, not between 1 and 10", score))
		}
		if ev.Reason, err = ans.str("reason"); err != nil {
			return nil, err
		}
		ev.Score, ev.Passed = &score, score >= e.cfg.Threshold
		return ev, nil
	}
	ans, err := askJudge(ctx, judge, prompt, `{"passed": true|false, "reason": "<why>"}`)
	if err != nil {
		return nil, err
	}
	if ev.Passed, err = ans.boolean("passed"); err != nil {
		return nil, err
	}
	if ev.Reason, err = ans.str("reason"); err != nil {
		return nil, err
	}
	return ev, nil
}

// judgeInput is agno's eval_input of an agent-as-judge run.
type judgeInput struct {
	Criteria             string  `json:"criteria"`
	ScoringStrategy      string  `json:"scoring_strategy"`
	Threshold            *int    `json:"threshold"`
	AdditionalGuidelines *string `json:"additional_guidelines"`
}

// Record is the eval run row of res. As agno, its model is the judge's.
func (e *AgentAsJudge) Record(res *AgentAsJudgeResult) (*Record, error) {
	in := judgeInput{Criteria: e.cfg.Criteria, ScoringStrategy: e.cfg.ScoringStrategy, AdditionalGuidelines: nullable(e.cfg.AdditionalGuidelines)}
	if e.cfg.ScoringStrategy == ScoringNumeric {
		t := e.cfg.Threshold
		in.Threshold = &t
	}
	rec, err := e.sub.record(res.RunID, e.cfg.Name, TypeAgentAsJudge, res, in)
	if err != nil {
		return nil, err
	}
	rec.ModelID, rec.ModelProvider = modelInfo(e.judgeModel())
	if e.cfg.Evaluator != nil {
		rec.ModelID, rec.ModelProvider = modelInfo(e.cfg.Evaluator.Config().Model)
	}
	rec.EvaluatedComponentName = e.sub.name()
	return rec, nil
}
