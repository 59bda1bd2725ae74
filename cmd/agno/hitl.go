package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/workflow"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

// defaultHITLSocket is where `agno hitl` connects without --socket.
const defaultHITLSocket = "/tmp/agno-hitl.sock"

// usageError is a command used the wrong way: exit status 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErr(cmd *cobra.Command, err error) error {
	return &usageError{fmt.Errorf("%w\nusage: %s", err, cmd.UseLine())}
}

// exitCode maps a command error to the process exit status: 0 ok, 2 for
// usage errors, 1 for any other error.
func exitCode(err error) int {
	var u *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// isTerminal reports whether r is an interactive terminal (a variable so
// tests can play one); answers read from anything else are echoed, so a
// scripted session's output reads like the terminal one.
var isTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd())
}

type hitlOptions struct {
	socket  string
	config  string
	json    bool
	timeout time.Duration
}

// resolveSocket picks the socket: --socket, else AGNO_HITL_SOCKET, else
// [workflows.hitl] socket_path of --config (config.toml here by default,
// where agno agentos start looks), else the built-in default.
func (o *hitlOptions) resolveSocket(cmd *cobra.Command) error {
	if cmd.Flags().Changed("socket") || os.Getenv("AGNO_HITL_SOCKET") != "" {
		return nil
	}
	if _, err := os.Stat(o.config); err != nil {
		if cmd.Flags().Changed("config") {
			return usageErr(cmd, fmt.Errorf("--config %s: %w", o.config, err))
		}
		return nil
	}
	cfg, err := config.Load(o.config)
	if err != nil {
		return err
	}
	o.socket = cfg.Workflows.HITL.SocketPath
	return nil
}

func newHITLCmd() *cobra.Command {
	o := &hitlOptions{}
	socket := os.Getenv("AGNO_HITL_SOCKET")
	if socket == "" {
		socket = defaultHITLSocket
	}
	cmd := &cobra.Command{
		Use:   "hitl",
		Short: "Answer runs waiting for a human, over the HITL Unix socket",
		Long: `Operator console for runs paused for a human (agno's PAUSED,
"waiting_for_human"): workflow steps, and agents' and teams' tool calls
waiting for a confirmation or input. It connects to the Unix socket
AgentOS serves (config: [workflows.hitl] transport = "socket",
socket_path); with several replicas on one database, any replica's socket
lists and answers every pause.

Run without a subcommand for a prompt per pause. Answers are read a line
at a time from stdin, so a script can pipe them in (printf 'a\n' | agno hitl);
the console ends at end of input. Exit status: 0 ok, 1 error, 2 usage.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr(cmd, fmt.Errorf("unknown subcommand %q (see agno hitl --help)", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return o.interactive(cmd) },
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageErr(c, err) })
	pf := cmd.PersistentFlags()
	pf.StringVar(&o.socket, "socket", socket, "HITL socket path (default from AGNO_HITL_SOCKET, else from --config)")
	pf.StringVar(&o.config, "config", "config.toml", "the config.toml whose [workflows.hitl] socket_path to use, when it exists and --socket is not given")
	cmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return o.resolveSocket(cmd) }
	pf.BoolVar(&o.json, "json", false, "machine-readable JSON output")
	pf.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long to wait for the server to connect and answer")

	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the runs waiting for a human",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.list(cmd) },
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "show RUN_ID",
		Short: "Show what a paused run waits for",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE:  func(cmd *cobra.Command, args []string) error { return o.show(cmd, args[0]) },
	})

	var step, note string
	var sets []string
	var noWait bool
	answerFlags := func(c *cobra.Command) *cobra.Command {
		c.Flags().StringVar(&step, "step", "", "the step to answer (name or step_id; default: the one the run waits at)")
		c.Flags().BoolVar(&noWait, "no-wait", false, "return once the run continues instead of waiting for it to end or pause again")
		return c
	}
	cmd.AddCommand(answerFlags(&cobra.Command{
		Use:   "approve RUN_ID",
		Short: "Confirm a step, an output to review, or every tool call of a paused agent",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.answer(cmd, args[0], noWait, func(p *hitl.Pause) ([]*workflow.StepRequirement, error) { return p.Approve(step) })
		},
	}))
	reject := answerFlags(&cobra.Command{
		Use:   "reject RUN_ID [--note TEXT]",
		Short: "Reject a step (it follows its on_reject), an output, or a paused agent's tool calls",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.answer(cmd, args[0], noWait, func(p *hitl.Pause) ([]*workflow.StepRequirement, error) { return p.Reject(step, note) })
		},
	})
	reject.Flags().StringVar(&note, "note", "", "why: rejection feedback for the step, or the note shown to the agent's model")
	cmd.AddCommand(reject)
	input := answerFlags(&cobra.Command{
		Use:   "input RUN_ID --set FIELD=VALUE...",
		Short: "Give the values a step asks for (typed by the step's user_input_schema)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			values := map[string]string{}
			for _, kv := range sets {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || strings.TrimSpace(k) == "" {
					return usageErr(cmd, fmt.Errorf("--set %q: give FIELD=VALUE", kv))
				}
				values[strings.TrimSpace(k)] = v
			}
			return o.answer(cmd, args[0], noWait, func(p *hitl.Pause) ([]*workflow.StepRequirement, error) { return p.Input(step, values) })
		},
	})
	input.Flags().StringArrayVar(&sets, "set", nil, "FIELD=VALUE, repeatable; lists as JSON arrays or a,b; dicts as JSON objects")
	cmd.AddCommand(input)
	cmd.AddCommand(answerFlags(&cobra.Command{
		Use:   "select RUN_ID ROUTE...",
		Short: "Choose the route(s) of a router that asks a human",
		Args:  usageArgs(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.answer(cmd, args[0], noWait, func(p *hitl.Pause) ([]*workflow.StepRequirement, error) { return p.Select(step, args[1:]...) })
		},
	}))
	cmd.AddCommand(&cobra.Command{
		Use:   "watch",
		Short: "Print pauses and run ends as they happen",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.watch(cmd) },
	})
	return cmd
}

func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return usageErr(cmd, err)
		}
		return nil
	}
}

// connect dials the socket; the context ends on Ctrl-C.
func (o *hitlOptions) connect(cmd *cobra.Command) (*hitl.Client, context.Context, context.CancelFunc, error) {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	dctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	c, err := hitl.Dial(dctx, o.socket)
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	return c, ctx, stop, nil
}

func (o *hitlOptions) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, o.timeout)
}

func (o *hitlOptions) printJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func (o *hitlOptions) list(cmd *cobra.Command) error {
	c, ctx, stop, err := o.connect(cmd)
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	rctx, cancel := o.request(ctx)
	defer cancel()
	pauses, err := c.Pending(rctx)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.json {
		if pauses == nil {
			pauses = []*hitl.Pause{}
		}
		return o.printJSON(out, pauses)
	}
	if len(pauses) == 0 {
		_, err := fmt.Fprintln(out, "No run is waiting for a human.")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN ID\tWORKFLOW\tSTEP\tWAITS FOR\tSESSION\tASKS")
	for _, p := range pauses {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.RunID, pausedComponent(p), p.PausedStepName, waitsFor(p), p.SessionID, oneLine(asks(p), 60))
	}
	return tw.Flush()
}

func (o *hitlOptions) find(ctx context.Context, c *hitl.Client, runID string) (*hitl.Pause, error) {
	rctx, cancel := o.request(ctx)
	defer cancel()
	p, err := c.Find(rctx, runID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("run %s is not waiting for a human (agno hitl list shows the runs that are)", runID)
	}
	return p, nil
}

func (o *hitlOptions) show(cmd *cobra.Command, runID string) error {
	c, ctx, stop, err := o.connect(cmd)
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	p, err := o.find(ctx, c, runID)
	if err != nil {
		return err
	}
	if o.json {
		return o.printJSON(cmd.OutOrStdout(), p)
	}
	describe(cmd.OutOrStdout(), p)
	return nil
}

type continuedJSON struct {
	Event      string `json:"event"`
	RunID      string `json:"run_id"`
	WorkflowID string `json:"workflow_id,omitempty"`
	AgentID    string `json:"agent_id,omitempty"`
	TeamID     string `json:"team_id,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
}

type finishedJSON struct {
	Event string `json:"event"`
	*hitl.Finished
}

// answer finds the pause, builds the answer, sends it and (unless
// noWait) waits for the run to end or pause again.
func (o *hitlOptions) answer(cmd *cobra.Command, runID string, noWait bool, build func(*hitl.Pause) ([]*workflow.StepRequirement, error)) error {
	c, ctx, stop, err := o.connect(cmd)
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	p, err := o.find(ctx, c, runID)
	if err != nil {
		return err
	}
	answers, err := build(p)
	if err != nil {
		return err
	}
	rctx, cancel := o.request(ctx)
	err = c.Answer(rctx, p, answers)
	cancel()
	if err != nil {
		return fmt.Errorf("run %s: %w", runID, err)
	}
	out := cmd.OutOrStdout()
	if o.json {
		if err := o.printJSON(out, continuedJSON{Event: hitl.EventContinued, RunID: p.RunID, WorkflowID: p.WorkflowID, AgentID: p.AgentID, TeamID: p.TeamID, SessionID: p.SessionID}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "Run %s continued (%s %s).\n", p.RunID, p.Kind(), p.ComponentID())
	}
	if noWait {
		return nil
	}
	f, err := c.Wait(ctx, p.RunID)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "Stopped waiting; run %s goes on.\n", p.RunID)
			return nil
		}
		return fmt.Errorf("waiting for run %s: %w", p.RunID, err)
	}
	if o.json {
		if err := o.printJSON(out, finishedJSON{Event: hitl.EventRunFinished, Finished: f}); err != nil {
			return err
		}
	} else {
		printFinished(out, f)
	}
	if f.Status == run.StatusError {
		return fmt.Errorf("run %s failed: %v", f.RunID, f.Content)
	}
	return nil
}

func printFinished(w io.Writer, f *hitl.Finished) {
	switch f.Status {
	case run.StatusPaused:
		fmt.Fprintf(w, "Run %s is waiting for a human again (agno hitl show %s).\n", f.RunID, f.RunID)
	default:
		fmt.Fprintf(w, "Run %s %s: %s\n", f.RunID, f.Status, run.ContentText(f.Content))
	}
}

func (o *hitlOptions) watch(cmd *cobra.Command) error {
	c, ctx, stop, err := o.connect(cmd)
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	out := cmd.OutOrStdout()
	for _, p := range c.Initial() {
		o.printAnnouncement(out, &hitl.Announcement{Event: hitl.EventWaitingForHuman, Pause: p})
	}
	if !o.json {
		fmt.Fprintf(out, "Watching %s (%d waiting); Ctrl-C to stop.\n", o.socket, len(c.Initial()))
	}
	for {
		a, err := c.Next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("watch %s: %w", o.socket, err)
		}
		o.printAnnouncement(out, a)
	}
}

func (o *hitlOptions) printAnnouncement(w io.Writer, a *hitl.Announcement) {
	if o.json {
		switch {
		case a.Raw != nil:
			fmt.Fprintf(w, "%s\n", a.Raw)
		case a.Pause != nil:
			_ = o.printJSON(w, struct {
				Event string `json:"event"`
				*hitl.Pause
			}{a.Event, a.Pause})
		}
		return
	}
	ts := time.Now().Format("15:04:05")
	switch {
	case a.Pause != nil:
		p := a.Pause
		fmt.Fprintf(w, "%s waiting_for_human run=%s %s=%s step=%s waits for %s: %s\n", ts, p.RunID, p.Kind(), p.ComponentID(), p.PausedStepName, waitsFor(p), oneLine(asks(p), 100))
	case a.Resumed != nil:
		fmt.Fprintf(w, "%s resumed run=%s (answered elsewhere) status=%s\n", ts, a.Resumed.RunID, a.Resumed.Status)
	case a.Finished != nil:
		fmt.Fprintf(w, "%s run_finished run=%s status=%s content=%s\n", ts, a.Finished.RunID, a.Finished.Status, oneLine(run.ContentText(a.Finished.Content), 100))
	default:
		fmt.Fprintf(w, "%s %s\n", ts, a.Raw)
	}
}

// interactive prompts for each pending pause, then for new ones as they
// come, until end of input.
func (o *hitlOptions) interactive(cmd *cobra.Command) error {
	in := cmd.InOrStdin()
	echo := !isTerminal(in)
	c, ctx, stop, err := o.connect(cmd)
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	out := cmd.OutOrStdout()

	lines := stdinLines(ctx, in) // ends at end of input (the process exits otherwise)
	anns := make(chan *hitl.Announcement)
	annCtx, stopAnns := context.WithCancel(ctx)
	annDone := make(chan struct{})
	defer func() { stopAnns(); <-annDone }()
	go func() {
		defer close(annDone)
		defer close(anns)
		for {
			a, err := c.Next(annCtx)
			if err != nil {
				return
			}
			select {
			case anns <- a:
			case <-annCtx.Done():
				return
			}
		}
	}()

	queue := append([]*hitl.Pause(nil), c.Initial()...)
	note := func(a *hitl.Announcement) {
		switch {
		case a.Pause != nil:
			for i, q := range queue {
				if q.RunID == a.Pause.RunID {
					queue[i] = a.Pause
					return
				}
			}
			queue = append(queue, a.Pause)
		case a.Resumed != nil: // answered elsewhere: nothing left to ask
			queue = slices.DeleteFunc(queue, func(q *hitl.Pause) bool { return q.RunID == a.Resumed.RunID })
		}
	}
	fmt.Fprintf(out, "Connected to %s: %d run(s) waiting for a human.\n", o.socket, len(queue))
	for {
		if len(queue) == 0 {
			fmt.Fprintln(out, "Waiting for pauses (end of input or Ctrl-D to quit)…")
			select {
			case a, ok := <-anns:
				if !ok {
					return fmt.Errorf("the HITL server at %s closed the connection", o.socket)
				}
				note(a)
			case _, ok := <-lines:
				if !ok {
					return nil
				}
			case <-ctx.Done():
				return nil
			}
			continue
		}
		p := queue[0]
		queue = queue[1:]
		fmt.Fprintln(out)
		describe(out, p)
		answers, action := promptAnswer(out, lines, p, echo)
		switch action {
		case "quit":
			return nil
		case "skip":
			continue
		}
		rctx, cancel := o.request(ctx)
		err := c.Answer(rctx, p, answers)
		cancel()
		if err != nil {
			fmt.Fprintf(out, "Not continued: %v\n", err)
			continue
		}
		fmt.Fprintf(out, "Run %s continued; waiting for it…\n", p.RunID)
		f, err := c.Wait(ctx, p.RunID)
		if err != nil {
			return err
		}
		printFinished(out, f)
		// Pauses announced meanwhile (a re-pause among them) join the queue.
	drain:
		for {
			select {
			case a, ok := <-anns:
				if !ok {
					return fmt.Errorf("the HITL server at %s closed the connection", o.socket)
				}
				note(a)
			default:
				break drain
			}
		}
	}
}

// promptAnswer asks the operator how to answer p; action is "answer",
// "skip" or "quit".
func promptAnswer(out io.Writer, lines <-chan string, p *hitl.Pause, echo bool) ([]*workflow.StepRequirement, string) {
	ask := func(prompt string) (string, bool) {
		fmt.Fprint(out, prompt)
		l, ok := <-lines
		if echo {
			fmt.Fprintln(out, l) // a terminal shows what was typed; a pipe does not
		}
		return strings.TrimSpace(l), ok
	}
	r, err := p.Requirement("")
	if err != nil {
		fmt.Fprintf(out, "Cannot answer: %v\n", err)
		return nil, "skip"
	}
	for {
		var answers []*workflow.StepRequirement
		var err error
		switch r.Kind() {
		case "route_selection":
			for i, c := range r.AvailableChoices {
				fmt.Fprintf(out, "  %d) %s\n", i+1, c)
			}
			l, ok := ask("Route(s) by number or name, comma-separated; r to reject, s to skip, q to quit: ")
			if !ok || l == "q" {
				return nil, "quit"
			}
			switch l {
			case "s", "":
				return nil, "skip"
			case "r":
				answers, err = rejectPrompt(ask, p)
			default:
				var names []string
				for _, part := range strings.Split(l, ",") {
					part = strings.TrimSpace(part)
					if n, e := strconv.Atoi(part); e == nil && n >= 1 && n <= len(r.AvailableChoices) {
						part = r.AvailableChoices[n-1]
					}
					names = append(names, part)
				}
				answers, err = p.Select("", names...)
			}
		case "user_input":
			l, ok := ask("[i]nput values, [r]eject, [s]kip, [q]uit? ")
			if !ok || l == "q" {
				return nil, "quit"
			}
			switch l {
			case "s", "":
				return nil, "skip"
			case "r":
				answers, err = rejectPrompt(ask, p)
			default:
				values := map[string]string{}
				for _, f := range r.UserInputSchema {
					v, ok := ask(fmt.Sprintf("  %s (%s)%s: ", f.Name, typeName(f.FieldType), fieldHint(f)))
					if !ok {
						return nil, "quit"
					}
					if v != "" { // left empty: not given (the validator names missing required fields)
						values[f.Name] = v
					}
				}
				answers, err = p.Input("", values)
			}
		default:
			l, ok := ask("[a]pprove, [r]eject, [s]kip, [q]uit? ")
			if !ok || l == "q" {
				return nil, "quit"
			}
			switch l {
			case "a", "approve", "y", "yes":
				answers, err = p.Approve("")
			case "r", "reject", "n", "no":
				answers, err = rejectPrompt(ask, p)
			default:
				return nil, "skip"
			}
		}
		if err == nil {
			return answers, "answer"
		}
		fmt.Fprintf(out, "%v\nTry again.\n", err)
	}
}

func rejectPrompt(ask func(string) (string, bool), p *hitl.Pause) ([]*workflow.StepRequirement, error) {
	note, _ := ask("Note (optional): ")
	return p.Reject("", note)
}

func fieldHint(f workflow.InputField) string {
	var parts []string
	if f.Required == nil || *f.Required {
		parts = append(parts, "required")
	} else {
		parts = append(parts, "optional")
	}
	if len(f.AllowedValues) > 0 {
		parts = append(parts, "one of "+valuesText(f.AllowedValues))
	}
	if f.Description != "" {
		parts = append(parts, f.Description)
	}
	return " [" + strings.Join(parts, "; ") + "]"
}

func typeName(t string) string {
	if t == "" {
		return "str"
	}
	return t
}

func valuesText(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// waitsFor names what the run waits for.
func waitsFor(p *hitl.Pause) string {
	if p.PauseKind == "error" {
		return "retry or skip (step failed)"
	}
	if r := active(p); r != nil {
		return strings.ReplaceAll(r.Kind(), "_", " ")
	}
	return p.PauseKind
}

// active is the requirement the run waits for (an agent's or team's
// pause as one executor requirement).
func active(p *hitl.Pause) *workflow.StepRequirement {
	if p.Kind() != "workflow" {
		r, _ := p.Requirement("")
		return r
	}
	if len(p.StepRequirements) == 0 {
		return nil
	}
	return p.StepRequirements[len(p.StepRequirements)-1]
}

// asks is the question the run puts to the human.
func asks(p *hitl.Pause) string {
	if p.PauseKind == "error" && len(p.ErrorRequirements) > 0 {
		return "failed: " + p.ErrorRequirements[len(p.ErrorRequirements)-1].Error
	}
	r := active(p)
	if r == nil {
		return ""
	}
	switch r.Kind() {
	case "executor":
		var calls []string
		for _, er := range r.ExecutorRequirements {
			if er.ToolExecution != nil && !er.Resolved() {
				args, _ := json.Marshal(er.ToolExecution.ToolArgs)
				calls = append(calls, fmt.Sprintf("%s(%s)", er.ToolExecution.ToolName, args))
			}
		}
		return fmt.Sprintf("%s %q: %s", r.ExecutorType, r.ExecutorName, strings.Join(calls, ", "))
	case "route_selection":
		return firstNonEmpty(r.UserInputMessage, "choose a route") + " [" + strings.Join(r.AvailableChoices, ", ") + "]"
	case "output_review":
		return firstNonEmpty(r.OutputReviewMessage, "review the output")
	case "user_input":
		names := make([]string, 0, len(r.UserInputSchema))
		for _, f := range r.UserInputSchema {
			names = append(names, f.Name)
		}
		return firstNonEmpty(r.UserInputMessage, "values") + " (" + strings.Join(names, ", ") + ")"
	}
	return firstNonEmpty(r.ConfirmationMessage, "confirm the step")
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// pausedComponent names what paused: the workflow id, or "agent ID" / "team
// ID".
func pausedComponent(p *hitl.Pause) string {
	if p.Kind() == "workflow" {
		return p.WorkflowID
	}
	return p.Kind() + " " + p.ComponentID()
}

// describe prints a pause in full, with the commands that answer it.
func describe(w io.Writer, p *hitl.Pause) { describePause(w, p, true) }

// describePause shows a pause; withCommands adds the agno hitl command
// lines that answer it from another terminal.
func describePause(w io.Writer, p *hitl.Pause, withCommands bool) {
	fmt.Fprintf(w, "Run:        %s\n", p.RunID)
	name := p.ComponentID()
	if n := p.ComponentName(); n != name {
		name += " (" + n + ")"
	}
	fmt.Fprintf(w, "%-12s%s\n", strings.ToUpper(p.Kind()[:1])+p.Kind()[1:]+":", name)
	fmt.Fprintf(w, "Session:    %s\n", p.SessionID)
	if p.UserID != "" {
		fmt.Fprintf(w, "User:       %s\n", p.UserID)
	}
	if p.PauseKind == "error" && len(p.ErrorRequirements) > 0 {
		er := p.ErrorRequirements[len(p.ErrorRequirements)-1]
		fmt.Fprintf(w, "Step:       %s (failed after %d retries)\nError:      %s\n", er.StepName, er.RetryCount, er.Error)
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl approve %s   (retry the step)\n            agno hitl reject %s    (skip it)\n", p.RunID, p.RunID)
		}
		return
	}
	r := active(p)
	if r == nil {
		return
	}
	if p.Kind() == "workflow" {
		idx := ""
		if r.StepIndex != nil {
			idx = fmt.Sprintf("index %d, ", *r.StepIndex)
		}
		fmt.Fprintf(w, "Step:       %s (%sstep_id %s)\n", r.StepName, idx, r.StepID)
	}
	fmt.Fprintf(w, "Waits for:  %s\n", waitsFor(p))
	switch r.Kind() {
	case "confirmation":
		fmt.Fprintf(w, "Message:    %s\n", firstNonEmpty(r.ConfirmationMessage, "(none)"))
		fmt.Fprintf(w, "On reject:  %s\n", firstNonEmpty(string(r.OnReject), "skip"))
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl approve %s\n            agno hitl reject %s --note \"…\"\n", p.RunID, p.RunID)
		}
	case "output_review":
		fmt.Fprintf(w, "Message:    %s\n", firstNonEmpty(r.OutputReviewMessage, "(none)"))
		if r.StepOutput != nil {
			fmt.Fprintf(w, "Output:\n%s\n", indent(r.StepOutput.ContentString()))
		}
		fmt.Fprintf(w, "On reject:  %s (retry %d of %d)\n", firstNonEmpty(string(r.OnReject), "skip"), r.RetryCount, r.MaxRetries)
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl approve %s\n            agno hitl reject %s --note \"what to change\"\n", p.RunID, p.RunID)
		}
	case "user_input":
		fmt.Fprintf(w, "Message:    %s\n", firstNonEmpty(r.UserInputMessage, "(none)"))
		fmt.Fprintln(w, "Fields:")
		var sets []string
		for _, f := range r.UserInputSchema {
			fmt.Fprintf(w, "  %-12s %-6s%s\n", f.Name, typeName(f.FieldType), fieldHint(f))
			sets = append(sets, "--set "+f.Name+"=…")
		}
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl input %s %s\n", p.RunID, strings.Join(sets, " "))
		}
	case "route_selection":
		fmt.Fprintf(w, "Message:    %s\n", firstNonEmpty(r.UserInputMessage, "(none)"))
		many := "one"
		if r.AllowMultipleSelections {
			many = "one or more"
		}
		fmt.Fprintf(w, "Choices:    %s (pick %s)\n", strings.Join(r.AvailableChoices, ", "), many)
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl select %s ROUTE…\n", p.RunID)
		}
	case "executor":
		if p.Kind() == "workflow" {
			fmt.Fprintf(w, "Executor:   %s %q (run %s)\n", r.ExecutorType, r.ExecutorName, r.ExecutorRunID)
		}
		fmt.Fprintln(w, "Tool calls:")
		for _, er := range r.ExecutorRequirements {
			if er.ToolExecution == nil {
				continue
			}
			args, _ := json.Marshal(er.ToolExecution.ToolArgs)
			fmt.Fprintf(w, "  %s(%s) — waits for %s\n", er.ToolExecution.ToolName, args, er.PauseType())
		}
		if withCommands {
			fmt.Fprintf(w, "Answer:     agno hitl approve %s\n            agno hitl reject %s --note \"…\"\n", p.RunID, p.RunID)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}
