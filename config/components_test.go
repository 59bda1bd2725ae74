package config_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/config"
)

// [components] names only what exists: each bad entry is an error naming
// its key path.
func TestComponentsAllowlistIsChecked(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"[components]\nallowed_models = [\"nope\"]\n", `components.allowed_models[0]: "nope" is not a key of [models]`},
		{"[components]\nallowed_knowledge = [\"\"]\n", "components.allowed_knowledge has an empty entry"},
		{"[components]\nallowed_tools = [\"mcp:nope\"]\n", `components.allowed_tools[0]: "mcp:nope" is not a tool`},
		{"[components]\nallowed_tools = [\"shell\", \"shell\"]\n", `lists "shell" twice`},
		{"[components]\nallowed_tool = [\"shell\"]\n", `unknown key "components.allowed_tool"`},
	} {
		err := parse(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.src, err)
		}
	}
	if err := parse(t, "[components]\nallowed_tools = [\"shell\", \"my_fn\"]\nallowed_models = []\n"); err != nil {
		t.Fatalf("valid lists: %v", err)
	}
	// A Go function is known at Build.
	dir := t.TempDir()
	cfg, err := config.Parse(filepath.Join(dir, "config.toml"), []byte("[storage]\ndriver = \"memory\"\n[components]\nallowed_tools = [\"my_fn\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{}); err == nil || !strings.Contains(err.Error(), `components.allowed_tools[0] = "my_fn" names no tool`) {
		t.Fatalf("unknown Go function: %v", err)
	}
}

// A component naming a built-in toolkit is refused with the key, the
// list to extend and both error kinds; files keep every tool.
func TestBuildComponentRefusesWhatIsNotAllowed(t *testing.T) {
	res, _ := componentResources(t)
	ctx := context.Background()
	for _, cfg := range []string{`{"model": "fast", "tools": ["shell"]}`, `{"model": "fast", "tools": ["file"]}`} {
		_, err := res.BuildComponent(ctx, config.KindAgent, "c", jsonObject(t, cfg), config.Existing{Agents: res.Agents})
		if !errors.Is(err, component.ErrNotAllowed) || !errors.Is(err, config.ErrInvalidConfig) || !strings.Contains(err.Error(), "[components] allowed_tools of config.toml") {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}
