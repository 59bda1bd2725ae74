package config_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/agno-go/agno/config"
)

// Loading config.toml, settings.json and the registry sources, as
// `agno agentos start --config config.toml --settings settings.json` does.
func Example() {
	dir, _ := os.MkdirTemp("", "agno-example")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte(`
[agentos]
name = "my-agentos"
port = 7777

[models.default]
provider = "openai-compatible"
base_url = "http://localhost:11434/v1"
model = "llama3.1"

[storage]
driver = "memory"
`), 0o644)
	os.WriteFile(filepath.Join(dir, "agents", "helper.toml"), []byte(`
name = "Helper"
instructions = ["Be concise."]
`), 0o644)

	cfg, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		log.Fatal(err) // every problem, with file, line and the fix
	}
	if cfg, err = cfg.WithSettings(config.DefaultSettings()); err != nil {
		log.Fatal(err)
	}
	res, err := cfg.Build(context.Background(), config.Functions{}, config.Existing{})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	fmt.Println(res.Report.Counts.Agents, "agent:", res.Agents[0].ID(), res.Agents[0].Name())
	// Output: 1 agent: helper Helper
}
