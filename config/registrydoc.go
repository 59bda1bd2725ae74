package config

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/storage/driver"
	"github.com/agno-go/agno/tool"
)

// RegistryTables renders the registered model providers, embedder
// providers, toolkits, interfaces and storage drivers with their keys as the Markdown tables of config/README.md,
// so the README says what this build accepts.
func RegistryTables() string {
	var b strings.Builder
	b.WriteString("| provider | API key variable | `[models.<key>]` keys of its own | a `[models.<key>]` table | in an agent file | what it is |\n|---|---|---|---|---|---|\n")
	for _, name := range model.ProviderNames() {
		p, _ := model.LookupProvider(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", name, orDash(p.KeyEnv, "`%s`"), keyList(p.OptionsType()), tableExample(p), stringExample(p), p.Summary)
	}
	b.WriteString("\nEvery `[models.<key>]` table also takes the common keys: " + strings.Join(codeAll(tomlNames(reflect.TypeFor[ModelConfig]())), ", ") + ".\n\n")
	b.WriteString("| embedder provider | API key variable | default model | `[knowledge.<name>.embedder]` keys of its own | what it is |\n|---|---|---|---|---|\n")
	for _, name := range embedder.Names() {
		p, _ := embedder.Lookup(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", name, orDash(p.KeyEnv, "`%s`"), orDash(p.DefaultModel, "`%s`"), keyList(p.OptionsType()), p.Summary)
	}
	b.WriteString("\nEvery `[knowledge.<name>.embedder]` table also takes the common keys: " + strings.Join(codeAll(tomlNames(reflect.TypeFor[KnowledgeEmbedderConfig]())), ", ") + " (the builtin provider only dimensions). Names are agno's model-string provider names, or agno's embedder module where agno has no model of the vendor (jina, voyageai); each row names agno's embedder class.\n\n")
	b.WriteString("| toolkit | `[toolkits.<name>]` keys | what it is |\n|---|---|---|\n")
	for _, name := range tool.ToolkitNames() {
		t, _ := tool.LookupToolkit(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, keyList(t.OptionsType()), t.Summary)
	}
	b.WriteString("\nEvery `[toolkits.<name>]` table also takes " + strings.Join(codeAll(tomlNames(reflect.TypeFor[tool.ToolSelection]())), " and ") + " (agno's Toolkit arguments): the function names to keep, or to drop; a name the toolkit lacks is an error naming it and the toolkit's functions.\n")
	b.WriteString("\n| interface | `[interfaces.<name>]` keys | what it is |\n|---|---|---|\n")
	for _, name := range InterfaceNames() {
		i, _ := lookupInterface(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, keyList(i.optionsType()), i.summary())
	}
	b.WriteString("\n| storage driver | `[storage]` keys of its own | notes |\n|---|---|---|\n")
	for _, name := range driver.Names() {
		d, _ := driver.Lookup(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, orDash(strings.Join(codeAll(d.Keys), ", "), "%s"), orDash(d.Choice, "%s"))
	}
	return b.String()
}

// tableExample is the smallest [models.<key>] table naming p.
func tableExample(p model.RegisteredProvider) string {
	id := p.DefaultModel
	if id == "" {
		id = "<model id>"
	}
	s := fmt.Sprintf("`provider = %q`<br>`model = %q`", p.Name, id)
	if p.RequiresBaseURL {
		s += "<br>`base_url = \"http://…\"`"
	}
	return s
}

// stringExample is agno's "<provider>:<model id>" naming p, where a
// string alone can (a provider without an endpoint of its own cannot).
func stringExample(p model.RegisteredProvider) string {
	if p.RequiresBaseURL {
		return "—"
	}
	return fmt.Sprintf("`model = \"%s:%s\"`", p.Name, cmp.Or(p.DefaultModel, "<model id>"))
}

func keyList(t reflect.Type) string {
	return orDash(strings.Join(codeAll(tomlNames(t)), ", "), "%s")
}

func codeAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}

func orDash(s, format string) string {
	if s == "" {
		return "—"
	}
	return fmt.Sprintf(format, s)
}
