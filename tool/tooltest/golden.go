package tooltest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agno-go/agno/tool"
)

// golden is what the model sees of a toolkit: its functions' definitions
// and the instructions added to the system message.
type golden struct {
	Toolkit      string           `json:"toolkit"`
	Name         string           `json:"name"`
	Instructions string           `json:"instructions"`
	Functions    []goldenFunction `json:"functions"`
}

type goldenFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
	// Instructions are the function's own, when added to the system
	// message.
	Instructions string `json:"instructions,omitempty"`
	// Flags are agno's names of the human-in-the-loop and result flags
	// set on the function.
	Flags []string `json:"flags,omitempty"`
}

func goldenOf(h Harness, b built) ([]byte, error) {
	g := golden{Toolkit: h.Toolkit, Functions: []goldenFunction{}}
	if n, ok := b.provider.(interface{ Name() string }); ok {
		g.Name = n.Name()
	}
	if in, ok := b.provider.(interface{ Instructions() string }); ok {
		g.Instructions = in.Instructions()
	}
	for _, f := range b.fns {
		d := f.Definition()
		gf := goldenFunction{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict}
		if f.AddInstructions {
			gf.Instructions = f.Instructions
		}
		gf.Flags = flags(f)
		g.Functions = append(g.Functions, gf)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // descriptions stay readable: "<", ">" and "&" as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func flags(f *tool.Function) []string {
	var out []string
	for _, fl := range []struct {
		name string
		set  bool
	}{
		{"requires_confirmation", f.RequiresConfirmation},
		{"requires_user_input", f.RequiresUserInput},
		{"external_execution", f.ExternalExecution},
		{"stop_after_tool_call", f.StopAfterToolCall},
		{"show_result", f.ShowResult},
	} {
		if fl.set {
			out = append(out, fl.name)
		}
	}
	return out
}

// compareGolden compares the toolkit's golden text with its file, or
// rewrites the file when UpdateEnv is 1.
func compareGolden(t *testing.T, h Harness, b built) {
	t.Helper()
	got, err := goldenOf(h, b)
	if err != nil {
		t.Fatalf("golden: %v", err)
	}
	path := h.Golden
	if path == "" {
		path = filepath.Join("testdata", "tooltest", h.Toolkit+".golden.json")
	}
	if os.Getenv(UpdateEnv) == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no golden file %s: create it with %s=1 go test -run '%s' in this package, then review it against agno", path, UpdateEnv, t.Name())
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("what the model sees differs from %s (-file +toolkit); after a deliberate change run %s=1 go test -run '%s' in this package and review the diff against agno:\n%s",
			path, UpdateEnv, t.Name(), cmp.Diff(string(want), string(got)))
	}
}
