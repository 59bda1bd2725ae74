package config_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/run"
)

// A provider's own keys in [models.<key>] are decoded into its options
// and reach its client: OpenAI's organization and default_headers.
func TestProviderOptionsReachTheClient(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-chat"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
organization = "org-123"
default_headers = { X-Team = "blue" }
[storage]
driver = "memory"
`,
		"agents/plain.toml": "name = \"Plain\"\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	out, err := res.Agents[0].Run(context.Background(), "hello")
	if err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run: %v %v", err, out)
	}
	h := srv.Requests()[0].Header
	if h.Get("OpenAI-Organization") != "org-123" || h.Get("X-Team") != "blue" {
		t.Errorf("headers %v", h)
	}
}

// The common headers key reaches every provider's requests; openai's own
// default_headers wins where both name a header.
func TestModelHeadersReachTheClient(t *testing.T) {
	srv := fakeModel(t)
	t.Setenv(testKeyEnv, testKey)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml": `
[models.default]
provider = "openai-chat"
base_url = "` + srv.URL + `"
api_key_env = "` + testKeyEnv + `"
model = "fake-model"
headers = { X-Tenant = "acme", X-Team = "red" }
default_headers = { X-Team = "blue" }
[storage]
driver = "memory"
`,
		"agents/plain.toml": "name = \"Plain\"\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	if out, err := res.Agents[0].Run(context.Background(), "hello"); err != nil || out.Status != run.StatusCompleted {
		t.Fatalf("run: %v %v", err, out)
	}
	h := srv.Requests()[0].Header
	if h.Get("X-Tenant") != "acme" || h.Get("X-Team") != "blue" {
		t.Errorf("headers %v", h)
	}
}

func TestModelHeadersAreChecked(t *testing.T) {
	for _, tt := range []struct{ header, want string }{
		{`"Bad Name" = "x"`, `"Bad Name" is not a header name`},
		{`X-Ok = "a\nb"`, "models.m.headers.X-Ok holds a control character"},
	} {
		errs := configErrors(t, parse(t, "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\nheaders = { "+tt.header+" }\n"))
		if e := findError(t, errs, tt.want); e.Line != 4 {
			t.Errorf("%s: line %d, want 4", tt.header, e.Line)
		}
	}
}

func TestProviderOptionsAreStrict(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		parts     []string
	}{
		{"typo of a provider key", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\norganisation = \"o\"\n", 4,
			[]string{`unknown key "models.m.organisation"`, `did you mean "models.m.organization"?`, "default_headers", "temperature"}},
		{"another provider's key", "[models.m]\nprovider = \"anthropic\"\nmodel = \"x\"\norganization = \"o\"\n", 4,
			[]string{`unknown key "models.m.organization"`}},
		{"wrong type", "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\norganization = 5\n", 4,
			[]string{`models.m.organization`, "type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := configErrors(t, parse(t, tt.src))
			e := findError(t, errs, tt.parts...)
			if e.Line != tt.line {
				t.Errorf("line %d, want %d: %v", e.Line, tt.line, e)
			}
		})
	}
}

// echoOptions are the options of a provider a program registers.
type echoOptions struct {
	Prefix string `toml:"prefix"`
}

type echoModel struct {
	id, prefix string
}

func (e echoModel) Info() model.Info { return model.Info{ID: e.id, Provider: "Echo", Name: "Echo"} }

func (e echoModel) Generate(_ context.Context, req *model.Request) iter.Seq2[*model.Chunk, error] {
	return func(yield func(*model.Chunk, error) bool) {
		last := req.Messages[len(req.Messages)-1]
		yield(&model.Chunk{Content: e.prefix + last.Content, FinishReason: "stop"}, nil)
	}
}

// A program registers its own provider the way the built-ins do, and a
// config file names it with its own keys.
func TestProgramRegisteredProvider(t *testing.T) {
	model.RegisterProvider(model.Provider[echoOptions]{
		Name: "echo-test", Summary: "echoes the last message", KeyEnv: "AGNO_ECHO_TEST_KEY",
		New: func(s model.ProviderSettings, o *echoOptions) (model.Model, error) {
			if s.APIKey != "k" {
				return nil, errors.New("no key")
			}
			return echoModel{id: s.ID, prefix: o.Prefix}, nil
		},
	})
	t.Setenv("AGNO_ECHO_TEST_KEY", "k")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"config.toml":       "[models.default]\nprovider = \"echo-test\"\nmodel = \"e1\"\nprefix = \"> \"\n[storage]\ndriver = \"memory\"\n",
		"agents/plain.toml": "name = \"Plain\"\n",
	})
	_, res := build(t, dir, registryFunctions(), config.Existing{})
	out, err := res.Agents[0].Run(context.Background(), "hello")
	if err != nil || out.Status != run.StatusCompleted || out.ContentString() != "> hello" {
		t.Fatalf("run: %v %v %q", err, out.Status, out.ContentString())
	}
	if _, err := config.Parse("config.toml", []byte("[models.m]\nprovider = \"nope\"\nmodel = \"x\"\n")); err == nil || !strings.Contains(err.Error(), `"echo-test"`) {
		t.Errorf("an unknown provider's error lists the registered ones: %v", err)
	}
}

type keyOptionalOptions struct {
	Local bool `toml:"local"`
}

var registerKeyOptional sync.Once

// A provider that authenticates otherwise (model.Provider.KeyOptional:
// an Entra ID token, Google's default credentials, a local server) is
// built and used without its key variable, instead of being held back
// as a model waiting for its key.
func TestKeyOptionalProvider(t *testing.T) {
	registerKeyOptional.Do(func() {
		model.RegisterProvider(model.Provider[keyOptionalOptions]{
			Name: "keyoptional-test", KeyEnv: "AGNO_KEYOPTIONAL_TEST_KEY",
			KeyOptional: func(_ model.ProviderSettings, o *keyOptionalOptions) bool { return o.Local },
			New: func(s model.ProviderSettings, o *keyOptionalOptions) (model.Model, error) {
				if s.APIKey == "" && !o.Local {
					return nil, errors.New("no key")
				}
				return echoModel{id: s.ID, prefix: "local: "}, nil
			},
		})
	})
	t.Setenv("AGNO_KEYOPTIONAL_TEST_KEY", "")
	for _, local := range []bool{true, false} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"config.toml":       fmt.Sprintf("[models.default]\nprovider = \"keyoptional-test\"\nmodel = \"m\"\nlocal = %v\n[storage]\ndriver = \"memory\"\n", local),
			"agents/plain.toml": "name = \"Plain\"\n",
		})
		_, res := build(t, dir, registryFunctions(), config.Existing{})
		out, err := res.Agents[0].Run(context.Background(), "hi")
		if local && (err != nil || out.ContentString() != "local: hi") {
			t.Fatalf("local: %v %q", err, out.ContentString())
		}
		if !local && (err != nil || out.Status != run.StatusError || !strings.Contains(out.ContentString(), "AGNO_KEYOPTIONAL_TEST_KEY")) {
			t.Fatalf("not local: the missing key is reported, got %v %s %q", err, out.Status, out.ContentString())
		}
	}
}

// agno's credential parameters are refused with the variable to use.
func TestCredentialKeysNameTheirVariables(t *testing.T) {
	for key, want := range map[string]string{
		"aws_access_key":    "aws_access_key_env",
		"aws_secret_key":    "aws_secret_key_env",
		"aws_session_token": "aws_session_token_env",
		"azure_ad_token":    "AZURE_OPENAI_AD_TOKEN",
	} {
		err := parse(t, "[models.m]\nprovider = \"openai\"\nmodel = \"x\"\n"+key+" = \"secret\"\n")
		if err == nil || !strings.Contains(err.Error(), "secrets never go in a config file") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", key, err)
		}
	}
}
