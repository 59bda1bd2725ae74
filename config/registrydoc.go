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
	b.WriteString("| toolkit | `[toolkits.<name>]` keys | in an agent file, with one of its keys at its default | what it is |\n|---|---|---|---|\n")
	for _, name := range tool.ToolkitNames() {
		t, _ := tool.LookupToolkit(name)
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, keyList(t.OptionsType()), toolkitExample(name, t), t.Summary)
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

// toolkitExample is the agent-file line naming a toolkit and its table
// with the first of its keys at its default value.
func toolkitExample(name string, t tool.RegisteredToolkit) string {
	s := fmt.Sprintf("`tools = [%q]`", name)
	opts := reflect.ValueOf(t.DefaultOptions(tool.ToolkitEnv{})).Elem()
	// A key set by default says most; a zero number may mean "the
	// built-in bound", so it is shown only when nothing else is there.
	for _, setOnly := range []bool{true, false} {
		for i := range opts.NumField() {
			f := opts.Type().Field(i)
			key, ok := f.Tag.Lookup("toml")
			key, _, _ = strings.Cut(key, ",")
			if !ok || key == "-" || !f.IsExported() || setOnly && opts.Field(i).IsZero() {
				continue
			}
			if v, ok := defaultValue(opts.Field(i)); ok {
				return s + fmt.Sprintf("<br>`[toolkits.%s]`<br>`%s = %s`", name, key, v)
			}
		}
	}
	return s
}

// defaultValue writes a default option value as TOML, for the scalar and
// string-list kinds options use; ok is false for other kinds.
func defaultValue(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.Bool:
		return fmt.Sprint(v.Bool()), true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return fmt.Sprint(v.Int()), true
	case reflect.Float64, reflect.Float32:
		return fmt.Sprint(v.Float()), true
	case reflect.String:
		if v.String() == "" {
			return `"…"`, true
		}
		return fmt.Sprintf("%q", v.String()), true
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			return "", false
		}
		items := make([]string, v.Len())
		for i := range items {
			items[i] = fmt.Sprintf("%q", v.Index(i).String())
		}
		return "[" + strings.Join(items, ", ") + "]", true
	}
	return "", false
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
