package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

type runFlags struct {
	config, settings string
	session, user    string
	logLevel         string
	yes, quiet       bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   `run AGENT|TEAM|WORKFLOW "message" [--config config.toml]`,
		Short: "Run an agent, team or workflow of config.toml once, streaming its answer to the runTerminal",
		Long: `Run one agent, team or workflow of the registry sources of config.toml
(named by id or name) with a message, streaming its answer to stdout and
its tool calls to stderr. The run is stored like any AgentOS run (the same
SQLite file or Postgres), in a new session unless --session is given.
When it pauses for a human (a tool to confirm, input to give, a workflow
step to approve), the question is asked here and the run continues with
the answer; --yes confirms every tool call and step without asking.
The exit status is 0 when the run completed, 1 otherwise.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErr(cmd, fmt.Errorf(`give the agent, team or workflow and the message, got %d arguments: agno run researcher "What changed in v2.6.13?"`, len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signalContext(cmd)
			defer stop()
			return runOnce(ctx, cmd, f, args[0], args[1])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "config.toml", "path of config.toml")
	fl.StringVar(&f.settings, "settings", "", "path of settings.json (default: settings.json beside the config, when present)")
	fl.StringVar(&f.session, "session", "", "session id to run in (default: a new session)")
	fl.StringVar(&f.user, "user", "", "user id of the run")
	fl.StringVar(&f.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	fl.BoolVar(&f.yes, "yes", false, "confirm every tool call and approve every step without asking")
	fl.BoolVar(&f.quiet, "quiet", false, "print the answer only: no tool calls or steps on stderr")
	return cmd
}

func runOnce(ctx context.Context, cmd *cobra.Command, f runFlags, name, message string) error {
	logger, err := newLoggerTo(cmd.ErrOrStderr(), f.logLevel)
	if err != nil {
		return usageErr(cmd, err)
	}
	// The library logs through the default logger (a run's end, a retry):
	// at this command's level, not the default INFO.
	// The run's own outcome is this command's output: the lines the
	// library logs about it would say the same failure twice more.
	if f.logLevel != "debug" {
		logger = slog.New(dropMessages{logger.Handler(), []string{"run attempt failed", "run ended"}})
	}
	prev := slog.Default()
	slog.SetDefault(logger)
	defer slog.SetDefault(prev)
	cfg, err := loadConfig(f.config, f.settings, logger)
	if err != nil {
		return err
	}
	// The sources are what `run` looks in, whatever start does with them.
	cfg.AgentOS.RegistryAutoPopulate, cfg.AgentOS.Registry.RefreshOnStart = true, true
	res, err := cfg.Build(ctx, config.Functions{}, config.Existing{})
	if err != nil {
		return err
	}
	defer res.Close()
	if f.session == "" {
		f.session = uuid.NewString()
	}
	t := &runTerminal{out: cmd.OutOrStdout(), progress: cmd.ErrOrStderr(), prompt: cmd.ErrOrStderr(), yes: f.yes, lines: stdinLines(ctx, cmd.InOrStdin())}
	if f.quiet {
		t.progress = io.Discard // the questions a pause asks are still asked
	}
	opts := []run.Option{run.WithSessionID(f.session), run.WithStreamEvents(true)}
	if f.user != "" {
		opts = append(opts, run.WithUserID(f.user))
	}
	switch c, err := findRunnable(res, name); {
	case err != nil:
		return err
	case c.agent != nil:
		a := c.agent
		return t.executor(ctx, a.ID(), a.RunStream(ctx, message, opts...), func(req run.ContinueRequest) iter.Seq2[run.Event, error] {
			return a.ContinueStream(ctx, req)
		})
	case c.team != nil:
		tm := c.team
		return t.executor(ctx, tm.ID(), tm.RunStream(ctx, message, opts...), func(req run.ContinueRequest) iter.Seq2[run.Event, error] {
			return tm.ContinueStream(ctx, req)
		})
	default:
		return t.workflow(ctx, c.workflow, c.workflow.RunStream(ctx, message, opts...))
	}
}

type runnable struct {
	agent    *agent.Agent
	team     *team.Team
	workflow *workflow.Workflow
}

// findRunnable looks name up as an id, then as a name (case-insensitive),
// among the agents, teams and workflows loaded.
func findRunnable(res *config.Resources, name string) (runnable, error) {
	type candidate struct {
		label, id, name string
		r               runnable
	}
	var cands []candidate
	for _, a := range res.Agents {
		cands = append(cands, candidate{"agent " + a.ID(), a.ID(), a.Name(), runnable{agent: a}})
	}
	for _, t := range res.Teams {
		cands = append(cands, candidate{"team " + t.ID(), t.ID(), t.Name(), runnable{team: t}})
	}
	for _, w := range res.Workflows {
		cands = append(cands, candidate{"workflow " + w.ID(), w.ID(), w.Name(), runnable{workflow: w}})
	}
	var found []runnable
	var labels, all []string
	for _, c := range cands {
		all = append(all, c.label)
		if strings.EqualFold(c.id, name) || strings.EqualFold(c.name, name) {
			found, labels = append(found, c.r), append(labels, c.label)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if len(all) == 0 {
			return runnable{}, fmt.Errorf("%s loads no agent, team or workflow: %s", res.Config().Path, res.Report.String())
		}
		return runnable{}, fmt.Errorf("no agent, team or workflow has the id or name %q; there are: %s", name, strings.Join(all, ", "))
	}
	return runnable{}, fmt.Errorf("%q names several: %s; give the id", name, strings.Join(labels, ", "))
}

// stdinLines feeds the lines of in to the prompts; the channel closes at
// end of input.
func stdinLines(ctx context.Context, in io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	return lines
}

// runTerminal prints a run's stream and asks the human what a pause needs.
type runTerminal struct {
	out io.Writer // the answer
	// progress gets tool calls and steps (io.Discard with --quiet); prompt
	// the questions a pause asks.
	progress, prompt io.Writer
	yes              bool
	lines            <-chan string
	wroteAnswer      bool // the answer so far does not end in a newline
}

var errRunStopped = errors.New("run did not complete")

func (t *runTerminal) ask(prompt string) (string, bool) {
	fmt.Fprint(t.prompt, prompt)
	l, ok := <-t.lines
	return strings.TrimSpace(l), ok
}

// endLine ends a line of streamed answer before anything else is said.
func (t *runTerminal) endLine() {
	if t.wroteAnswer {
		fmt.Fprintln(t.out)
		t.wroteAnswer = false
	}
}

// stream prints events until the run ends and returns the top-level
// run's final event (completed, paused, error or cancelled).
// shows picks the events whose content is the answer, ends the final
// events of the run itself.
func (t *runTerminal) stream(events iter.Seq2[run.Event, error], shows, ends func(run.Event) bool) (run.Event, error) {
	var last run.Event
	for ev, err := range events {
		if err != nil {
			t.endLine()
			return last, err
		}
		b := ev.Base()
		if ends(ev) {
			last = ev
		}
		switch e := ev.(type) {
		case *run.RunContent:
			if s, ok := e.Content.(string); ok && shows(ev) {
				fmt.Fprint(t.out, s)
				t.wroteAnswer = s != "" && !strings.HasSuffix(s, "\n")
			}
		case *run.ToolCallStarted:
			if e.Tool != nil {
				t.endLine()
				args, _ := json.Marshal(e.Tool.ToolArgs)
				fmt.Fprintf(t.progress, "→ %s(%s)\n", e.Tool.ToolName, args)
			}
		case *run.ToolCallError:
			t.endLine()
			fmt.Fprintf(t.progress, "✗ tool call failed: %s\n", e.Error)
		case *run.StepStarted:
			t.endLine()
			fmt.Fprintf(t.progress, "── step %s ──\n", b.StepName)
		}
	}
	t.endLine()
	return last, nil
}

func final(ev run.Event) bool {
	switch ev.(type) {
	case *run.RunCompleted, *run.RunPaused, *run.RunError, *run.RunCancelled,
		*run.WorkflowCompleted, *run.WorkflowPaused, *run.WorkflowError, *run.WorkflowCancelled:
		return true
	}
	return false
}

// executor runs an agent or team to its end, answering its pauses.
func (t *runTerminal) executor(ctx context.Context, id string, events iter.Seq2[run.Event, error], cont func(run.ContinueRequest) iter.Seq2[run.Event, error]) error {
	// A team's members stream too: only the leader's content and end count.
	top := func(ev run.Event) bool {
		b := ev.Base()
		return b.AgentID == id && b.TeamID == "" || b.TeamID == id
	}
	ends := func(ev run.Event) bool { return top(ev) && final(ev) }
	for {
		last, err := t.stream(events, top, ends)
		if err != nil {
			return err
		}
		switch e := last.(type) {
		case *run.RunCompleted:
			return nil
		case *run.RunPaused:
			b := e.Base()
			reqs := e.Requirements
			if err := t.answerRequirements(run.Active(reqs)); err != nil {
				return err
			}
			fmt.Fprintln(t.progress, "Continuing…")
			events = cont(run.ContinueRequest{RunID: b.RunID, SessionID: b.SessionID, Requirements: reqs, StreamEvents: true})
		case *run.RunError:
			return fmt.Errorf("%w: %s", errRunStopped, e.Content)
		case *run.RunCancelled:
			return fmt.Errorf("%w: cancelled", errRunStopped)
		default:
			return fmt.Errorf("%w: the stream ended without a final event", errRunStopped)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// answerRequirements asks for each open requirement of a paused agent or
// team run.
func (t *runTerminal) answerRequirements(reqs []*run.Requirement) error {
	for _, r := range reqs {
		te := r.ToolExecution
		call := "a tool"
		if te != nil {
			args, _ := json.Marshal(te.ToolArgs)
			call = fmt.Sprintf("%s(%s)", te.ToolName, args)
		}
		for {
			err := t.answerOne(r, call)
			if err == nil {
				break
			}
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("%w: paused for %s, and the input ended before an answer", errRunStopped, call)
			}
			fmt.Fprintf(t.prompt, "%v; try again.\n", err)
		}
	}
	return nil
}

func (t *runTerminal) answerOne(r *run.Requirement, call string) error {
	switch {
	case r.NeedsConfirmation():
		if t.yes {
			fmt.Fprintf(t.progress, "Confirmed %s (--yes).\n", call)
			return r.Confirm()
		}
		l, ok := t.ask(fmt.Sprintf("The run wants to call %s. Allow? [y/N] ", call))
		if !ok {
			return io.EOF
		}
		if l == "y" || l == "yes" {
			return r.Confirm()
		}
		note, _ := t.ask("Note for the model (optional): ")
		return r.Reject(note)
	case r.NeedsUserInput():
		fmt.Fprintf(t.prompt, "%s needs input.\n", call)
		values := map[string]any{}
		for _, f := range r.UserInputSchema {
			if f.Value != nil {
				continue
			}
			desc := ""
			if f.Description != "" {
				desc = " — " + f.Description
			}
			l, ok := t.ask(fmt.Sprintf("  %s (%s)%s: ", f.Name, typeName(f.FieldType), desc))
			if !ok {
				return io.EOF
			}
			v, err := hitl.ParseValue(f.Name, f.FieldType, l)
			if err != nil {
				return err
			}
			values[f.Name] = v
		}
		return r.ProvideUserInput(values)
	case r.NeedsUserFeedback():
		sel := map[string][]string{}
		for _, q := range r.UserFeedbackSchema {
			fmt.Fprintf(t.prompt, "%s\n", q.Question)
			for i, o := range q.Options {
				fmt.Fprintf(t.prompt, "  %d) %s\n", i+1, o.Label)
			}
			l, ok := t.ask("Choice(s) by number or label, comma-separated: ")
			if !ok {
				return io.EOF
			}
			var picked []string
			for _, part := range strings.Split(l, ",") {
				part = strings.TrimSpace(part)
				if n, err := strconv.Atoi(part); err == nil && n >= 1 && n <= len(q.Options) {
					part = q.Options[n-1].Label
				}
				if part != "" {
					picked = append(picked, part)
				}
			}
			if len(picked) == 0 || (!q.MultiSelect && len(picked) > 1) {
				return fmt.Errorf("%q takes %s", q.Question, map[bool]string{true: "one or more options", false: "one option"}[q.MultiSelect])
			}
			sel[q.Question] = picked
		}
		return r.ProvideUserFeedback(sel)
	case r.NeedsExternalExecution():
		l, ok := t.ask(fmt.Sprintf("Run %s yourself and give its result: ", call))
		if !ok {
			return io.EOF
		}
		return r.SetExternalResult(l)
	}
	return nil
}

// workflow runs a workflow to its end, answering its pauses.
func (t *runTerminal) workflow(ctx context.Context, w *workflow.Workflow, events iter.Seq2[run.Event, error]) error {
	// The steps' agents and teams give the answer; the workflow's own
	// events end it.
	steps := func(ev run.Event) bool { b := ev.Base(); return b.AgentID != "" || b.TeamID != "" }
	ends := func(ev run.Event) bool { return !steps(ev) && final(ev) }
	for {
		last, err := t.stream(events, steps, ends)
		if err != nil {
			return err
		}
		switch e := last.(type) {
		case *run.WorkflowCompleted:
			fmt.Fprintf(t.progress, "── %s completed ──\n", w.Name())
			return nil
		case *run.WorkflowPaused:
			b := e.Base()
			out, err := w.GetRun(ctx, b.RunID)
			if err != nil {
				return err
			}
			p := &hitl.Pause{RunID: out.RunID, WorkflowID: out.WorkflowID, WorkflowName: out.WorkflowName, SessionID: out.SessionID,
				UserID: out.UserID, PausedStepName: out.PausedStepName, PausedStepIndex: out.PausedStepIndex, PauseKind: out.PauseKind,
				StepRequirements: out.StepRequirements, ErrorRequirements: out.ErrorRequirements}
			var answers []*workflow.StepRequirement
			if t.yes {
				if answers, err = p.Approve(""); err != nil {
					return fmt.Errorf("--yes cannot answer this pause: %w", err)
				}
				fmt.Fprintf(t.progress, "Approved step %s (--yes).\n", out.PausedStepName)
			} else {
				describePause(t.prompt, p, false)
				var action string
				answers, action = promptAnswer(t.prompt, t.lines, p, false)
				if action != "answer" {
					return fmt.Errorf("%w: run %s is left paused; answer it later with agno hitl while AgentOS serves this config", errRunStopped, out.RunID)
				}
			}
			fmt.Fprintln(t.progress, "Continuing…")
			events = w.ContinueStream(ctx, workflow.ContinueRequest{RunID: out.RunID, SessionID: out.SessionID, UserID: out.UserID, Output: out, StepRequirements: answers, StreamEvents: true})
		case *run.WorkflowError:
			return fmt.Errorf("%w: %s", errRunStopped, e.Error)
		case *run.WorkflowCancelled:
			return fmt.Errorf("%w: cancelled", errRunStopped)
		default:
			return fmt.Errorf("%w: the stream ended without a final event", errRunStopped)
		}
	}
}

// dropMessages leaves out records with one of msgs.
type dropMessages struct {
	slog.Handler
	msgs []string
}

func (d dropMessages) Handle(ctx context.Context, r slog.Record) error {
	if slices.Contains(d.msgs, r.Message) {
		return nil
	}
	return d.Handler.Handle(ctx, r)
}

func (d dropMessages) WithAttrs(as []slog.Attr) slog.Handler {
	return dropMessages{d.Handler.WithAttrs(as), d.msgs}
}

func (d dropMessages) WithGroup(name string) slog.Handler {
	return dropMessages{d.Handler.WithGroup(name), d.msgs}
}
