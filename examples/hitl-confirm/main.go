// Command hitl-confirm shows human-in-the-loop confirmation: the agent
// wants to send an email, the run pauses, a human confirms (here: answers
// y/n on stdin, or -yes), the tool runs and the run completes. The paused
// run is kept in a SQLite file, so the confirmation could come from
// another process.
//
//	go run ./examples/hitl-confirm            # offline, fake model
//	go run ./examples/hitl-confirm -yes
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agno-go/agno/agent"
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
	yes := flag.Bool("yes", false, "confirm without asking")
	flag.Parse()
	if err := runExample(context.Background(), os.Stdin, os.Stdout, *yes); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func runExample(ctx context.Context, in io.Reader, out io.Writer, autoYes bool) error {
	srv := modeltest.NewServer(modeltest.ServerConfig{Responder: fakeMailer})
	defer srv.Close()
	m, err := openai.New(openai.Config{BaseURL: srv.URL, APIKey: "offline", ID: "fake-model", Compatible: true})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "agno-hitl-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "agno.db")})
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
