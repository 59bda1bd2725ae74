package agent_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/internal/faultfs"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/runs"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

// The disk fills while a run is in flight (its start is stored, its end
// cannot be): the run ends ERROR with the storage's message, streamed or
// not, and leaves nothing behind in the engine — a drain returns at once.
func TestRunEndOnAFullDisk(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "non-stream", true: "stream"}[stream], func(t *testing.T) {
			dir := faultfs.Tmpfs(t, 8<<20)
			ctx := context.Background()
			st, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "agno.db")})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var once sync.Once
			var free func()
			m := modeltest.NewFunc(func(*model.Request) modeltest.Response {
				once.Do(func() {
					// The run's row is stored before the disk fills.
					for deadline := time.Now().Add(10 * time.Second); ; {
						if recs, _ := st.ListRuns(ctx, storage.RunQuery{SessionID: "full"}); len(recs) == 1 {
							break
						}
						if time.Now().After(deadline) {
							t.Error("the run's start was never stored")
							break
						}
						time.Sleep(5 * time.Millisecond)
					}
					free = faultfs.Fill(t, dir)
				})
				// Large enough that its write needs new pages (SQLite reuses
				// the space its WAL file already has).
				return modeltest.Response{Content: strings.Repeat("an answer that cannot be kept ", 40000)}
			})
			a := newAgent(t, agent.Config{Name: "Writer", Model: m, Store: st})
			var out *run.Output
			if stream {
				var last run.Event
				for ev, err := range a.RunStream(ctx, "hi", run.WithSessionID("full")) {
					if err != nil {
						t.Fatalf("stream error: %v", err)
					}
					last = ev
				}
				re, ok := last.(*run.RunError)
				if !ok || !strings.Contains(re.Content, "full") {
					t.Fatalf("the stream ends with %T %+v, want a RunError naming the full disk", last, last)
				}
			} else {
				out, err = a.Run(ctx, "hi", run.WithSessionID("full"))
				if err == nil && (out.Status != run.StatusError || !strings.Contains(out.ContentString(), "full")) {
					t.Fatalf("run on a full disk: %s %q", out.Status, out.ContentString())
				}
			}
			if free != nil {
				free()
			}
			dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			done := make(chan struct{})
			go func() { runs.For(st).Drain(dctx, context.Canceled); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				t.Fatal("the engine still counts the run: a drain does not return")
			}
		})
	}
}
