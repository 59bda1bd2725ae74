package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agentos"
	"github.com/agno-go/agno/tool"
)

// InterfaceSpec describes an interface a [interfaces.<name>] table
// configures, for RegisterInterface. O is its options: the table's keys,
// decoded strictly into a *O that Defaults filled first (TOML tags name
// the keys).
type InterfaceSpec[O any] struct {
	// Name is the table's name: [interfaces.<Name>].
	Name string
	// Summary is one line for listings and docs.
	Summary string
	// Defaults are the options before the table is read; nil means O's
	// zero value.
	Defaults func() O
	// Check validates the decoded options at Load. table names the table
	// in messages ("interfaces.slack"); defined reports whether the table
	// set a key. It returns *tool.OptionError values (errors.Join): Key,
	// relative to the table ("" for the table), places each problem, Msg
	// is the whole message. nil: no checks.
	Check func(table string, opts *O, defined func(key string) bool) error
	// New builds the interface at Build from checked options, against the
	// agents, teams and workflows the files define and the program gave
	// (config.Existing); nil and no error: the table leaves it off
	// (enabled = false). A *tool.OptionError places its problem at a key
	// of the table; another error is about the table as a whole.
	New func(table string, opts *O, served agentos.Catalog) (agentos.Interface, error)
}

// registeredInterface is an InterfaceSpec, its options type erased.
type registeredInterface interface {
	name() string
	summary() string
	optionsType() reflect.Type
	defaults() any
	check(table string, opts any, defined func(string) bool) error
	build(table string, opts any, served agentos.Catalog) (agentos.Interface, error)
}

func (s InterfaceSpec[O]) name() string              { return s.Name }
func (s InterfaceSpec[O]) summary() string           { return s.Summary }
func (s InterfaceSpec[O]) optionsType() reflect.Type { return reflect.TypeFor[O]() }

func (s InterfaceSpec[O]) defaults() any {
	o := new(O)
	if s.Defaults != nil {
		*o = s.Defaults()
	}
	return o
}

func (s InterfaceSpec[O]) check(table string, opts any, defined func(string) bool) error {
	if s.Check == nil {
		return nil
	}
	return s.Check(table, opts.(*O), defined)
}

func (s InterfaceSpec[O]) build(table string, opts any, served agentos.Catalog) (agentos.Interface, error) {
	return s.New(table, opts.(*O), served)
}

// interfaces are the registered interfaces, in registration order.
var interfaces struct {
	sync.RWMutex
	list []registeredInterface
}

var interfaceNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// RegisterInterface adds an interface [interfaces.<name>] configures.
// The built-in ones (slack, mcp, a2a, agui) register themselves; a
// program registers its own the same way, before Load. Interfaces are
// built, served and listed in /config in registration order. It panics
// on a bad or taken name or a nil New: mistakes of the program, not of
// its input.
func RegisterInterface[O any](s InterfaceSpec[O]) {
	switch _, taken := lookupInterface(s.Name); {
	case !interfaceNameRE.MatchString(s.Name):
		panic(fmt.Sprintf("config: interface name %q: use lower-case letters, digits and _", s.Name))
	case taken:
		panic(fmt.Sprintf("config: interface %q registered twice", s.Name))
	case s.New == nil:
		panic(fmt.Sprintf("config: interface %q has no New", s.Name))
	case s.optionsType().Kind() != reflect.Struct:
		panic(fmt.Sprintf("config: interface %q options must be a struct, not %s", s.Name, s.optionsType()))
	}
	interfaces.Lock()
	defer interfaces.Unlock()
	interfaces.list = append(interfaces.list, s)
}

func lookupInterface(name string) (registeredInterface, bool) {
	interfaces.RLock()
	defer interfaces.RUnlock()
	i := slices.IndexFunc(interfaces.list, func(ri registeredInterface) bool { return ri.name() == name })
	if i < 0 {
		return nil, false
	}
	return interfaces.list[i], true
}

// InterfaceNames lists the registered interfaces in registration order.
func InterfaceNames() []string {
	interfaces.RLock()
	defer interfaces.RUnlock()
	names := make([]string, len(interfaces.list))
	for i, ri := range interfaces.list {
		names[i] = ri.name()
	}
	return names
}

// InterfacesConfig is [interfaces]: each configured interface's options
// by its name (InterfaceNames), a pointer to the interface's own options
// struct (*SlackConfig for "slack"), decoded strictly from
// [interfaces.<name>]. An interface without a table is off.
type InterfacesConfig map[string]any

// decodeInterfaces fills c.Interfaces: each [interfaces.<name>] table
// decoded into its interface's options over their defaults and checked
// by the interface. A table naming no interface, a key the options lack
// and each problem the interface finds are reported at their keys.
func (c *Config) decodeInterfaces(src string, md toml.MetaData, tables map[string]toml.Primitive, p *problems) {
	c.Interfaces = InterfacesConfig{}
	for _, name := range sortedKeys(tables) {
		ri, ok := lookupInterface(name)
		key := toPath([]string{"interfaces", name})
		if !ok {
			p.at(key.String(), "%s", unknownKeyMessage(key, InterfaceNames(), false))
			continue
		}
		opts := ri.defaults()
		if err := md.PrimitiveDecode(tables[name], opts); err != nil {
			p.errs = append(p.errs, syntaxError(p.file, src, err))
			continue
		}
		defined := func(k string) bool {
			return md.IsDefined(append([]string{"interfaces", name}, strings.Split(k, ".")...)...)
		}
		for _, oe := range tool.OptionErrors(ri.check(key.String(), opts, defined)) {
			p.at(interfaceKey(key.String(), oe.Key), "%s", oe.Msg)
		}
		c.Interfaces[name] = opts
	}
	seen := map[string]bool{}
	for _, k := range md.Undecoded() {
		if len(k) < 3 || k[0] != "interfaces" || c.Interfaces[k[1]] == nil {
			continue
		}
		ri, _ := lookupInterface(k[1])
		rel, allowed, isValue := firstUnknown(ri.optionsType(), k[2:])
		if rel == nil {
			continue
		}
		p.unknown(toPath(append([]string{"interfaces", k[1]}, rel...)), allowed, isValue, seen)
	}
}

// interfaceKey is the key of a problem at rel in table.
func interfaceKey(table, rel string) string {
	if rel == "" {
		return table
	}
	return table + "." + rel
}

// buildInterfaces builds the configured interfaces, in registration
// order, against the resources loaded and existing.
func (c *Config) buildInterfaces(r *Resources) ([]agentos.Interface, error) {
	served := agentos.Catalog{
		Agents:    slices.Concat(r.Agents, r.existing.Agents),
		Teams:     slices.Concat(r.Teams, r.existing.Teams),
		Workflows: slices.Concat(r.Workflows, r.existing.Workflows),
	}
	var out []agentos.Interface
	for _, name := range InterfaceNames() {
		opts, ok := c.Interfaces[name]
		if !ok {
			continue
		}
		ri, _ := lookupInterface(name)
		table := toPath([]string{"interfaces", name}).String()
		i, err := ri.build(table, opts, served)
		var oe *tool.OptionError
		switch {
		case errors.As(err, &oe):
			return nil, &Error{File: c.Path, Key: interfaceKey(table, oe.Key), Msg: oe.Msg}
		case err != nil:
			return nil, fmt.Errorf("config: %s: %s: %w", c.Path, table, err)
		case i != nil:
			out = append(out, i)
		}
	}
	return out, nil
}

// servedIDs are the ids of kind ("agent", "team" or "workflow") served.
func servedIDs(served agentos.Catalog, kind string) []string {
	var ids []string
	switch kind {
	case "agent":
		for _, a := range served.Agents {
			ids = append(ids, a.ID())
		}
	case "team":
		for _, t := range served.Teams {
			ids = append(ids, t.ID())
		}
	default:
		for _, w := range served.Workflows {
			ids = append(ids, w.ID())
		}
	}
	return ids
}
