package config_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model/modeltest"
	"github.com/agno-go/agno/tool"
)

// echoHook is a program's own interface, which [interfaces.echohook_test]
// configures once it is registered.
type echoHook struct{ prefix, agent string }

type echoHookOptions struct {
	Agent  string `toml:"agent"`
	Prefix string `toml:"prefix"`
}

func (e *echoHook) Check(agentos.Catalog) error { return nil }
func (e *echoHook) Start(*agentos.Host) error   { return nil }
func (e *echoHook) Stop()                       {}
func (e *echoHook) Routes() []agentos.Route     { return nil }
func (e *echoHook) Listing() []any {
	return []any{map[string]any{"type": "echohook_test", "version": "1.0", "route": e.prefix}}
}

func init() {
	config.RegisterInterface(config.InterfaceSpec[echoHookOptions]{
		Name: "echohook_test", Summary: "a test's own interface",
		Defaults: func() echoHookOptions { return echoHookOptions{Prefix: "/echo"} },
		Check: func(table string, o *echoHookOptions, _ func(string) bool) error {
			if o.Agent == "" {
				return tool.OptionErrorf("", "%s needs agent = \"<agent id>\"", table)
			}
			return nil
		},
		New: func(table string, o *echoHookOptions, served agentos.Catalog) (agentos.Interface, error) {
			if !served.Has("agent", o.Agent) {
				return nil, tool.OptionErrorf("agent", "%s.agent = %q names no agent", table, o.Agent)
			}
			return &echoHook{prefix: o.Prefix, agent: o.Agent}, nil
		},
	})
}

// A registered interface's table is decoded strictly into its options
// over their defaults, checked at Load with problems at their keys, and
// built at Build into an agentos.Interface, as the built-in ones are.
func TestRegisteredInterface(t *testing.T) {
	if names := config.InterfaceNames(); strings.Join(names, " ") != "slack mcp a2a agui echohook_test" {
		t.Fatalf("names %v: the built-ins first, in agno's order", names)
	}
	c, err := parseSlack(t, "[interfaces.echohook_test]\nagent = \"helper\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := c.Interfaces["echohook_test"].(*echoHookOptions); !ok || *o != (echoHookOptions{Agent: "helper", Prefix: "/echo"}) {
		t.Fatalf("options %#v", c.Interfaces["echohook_test"])
	}
	_, err = parseSlack(t, "[interfaces.echohook_test]\nprefx = \"/x\"\n")
	errs := configErrors(t, err)
	findError(t, errs, "interfaces.echohook_test needs agent")
	findError(t, errs, `unknown key "interfaces.echohook_test.prefx"`, `did you mean "interfaces.echohook_test.prefix"`)

	helper, err := agent.New(agent.Config{ID: "helper", Name: "Helper", Model: modeltest.New()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.echohook_test]\nagent = \"helper\"\nprefix = \"/e\"\n"})
	_, res := build(t, dir, config.Functions{}, config.Existing{Agents: []*agent.Agent{helper}})
	if h, ok := built[*echoHook](res); !ok || h.prefix != "/e" || h.agent != "helper" {
		t.Fatalf("built %+v", res.Interfaces)
	}

	writeFiles(t, dir, map[string]string{"config.toml": "[storage]\ndriver = \"memory\"\n[interfaces.echohook_test]\nagent = \"nobody\"\n"})
	c, err = config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Logger, _ = newLogger()
	if res, err := c.Build(context.Background(), config.Functions{}, config.Existing{}); err == nil {
		res.Close()
		t.Fatal("an agent naming nothing was built")
	} else if ce, ok := err.(*config.Error); !ok || ce.Key != "interfaces.echohook_test.agent" || !strings.Contains(ce.Msg, `names no agent`) {
		t.Fatalf("build error %#v", err)
	}
}
