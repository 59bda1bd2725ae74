// Command hitl-confirm shows human-in-the-loop confirmation: the agent
// wants to send an email, the run pauses, a human confirms (here: answers
// y/n on stdin, or -yes), the tool runs and the run completes. The paused
// run is kept in a SQLite file, so the confirmation could come from
// another process.
//
//	go run ./examples/hitl-confirm            # offline, fake model
//	go run ./examples/hitl-confirm -yes
//	go run ./examples/hitl-confirm -h        # the flags every example shares
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/examples/internal/exampleflags"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/model/openai"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/sqlite"
	"github.com/agno-go/agno/tool"
)

type emailArgs struct {
	To      string `json:"to" description:"Recipient address"`
	Subject string `json:"subject"`
	Body    string `json:"body"`
}

func main() {
	// Always offline: the model is a built-in fake.
	f, err := exampleflags.Parse("hitl-confirm", "a tool call waits for a human's confirmation (y/n on stdin, or -yes)", os.Args[1:], os.Stdout, nil)
	if err != nil {
		exampleflags.Exit(err)
	}
	exampleflags.Exit(runExample(context.Background(), os.Stdin, os.Stdout, f.Yes, f.DB))
}

func runExample(ctx context.Context, in io.Reader, out io.Writer, autoYes bool, dbPath string) error {
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeMailer})
	defer srv.Close()
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "offline", ID: "fake-model", Compatible: true})
	if err != nil {
		return err
	}
	if dbPath == "" {
		dir, err := os.MkdirTemp("", "agno-hitl-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbPath = filepath.Join(dir, "agno.db")
	}
	store, err := sqlite.Open(ctx, sqlite.Config{Path: dbPath})
	if err != nil {
		return err
	}
	defer store.Close()

	send := tool.Must(tool.New("send_email", "Send an email.", func(_ context.Context, a emailArgs) (string, error) {
		return fmt.Sprintf("Email sent to %s.", a.To), nil
	}, tool.RequiresConfirmation()))
	a, err := agent.New(agent.Config{Name: "Mailer", Model: m, Tools: []tool.Provider{send}, Store: store})
	if err != nil {
		return err
	}
	paused, err := a.Run(ctx, "Email Alice that the meeting moved to 3pm.", run.WithSessionID("demo"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status: %s — %s\n", paused.Status, paused.Content)
	if !paused.Paused() {
		return fmt.Errorf("expected the run to pause")
	}
	for _, req := range paused.ActiveRequirements() {
		t := req.ToolExecution
		fmt.Fprintf(out, "The agent wants to call %s with %v. Allow? [y/N] ", t.ToolName, t.ToolArgs)
		answer := "y"
		if !autoYes {
			line, _ := bufio.NewReader(in).ReadString('\n')
			answer = strings.TrimSpace(strings.ToLower(line))
		} else {
			fmt.Fprintln(out, "y")
		}
		if answer == "y" || answer == "yes" {
			_ = req.Confirm()
		} else {
			_ = req.Reject("The human declined.")
		}
	}
	// A fresh agent value continues by run id from storage.
	a2, err := agent.New(agent.Config{Name: "Mailer", Model: m, Tools: []tool.Provider{send}, Store: store})
	if err != nil {
		return err
	}
	done, err := a2.Continue(ctx, run.ContinueRequest{RunID: paused.RunID, SessionID: "demo", Requirements: paused.Requirements})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "status: %s — %s\n", done.Status, done.Content)
	return nil
}

// fakeMailer plays the model: ask to send the email, then report.
func fakeMailer(req *model.Request) modeltest.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == model.RoleTool {
		return modeltest.Response{Content: "Done: " + last.Content}
	}
	return modeltest.Response{ToolCalls: []model.ToolCall{modeltest.ToolCall("call_1", "send_email",
		`{"to":"alice@example.com","subject":"Meeting","body":"The meeting moved to 3pm."}`)}}
}
