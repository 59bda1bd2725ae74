package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/run"
	"github.com/agno-go/agno/storage"
	"github.com/agno-go/agno/storage/sqlite"
)

// Open creates the database file and its tables on first use; sessions
// written through it are there after a restart.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "agno-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "agno.db")
	ctx := context.Background()

	db, err := sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		panic(err)
	}
	_, created, err := db.EnsureSession(ctx, &storage.Session{SessionID: "s1", SessionType: storage.SessionAgent,
		UserID: "ada", SessionState: map[string]any{"cart": []any{"tea"}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", created)
	db.Close()

	// A new process opening the same file sees the session.
	db, err = sqlite.Open(ctx, sqlite.Config{Path: path})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	s, err := db.GetSession(ctx, "s1")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.UserID, s.SessionState["cart"])
	// Output:
	// created: true
	// ada [tea]
}

// As an agent's Store it keeps the agent's sessions and runs.
func ExampleStore_agent() {
	dir, err := os.MkdirTemp("", "agno-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, sqlite.Config{Path: filepath.Join(dir, "agno.db")})
	if err != nil {
		panic(err)
	}
	defer db.Close()

	a, err := agent.New(agent.Config{Name: "Helper", Model: modeltest.New(modeltest.Response{Content: "Hi Ada!"}), Store: db})
	if err != nil {
		panic(err)
	}
	if _, err := a.Run(ctx, "Hello, I am Ada", run.WithSessionID("s1")); err != nil {
		panic(err)
	}
	runs, err := db.ListRuns(ctx, storage.RunQuery{SessionID: "s1"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(runs), runs[0].ComponentID, runs[0].Status)
	// Output:
	// 1 helper COMPLETED
}
