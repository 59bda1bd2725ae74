package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const checkConfig = `[agentos.registry]
sources = ["agents"]
[models.default]
provider = "openai-compatible"
base_url = "http://127.0.0.1:1/v1"
model = "m"
`

// config check builds what a start would, prints every problem once, and
// fails only for what a start would fail on or skip; it leaves no
// database behind.
func TestConfigCheck(t *testing.T) {
	t.Setenv("CHECK_KEY", "")
	t.Setenv("CHECK_DSN", "")
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		says  []string
		once  string
	}{
		{"ok", map[string]string{"config.toml": checkConfig, "agents/a.toml": "name = \"A\"\nmodel = \"default\"\n"}, nil, 0,
			[]string{"1 agents, 0 teams, 0 workflows; 0 files failed, 0 warnings: OK."}, ""},
		{"bad agent file", map[string]string{"config.toml": checkConfig, "agents/a.toml": "name = \"A\"\nmodel = \"nope\"\n", "agents/b.toml": "name = \"B\"\nmodel = \"default\"\n"}, nil, 1,
			[]string{"a.toml", "nope", "1 agents", "1 files failed"}, "skipped agent"},
		{"missing key is a warning", map[string]string{"config.toml": checkConfig + "[models.keyed]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"CHECK_KEY\"\n", "agents/a.toml": "name = \"A\"\nmodel = \"default\"\n"}, nil, 0,
			[]string{"warning: model API key is not set", "CHECK_KEY", "1 warnings: OK."}, "CHECK_KEY="},
		{"strict fails on warnings", map[string]string{"config.toml": checkConfig + "[models.keyed]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"CHECK_KEY\"\n", "agents/a.toml": "name = \"A\"\nmodel = \"default\"\n"}, []string{"--strict"}, 1,
			[]string{"1 warnings."}, ""},
		{"invalid config", map[string]string{"config.toml": "[agentos]\nport = 0\nnmae = 1\n"}, nil, 1,
			[]string{"config.toml:2", "agentos.port = 0", `unknown key "agentos.nmae"`}, "agentos.port = 0"},
		{"syntax", map[string]string{"config.toml": "[agentos\nport = 1\n"}, nil, 1, []string{"config.toml:1"}, "config.toml:1"},
		{"unset DSN is a warning, not a connection", map[string]string{"config.toml": checkConfig + "[storage]\ndriver = \"postgres\"\ndsn_env = \"CHECK_DSN\"\n", "agents/a.toml": "name = \"A\"\nmodel = \"default\"\n"}, nil, 0,
			[]string{"storage: postgres reads its connection string from CHECK_DSN, which is not set here", "1 warnings: OK."}, "CHECK_DSN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, c.files)
			out, code := runCLI(append([]string{"config", "check", "--config", filepath.Join(dir, "config.toml")}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s", code, c.code, out)
			}
			for _, s := range c.says {
				if !strings.Contains(out, s) {
					t.Errorf("does not say %q:\n%s", s, out)
				}
			}
			if c.once != "" && strings.Count(out, c.once) != 1 {
				t.Errorf("%q said %d times, want once:\n%s", c.once, strings.Count(out, c.once), out)
			}
			if _, err := os.Stat(filepath.Join(dir, "agno.db")); !os.IsNotExist(err) {
				t.Errorf("check left a database behind: %v", err)
			}
		})
	}
}

// config show prints the file's values, the settings and the defaults
// applied where the values are used, as TOML that loads again.
func TestConfigShow(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"config.toml": checkConfig + "organization = \"org-1\"\n[storage]\ntimeout_seconds = 3\n"})
	out, code := runCLI("config", "show", "--config", filepath.Join(dir, "config.toml"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, s := range []string{
		"port = 7777",           // a load-time default
		"timeout_seconds = 3.0", // the file's value
		"timeout = 600.0",       // a model default applied where it is used
		"max_response_bytes = 33554432",
		"organization = \"org-1\"",                         // a provider's own key
		"path = \"" + filepath.Join(dir, "agno.db") + "\"", // resolved
	} {
		if !strings.Contains(out, s) {
			t.Errorf("does not show %q:\n%s", s, out)
		}
	}
	again := filepath.Join(dir, "again.toml")
	if err := os.WriteFile(again, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runCLI("config", "check", "--config", again); code != 0 {
		t.Errorf("the shown config does not check: exit %d\n%s", code, out)
	}
}
