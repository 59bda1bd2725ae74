// Command hitl-socket runs a workflow whose second step needs a human's
// confirmation, with the human-in-the-loop Unix socket: the run pauses
// (status PAUSED, "waiting_for_human") and a human answers from another
// terminal with `agno hitl approve RUN_ID`. No API key needed: the steps
// are Go functions.
//
//	go run ./examples/hitl-socket                 # terminal 1
//	agno hitl list; agno hitl approve <run_id>    # terminal 2
//
// -yes answers from this process instead (as a socket client);
// -db keeps runs in SQLite, so a paused run outlives the process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agno-go/agno/examples/internal/exampleflags"
	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/workflow"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	exampleflags.Exit(runExample(ctx, os.Args[1:], os.Stdout, logger))
}

func runExample(ctx context.Context, args []string, stdout io.Writer, logger *slog.Logger) error {
	socketDefault := os.Getenv("AGNO_HITL_SOCKET")
	if socketDefault == "" {
		socketDefault = "/tmp/agno-hitl.sock"
	}
	var socket string
	var autoApprove bool
	flags, err := exampleflags.Parse("hitl-socket", "a workflow step waits for approval over the HITL socket (agno hitl answers it)", args, stdout, func(fs *flag.FlagSet) {
		fs.StringVar(&socket, "socket", socketDefault, "HITL socket path (default from AGNO_HITL_SOCKET)")
		fs.BoolVar(&autoApprove, "auto-approve", false, "the same as -yes (its earlier name)")
	})
	if err != nil {
		return err
	}
	autoApprove = autoApprove || flags.Yes
	dbPath := flags.DB

	var store storage.Store = memory.New()
	if dbPath != "" {
		st, err := sqlite.Open(ctx, sqlite.Config{Path: dbPath, Logger: logger})
		if err != nil {
			return err
		}
		store = st
	}
	defer store.Close()

	w, err := workflow.New(workflow.Config{Name: "workflow-hitl-step-confirmation", Store: store, Logger: logger, Steps: []workflow.Node{
		&workflow.Step{Name: "fetch_data", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "3 users matched " + in.InputString()}, nil
		}},
		&workflow.Step{Name: "process_sensitive_data", Func: func(_ context.Context, in *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: fmt.Sprintf("Saved workflow results: processed %v", in.PreviousStepContent)}, nil
		}, HumanReview: workflow.HumanReview{RequiresConfirmation: true, ConfirmationMessage: "Process sensitive data now?"}},
	}})
	if err != nil {
		return err
	}

	srv, err := hitl.NewServer(hitl.Config{SocketPath: socket, Workflows: []*workflow.Workflow{w}, Logger: logger})
	if err != nil {
		return err
	}
	w.SetNotifier(srv) // pauses are announced on the socket
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "HITL socket: %s\n", socket)

	// This process watches the socket too: it learns there when the run,
	// continued by whoever answers, ends.
	c, err := hitl.Dial(ctx, socket)
	if err != nil {
		return err
	}
	defer c.Close()
	if n := len(c.Initial()); n > 0 {
		fmt.Fprintf(stdout, "%d earlier run(s) still wait for a human (agno hitl list).\n", n)
	}

	out, err := w.Run(ctx, "Q3 users", run.WithSessionID("hitl-socket-demo"))
	if err != nil {
		return err
	}
	if !out.Paused() {
		return fmt.Errorf("expected the run to pause, it is %s", out.Status)
	}
	req := out.ActiveRequirement()
	fmt.Fprintf(stdout, "Run %s is %s (waiting_for_human) at step %q: %s\n", out.RunID, out.Status, req.StepName, req.ConfirmationMessage)

	if autoApprove {
		p, err := c.Find(ctx, out.RunID)
		if err != nil {
			return err
		}
		if p == nil {
			return fmt.Errorf("run %s is not listed on the socket", out.RunID)
		}
		answers, err := p.Approve("")
		if err != nil {
			return err
		}
		if err := c.Answer(ctx, p, answers); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "Approved over the socket (-yes).")
	} else {
		fmt.Fprintf(stdout, "Answer from another terminal:\n  agno hitl approve %s --socket %s\n", out.RunID, socket)
	}

	f, err := c.Wait(ctx, out.RunID)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stdout, "Stopped; run %s is still paused", out.RunID)
		if dbPath != "" {
			fmt.Fprintf(stdout, " in %s: start again with -db %s to answer it", dbPath, dbPath)
		}
		fmt.Fprintln(stdout, ".")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Run %s %s: %v\n", f.RunID, f.Status, f.Content)
	stored, err := w.GetRun(ctx, out.RunID)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Stored status: %s\n", stored.Status)
	return nil
}
