// Package eval is agno's evals: accuracy (a judge model scores an
// agent's or team's answer against an expected output), agent-as-judge
// (a judge scores an answer against criteria), performance (timed runs
// with their memory) and reliability (the tool calls a run made), each
// run through the agent's or team's normal Run API and kept, when a Store
// is given, as a row of agno's agno_eval_runs table.
//
//	acc, err := eval.NewAccuracy(eval.AccuracyConfig{Agent: a, Input: "2+2?", ExpectedOutput: "4"})
//	res, err := acc.Run(ctx)
//	fmt.Println(res.AvgScore)
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
)

// Type is an eval's kind (agno's EvalType).
type Type string

const (
	TypeAccuracy     Type = "accuracy"
	TypeAgentAsJudge Type = "agent_as_judge"
	TypePerformance  Type = "performance"
	TypeReliability  Type = "reliability"
)

// Types lists the eval types in agno's order.
var Types = []Type{TypeAccuracy, TypeAgentAsJudge, TypePerformance, TypeReliability}

// Valid reports whether t is one of Types.
func (t Type) Valid() bool {
	for _, x := range Types {
		if x == t {
			return true
		}
	}
	return false
}

// ErrNoResult is returned when no iteration of an eval produced a
// result (every run failed or every judge answer was unusable).
var ErrNoResult = errors.New("eval: no iteration produced a result")

// subject is the agent or team an eval runs, and the user it runs as.
type subject struct {
	agent *agent.Agent
	team  *team.Team
	user  string
}

func newSubject(a *agent.Agent, t *team.Team, user string) (subject, error) {
	switch {
	case a == nil && t == nil:
		return subject{}, errors.New("eval: set Agent or Team (the component to evaluate)")
	case a != nil && t != nil:
		return subject{}, errors.New("eval: set only one of Agent and Team")
	}
	return subject{agent: a, team: t, user: user}, nil
}

func (s subject) set() bool { return s.agent != nil || s.team != nil }

func (s subject) run(ctx context.Context, input string) (*run.Output, error) {
	var opts []run.Option
	if s.user != "" {
		opts = append(opts, run.WithUserID(s.user))
	}
	if s.agent != nil {
		return s.agent.Run(ctx, input, opts...)
	}
	return s.team.Run(ctx, input, opts...)
}

func (s subject) model() model.Model {
	switch {
	case s.agent != nil:
		return s.agent.Config().Model
	case s.team != nil:
		return s.team.Config().Model
	}
	return nil
}

func (s subject) agentID() string {
	if s.agent != nil {
		return s.agent.ID()
	}
	return ""
}

func (s subject) teamID() string {
	if s.team != nil {
		return s.team.ID()
	}
	return ""
}

func (s subject) name() string {
	switch {
	case s.agent != nil:
		return s.agent.Name()
	case s.team != nil:
		return s.team.Name()
	}
	return ""
}

// modelInfo is a model's id and provider ("" for none).
func modelInfo(m model.Model) (id, provider string) {
	if m == nil {
		return "", ""
	}
	i := m.Info()
	return i.ID, i.Provider
}

// answer runs the subject and returns its answer text; a failed run is
// an error naming its status and content.
func (s subject) answer(ctx context.Context, input string) (string, *run.Output, error) {
	out, err := s.run(ctx, input)
	if err != nil {
		return "", out, err
	}
	if out.Status == run.StatusError {
		return "", out, fmt.Errorf("the run failed: %s", out.ContentString())
	}
	return out.ContentString(), out, nil
}

// record fills the fields every eval's row shares.
func (s subject) record(id, name string, typ Type, data, input any) (*Record, error) {
	d, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("eval: encode eval_data: %w", err)
	}
	in, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("eval: encode eval_input: %w", err)
	}
	mid, prov := modelInfo(s.model())
	return &Record{
		RunID: id, EvalType: typ, EvalData: d, EvalInput: in, Name: name,
		AgentID: s.agentID(), TeamID: s.teamID(), ModelID: mid, ModelProvider: prov,
	}, nil
}

// nullable is a string as JSON null when empty (agno's None).
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// store keeps rec when st is set.
func store(ctx context.Context, st *Store, rec *Record, user string) error {
	if st == nil {
		return nil
	}
	rec.CreatedBy = user
	if err := st.Create(ctx, rec); err != nil {
		return fmt.Errorf("eval: store the eval run: %w", err)
	}
	return nil
}
