package config_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/config"
	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/knowledge/embedder/cohere"
)

// embedderTestOptions are a test provider's own keys, one of them a
// nested table as a provider's request_params is.
type embedderTestOptions struct {
	InputType     string `toml:"input_type"`
	Truncate      *bool  `toml:"truncate"`
	RequestParams struct {
		OutputDimension int `toml:"output_dimension"`
	} `toml:"request_params"`
}

var embedderTestSeen = make(chan embedderTestOptions, 8)

func init() {
	embedder.Register("options-test", embedder.Provider[embedderTestOptions]{
		Summary: "test provider with options",
		New: func(o embedder.Options, x *embedderTestOptions) (embedder.Embedder, error) {
			if x.InputType == "bad" {
				return nil, errors.New(`input_type = "bad": use "search_query" or "search_document"`)
			}
			select {
			case embedderTestSeen <- *x:
			default:
			}
			return embedder.NewLexical(embedder.LexicalConfig{Dimensions: 16})
		},
	})
}

// [knowledge.<name>.embedder]'s keys beyond the common ones reach the
// provider's New as its options type.
func TestEmbedderOptionsDecoded(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.a.embedder]
provider = "options-test"
dimensions = 16
input_type = "search_document"
truncate = true
request_params = { output_dimension = 256 }

[knowledge.b.embedder]
provider = "options-test"
`})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := c.Knowledge["a"].Embedder.Options.(*embedderTestOptions)
	if !ok || a.InputType != "search_document" || a.Truncate == nil || !*a.Truncate || a.RequestParams.OutputDimension != 256 {
		t.Errorf("a's options: %#v", c.Knowledge["a"].Embedder.Options)
	}
	if c.Knowledge["a"].Embedder.Dimensions != 16 {
		t.Errorf("a's common keys: %+v", c.Knowledge["a"].Embedder)
	}
	if o := c.Knowledge["b"].Embedder.Options; o != nil {
		t.Errorf("b has no options of its own, got %#v", o)
	}
	// Validation built both with their options.
	got := map[string]bool{}
	for range 2 {
		select {
		case x := <-embedderTestSeen:
			got[x.InputType] = true
		default:
		}
	}
	if !got["search_document"] || !got[""] {
		t.Errorf("New saw %v", got)
	}
}

// A key neither the common keys nor the provider's options have is
// reported at its line with the nearest allowed key; a wrong type, and
// the provider's own refusal, name the key too.
func TestEmbedderOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.a.embedder]
provider = "options-test"
input_typ = "search_document"

[knowledge.b.embedder]
provider = "options-test"
request_params = { output_dimensions = 256 }

[knowledge.c.embedder]
provider = "options-test"
truncate = "yes"

[knowledge.d.embedder]
provider = "options-test"
input_type = "bad"

[knowledge.e.embedder]
provider = "openai"
input_type = "search_document"
`})
	_, err := config.Load(filepath.Join(dir, "config.toml"))
	errs := configErrors(t, err)
	for _, want := range [][]string{
		{`unknown key "knowledge.a.embedder.input_typ"`, `did you mean "knowledge.a.embedder.input_type"?`, "api_key_env", "request_params"},
		{`unknown key "knowledge.b.embedder.request_params.output_dimensions"`, `did you mean "knowledge.b.embedder.request_params.output_dimension"?`},
		{"truncate"},
		{"knowledge.d.embedder", `input_type = "bad"`, "search_query"},
		{`unknown key "knowledge.e.embedder.input_type"`, "keys allowed in knowledge.e.embedder", "user"},
	} {
		e := findError(t, errs, want...)
		if e.Line == 0 {
			t.Errorf("%s: no line", want[0])
		}
	}
	if len(errs) != 5 {
		var all []string
		for _, e := range errs {
			all = append(all, e.Error())
		}
		t.Errorf("%d errors, want 5:\n%s", len(errs), strings.Join(all, "\n"))
	}
}

// A built-in provider's own keys, nested request_params included, reach
// its options; a misspelt one is reported with the nearest.
func TestEmbedderProviderOptionsFromFile(t *testing.T) {
	t.Setenv(cohere.KeyEnv, "")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.docs.embedder]
provider = "cohere"
input_type = "search_document"
request_params = { truncate = "END", output_dimension = 512 }
model = "embed-v4.0"
`})
	c, err := config.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := c.Knowledge["docs"].Embedder.Options.(*cohere.Options)
	if !ok || o.InputType != "search_document" || o.RequestParams.Truncate != "END" || o.RequestParams.OutputDimension != 512 {
		t.Fatalf("options %#v", c.Knowledge["docs"].Embedder.Options)
	}

	writeFiles(t, dir, map[string]string{"config.toml": `
[knowledge.docs.embedder]
provider = "voyageai"
request_params = { input_typ = "document" }

[knowledge.faq.embedder]
provider = "cohere"
input_type = "query"
`})
	_, err = config.Load(filepath.Join(dir, "config.toml"))
	errs := configErrors(t, err)
	findError(t, errs, `unknown key "knowledge.docs.embedder.request_params.input_typ"`, `did you mean "knowledge.docs.embedder.request_params.input_type"?`)
	findError(t, errs, "knowledge.faq.embedder", `input_type = "query"`, `"search_document"`)
}
