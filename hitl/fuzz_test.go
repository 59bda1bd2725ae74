package hitl_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/hitl"
	"github.com/agno-go/agno/internal/safe/safetest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage/memory"
	"github.com/agno-go/agno/workflow"
)

// FuzzSocketLine sends arbitrary lines on the HITL socket (newline-
// delimited JSON from whoever can connect): whatever they hold, the
// server answers the next ping on the same connection and recovers no
// panic.
func FuzzSocketLine(f *testing.F) {
	f.Add(`{"action":"ping"}`)
	f.Add(`{"action":"list"}`)
	f.Add(`{"action":"continue-workflow","workflow_id":"fz","run_id":"r1","step_requirements":[{"step_id":"S","executor_requirements":[null]}]}`)
	f.Add(`{"action":"continue-workflow","workflow_id":"fz","run_id":"r1","step_requirements":[null,{"step_id":""}]}`)
	f.Add(`{"action":"continue-workflow","workflow_id":"fz","run_id":"r1","step_requirements":{"a":1}}`)
	f.Add(`{"action":7}`)
	f.Add(`[{"action":"ping"}]`)
	f.Add("\x00\xff{")
	store := memory.New()
	w, err := workflow.New(workflow.Config{ID: "fz", Name: "fz", Store: store, Steps: []workflow.Node{
		&workflow.Step{Name: "ask", Func: func(context.Context, *workflow.StepInput) (*workflow.StepOutput, error) {
			return &workflow.StepOutput{Content: "ok"}, nil
		},
			HumanReview: workflow.HumanReview{RequiresConfirmation: true}},
	}})
	if err != nil {
		f.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "hfz")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(dir) })
	log := &safetest.PanicLog{}
	path := filepath.Join(dir, "s.sock")
	srv, err := hitl.NewServer(hitl.Config{SocketPath: path, Workflows: []*workflow.Workflow{w}, Logger: log.Logger()})
	if err != nil {
		f.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { srv.Close() })
	w.SetNotifier(srv)
	// A pause to aim at: answered inputs continue it, so each input gets
	// a fresh one with the id r1.
	pause := func(t *testing.T) {
		_ = store.DeleteSessions(context.Background(), "fz-s")
		if _, err := w.Run(context.Background(), "go", run.WithRunID("r1"), run.WithSessionID("fz-s")); err != nil {
			t.Fatal(err)
		}
	}
	var nc net.Conn
	var br *bufio.Reader
	connect := func(t *testing.T) {
		var err error
		if nc, err = net.Dial("unix", path); err != nil {
			t.Fatal(err)
		}
		br = bufio.NewReaderSize(nc, 1<<16)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > hitl.MaxLineBytes/2 {
			t.Skip("longer than a line may be; refusing it is tested elsewhere")
		}
		pause(t)
		if nc == nil {
			connect(t)
		}
		_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := nc.Write([]byte(line + "\n" + `{"action":"ping"}` + "\n")); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
		for {
			got, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("after %q the connection failed: %v", line, err)
			}
			if strings.TrimSpace(got) == `{"event":"pong"}` {
				break
			}
		}
		log.Check(t, line)
	})
}
