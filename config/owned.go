package config

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/knowledge/embedder"
	"github.com/agno-go/agno/model"
	"github.com/agno-go/agno/tool"
)

// ownedDoc is the second reading of a config file: the tables whose keys a
// registry entry owns, kept undecoded until the entry is known.
type ownedDoc struct {
	Models    map[string]toml.Primitive `toml:"models"`
	Knowledge map[string]struct {
		Embedder toml.Primitive `toml:"embedder"`
	} `toml:"knowledge"`
	Toolkits   map[string]toml.Primitive `toml:"toolkits"`
	Interfaces map[string]toml.Primitive `toml:"interfaces"`
}

// decodeOwnedTables decodes each [models.<key>] table's provider keys
// into the provider's options struct (ModelConfig.Options), strictly: a
// type error is a problem at its key, and a key neither ModelConfig nor
// the provider's options has stays unknown. It returns which keys it took
// and what each table allows, for the unknown-key report.
func (c *Config) decodeOwnedTables(src string, p *problems) *ownedKeys {
	var doc ownedDoc
	md, err := toml.Decode(src, &doc)
	if err != nil {
		return nil // the first reading reported it
	}
	optionTypes := map[string]reflect.Type{}
	for name, prim := range doc.Models {
		m, ok := c.Models[name]
		if !ok {
			continue
		}
		prov, ok := model.LookupProvider(m.Provider)
		if !ok {
			continue // validateModel names the provider
		}
		opts := prov.NewOptions()
		if err := md.PrimitiveDecode(prim, opts); err != nil {
			p.errs = append(p.errs, syntaxError(p.file, src, err))
			continue
		}
		optionTypes[name] = prov.OptionsType()
		if !reflect.ValueOf(opts).Elem().IsZero() {
			m.Options = opts // else nil: the provider's defaults
			c.Models[name] = m
		}
	}
	embedderTypes := c.decodeEmbedderOptions(src, md, doc, p)
	undecoded := map[string]bool{}
	for _, k := range md.Undecoded() {
		undecoded[k.String()] = true
	}
	c.decodeToolkits(src, md, doc.Toolkits, p)
	c.decodeInterfaces(src, md, doc.Interfaces, p)
	return &ownedKeys{
		decoded: func(k toml.Key) bool {
			if len(k) > 0 && (k[0] == "toolkits" || k[0] == "interfaces") {
				return true // decodeToolkits and decodeInterfaces report their own
			}
			if len(k) >= 4 && k[0] == "knowledge" && k[2] == "embedder" {
				return embedderTypes[k[1]] != nil && !undecoded[k.String()]
			}
			return len(k) >= 3 && k[0] == "models" && optionTypes[k[1]] != nil && !undecoded[k.String()]
		},
		allowed: func(table []string) []string {
			if len(table) == 2 && table[0] == "models" && optionTypes[table[1]] != nil {
				return tomlNames(optionTypes[table[1]])
			}
			return nil
		},
		locate: func(k toml.Key) ([]string, []string, bool, bool) {
			if len(k) < 4 || k[0] != "knowledge" || k[2] != "embedder" || embedderTypes[k[1]] == nil {
				return nil, nil, false, false
			}
			common := reflect.TypeFor[KnowledgeEmbedderConfig]()
			if _, ok := fieldByTOMLName(common, k[3]); ok {
				return nil, nil, false, false
			}
			rel, allowed, isValue := firstUnknown(embedderTypes[k[1]], k[3:])
			if rel == nil {
				return nil, nil, false, true // decoded below an any or a custom unmarshaler
			}
			if len(rel) == 1 {
				allowed = append(tomlNames(common), allowed...)
				slices.Sort(allowed)
			}
			return append(slices.Clone(k[:3]), rel...), allowed, isValue, true
		},
	}
}

// decodeEmbedderOptions decodes each [knowledge.<name>.embedder] table's
// provider keys into the provider's options struct
// (KnowledgeEmbedderConfig.Options), as decodeOwnedTables does for
// models, and returns each table's options type.
func (c *Config) decodeEmbedderOptions(src string, md toml.MetaData, doc ownedDoc, p *problems) map[string]reflect.Type {
	types := map[string]reflect.Type{}
	for name, k := range doc.Knowledge {
		kc, ok := c.Knowledge[name]
		if !ok || !md.IsDefined("knowledge", name, "embedder") {
			continue
		}
		prov, ok := embedder.Lookup(cmp.Or(kc.Embedder.Provider, EmbedderBuiltin))
		if !ok {
			continue // validateEmbedder names the provider
		}
		// Known even when a value has the wrong type, so that its key is
		// reported once, for the type.
		types[name] = prov.OptionsType()
		opts := prov.NewOptions()
		if err := md.PrimitiveDecode(k.Embedder, opts); err != nil {
			p.errs = append(p.errs, syntaxError(p.file, src, err))
			continue
		}
		if !reflect.ValueOf(opts).Elem().IsZero() {
			kc.Embedder.Options = opts // else nil: the provider's defaults
			c.Knowledge[name] = kc
		}
	}
	return types
}

// isToolkit reports whether name is a registered toolkit.
func isToolkit(name string) bool {
	_, ok := tool.LookupToolkit(name)
	return ok
}

// decodeToolkits fills c.Toolkits: every registered toolkit's options,
// its defaults overlaid with its [toolkits.<name>] table, checked by the
// toolkit. A table naming no toolkit, a key the toolkit's options lack
// and each problem the toolkit finds are reported at their keys.
func (c *Config) decodeToolkits(src string, md toml.MetaData, tables map[string]toml.Primitive, p *problems) {
	env := c.toolkitEnv(nil)
	c.Toolkits = ToolkitsConfig{}
	c.toolkitTables = map[string]bool{}
	c.toolSelections = map[string]tool.ToolSelection{}
	for _, name := range sortedKeys(tables) {
		tk, ok := tool.LookupToolkit(name)
		if !ok {
			key := toPath([]string{"toolkits", name})
			p.at(key.String(), "%s", unknownKeyMessage(key, tool.ToolkitNames(), false))
			continue
		}
		opts := tk.DefaultOptions(env)
		if err := md.PrimitiveDecode(tables[name], opts); err != nil {
			p.errs = append(p.errs, syntaxError(p.file, src, err))
			continue
		}
		c.toolkitTables[name] = true
		var sel tool.ToolSelection
		if err := md.PrimitiveDecode(tables[name], &sel); err != nil {
			p.errs = append(p.errs, syntaxError(p.file, src, err))
			continue
		}
		checkToolSelection(p, name, sel)
		if !sel.IsZero() {
			c.toolSelections[name] = sel
		}
		defined := func(key string) bool {
			return md.IsDefined(append([]string{"toolkits", name}, strings.Split(key, ".")...)...)
		}
		reportToolkitProblems(p, name, tk.Check(env, opts, defined))
		c.Toolkits[name] = opts
	}
	seen := map[string]bool{}
	for _, k := range md.Undecoded() {
		if len(k) < 3 || k[0] != "toolkits" || !c.toolkitTables[k[1]] {
			continue
		}
		tk, _ := tool.LookupToolkit(k[1])
		rel, allowed, isValue := firstUnknown(tk.OptionsType(), k[2:])
		if rel == nil {
			continue
		}
		if len(rel) == 1 {
			allowed = append(tomlNames(reflect.TypeFor[tool.ToolSelection]()), allowed...)
			slices.Sort(allowed)
		}
		key := toPath(append([]string{"toolkits", k[1]}, rel...))
		if !seen[key.String()] {
			seen[key.String()] = true
			p.at(key.String(), "%s", unknownKeyMessage(key, allowed, isValue))
		}
	}
	for _, name := range tool.ToolkitNames() {
		if _, ok := c.Toolkits[name]; ok || c.toolkitTables[name] {
			continue
		}
		tk, _ := tool.LookupToolkit(name)
		opts := tk.DefaultOptions(env)
		reportToolkitProblems(p, name, tk.Check(env, opts, nil))
		c.Toolkits[name] = opts
	}
}

// checkToolSelection reports an empty or repeated name in a toolkit's
// include_tools or exclude_tools; names the toolkit lacks are reported
// when it is built, since only then are its functions known.
func checkToolSelection(p *problems, name string, sel tool.ToolSelection) {
	table := toPath([]string{"toolkits", name}).String()
	for field, list := range map[string][]string{"include_tools": sel.IncludeTools, "exclude_tools": sel.ExcludeTools} {
		for i, n := range list {
			if strings.TrimSpace(n) == "" {
				p.at(fmt.Sprintf("%s.%s[%d]", table, field, i), "%s.%s[%d] is empty: name a function of the toolkit", table, field, i)
			}
		}
	}
}

// reportToolkitProblems puts the table's name before each problem the
// toolkit found, so it reads like every other config problem.
func reportToolkitProblems(p *problems, name string, err error) {
	table := toPath([]string{"toolkits", name}).String()
	for _, oe := range tool.OptionErrors(err) {
		if oe.Key == "" {
			p.at(table, "%s: %s", table, oe.Msg)
			continue
		}
		p.at(table+"."+oe.Key, "%s.%s", table, oe.Msg)
	}
}
