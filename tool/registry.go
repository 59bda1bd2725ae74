package tool

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/agno-go/agno/internal/registry"
)

// ToolkitEnv is what a host (config, a program) gives a toolkit factory.
type ToolkitEnv struct {
	// Dir is the base of relative paths in the options: the config file's
	// directory.
	Dir string
	// Logger receives the toolkit's warnings.
	Logger *slog.Logger
	// HTTPClient is the guarded outbound client, for every fetch a model
	// or a caller can influence.
	HTTPClient *http.Client
	// Resolve finds a resource of the host for a toolkit that acts on one
	// (knowledge_tools, memory_tools, workflow_tools): kind is one of the
	// Resource constants, name its name there. A toolkit may call it when
	// a tool runs, not only in New: a host may load some resources (the
	// workflows) after building the toolkits. nil: the host has none.
	Resolve func(kind, name string) (any, error)
}

// Kinds of resource ToolkitEnv.Resolve finds.
const (
	// ResourceKnowledge is a knowledge base by its [knowledge.<name>]
	// name (a *knowledge.Knowledge).
	ResourceKnowledge = "knowledge"
	// ResourceWorkflow is a workflow by its id (a *workflow.Workflow).
	ResourceWorkflow = "workflow"
	// ResourceStore is the store keeping sessions and user memories (a
	// storage.Store); the name is "".
	ResourceStore = "store"
)

// ErrNoResolver is Resolve's absence: the host gives toolkits no resources.
var ErrNoResolver = errors.New("the host gives toolkits no resources (ToolkitEnv.Resolve is nil): build the toolkit through a config file, or set ToolkitEnv.Resolve")

// Lookup is env.Resolve(kind, name), or ErrNoResolver without one.
func (env ToolkitEnv) Lookup(kind, name string) (any, error) {
	if env.Resolve == nil {
		return nil, ErrNoResolver
	}
	return env.Resolve(kind, name)
}

// ToolkitSpec describes a built-in toolkit for RegisterToolkit. O is its
// options: the keys of [toolkits.<name>], decoded strictly into a *O
// that Defaults filled first (TOML tags name the keys).
type ToolkitSpec[O any] struct {
	// Name is agno's toolkit name, as agents list it in tools.
	Name string
	// Summary is one line for listings and docs.
	Summary string
	// Defaults are the options before the table is read; nil means O's
	// zero value.
	Defaults func(env ToolkitEnv) O
	// Check validates decoded options and resolves their relative paths
	// against env.Dir. It returns *OptionError values (errors.Join) so
	// every problem names its key. defined reports whether the table set
	// a key (to tell an explicit 0 from an absent one). nil: no checks.
	Check func(env ToolkitEnv, opts *O, defined func(key string) bool) error
	// New builds the toolkit; one instance serves every agent naming it.
	New func(env ToolkitEnv, opts *O) (Provider, error)
}

// OptionError is one problem in a toolkit's options.
type OptionError struct {
	// Key is the option's key in the toolkit's table ("timeout_seconds",
	// "env_allow_list[2]"); "" for the table as a whole.
	Key string
	// Msg says what is wrong and the fix. It starts with Key when Key is
	// set ("timeout_seconds = -1: use ..."), so a host can put the
	// table's name before it.
	Msg string
}

func (e *OptionError) Error() string { return e.Msg }

// OptionErrorf is an *OptionError with a formatted message.
func OptionErrorf(key, format string, a ...any) error {
	return &OptionError{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// RegisteredToolkit is a toolkit as the registry holds it, its options
// type erased so a host can handle any toolkit.
type RegisteredToolkit struct {
	Name    string
	Summary string

	optionsType reflect.Type
	defaults    func(ToolkitEnv) any
	check       func(ToolkitEnv, any, func(string) bool) error
	build       func(ToolkitEnv, any) (Provider, error)
}

// OptionsType is the toolkit's options struct type.
func (t RegisteredToolkit) OptionsType() reflect.Type { return t.optionsType }

// DefaultOptions returns a pointer to the toolkit's default options, for
// a decoder to fill.
func (t RegisteredToolkit) DefaultOptions(env ToolkitEnv) any { return t.defaults(env) }

// Check validates options DefaultOptions returned and a decoder filled.
func (t RegisteredToolkit) Check(env ToolkitEnv, opts any, defined func(key string) bool) error {
	if defined == nil {
		defined = func(string) bool { return false }
	}
	if err := t.typed(opts); err != nil {
		return err
	}
	return t.check(env, opts, defined)
}

// New builds the toolkit from checked options (nil: the defaults).
func (t RegisteredToolkit) New(env ToolkitEnv, opts any) (Provider, error) {
	if opts == nil {
		opts = t.defaults(env)
		if err := t.check(env, opts, func(string) bool { return false }); err != nil {
			return nil, err
		}
	}
	if err := t.typed(opts); err != nil {
		return nil, err
	}
	return t.build(env, opts)
}

func (t RegisteredToolkit) typed(opts any) error {
	if reflect.TypeOf(opts) != reflect.PointerTo(t.optionsType) {
		return fmt.Errorf("toolkit %q: options are %T, want *%s", t.Name, opts, t.optionsType)
	}
	return nil
}

var toolkits = registry.New[RegisteredToolkit]("toolkit")

var toolkitNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// RegisterToolkit adds a toolkit agents can name in tools. Built-in
// toolkits register themselves when their package is imported (package
// tool/toolkits imports them all); a program registers its own the same
// way. It panics on a bad or taken name or a nil New: mistakes of the
// program, not of its input.
func RegisterToolkit[O any](t ToolkitSpec[O]) {
	if !toolkitNameRE.MatchString(t.Name) {
		panic(fmt.Sprintf("tool: toolkit name %q: use lower-case letters, digits and _", t.Name))
	}
	if t.New == nil {
		panic(fmt.Sprintf("tool: toolkit %q has no New", t.Name))
	}
	typ := reflect.TypeFor[O]()
	if typ.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tool: toolkit %q options must be a struct, not %s", t.Name, typ))
	}
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("toml"), ",")
		if slices.Contains(selectionKeys, tag) {
			panic(fmt.Sprintf("tool: toolkit %q options declare %q: remove the field; the host applies include_tools and exclude_tools to every toolkit (ToolSelection)", t.Name, tag))
		}
	}
	defaults, check, build := t.Defaults, t.Check, t.New
	rt := RegisteredToolkit{
		Name: t.Name, Summary: t.Summary, optionsType: typ,
		defaults: func(env ToolkitEnv) any {
			o := new(O)
			if defaults != nil {
				*o = defaults(env)
			}
			return o
		},
		check: func(env ToolkitEnv, opts any, defined func(string) bool) error {
			if check == nil {
				return nil
			}
			return check(env, opts.(*O), defined)
		},
		build: func(env ToolkitEnv, opts any) (Provider, error) { return build(env, opts.(*O)) },
	}
	toolkits.Register(t.Name, rt)
}

// ToolSelection is agno's Toolkit(include_tools, exclude_tools), which
// every registered toolkit takes: a host reads it from the toolkit's
// table beside the toolkit's own options and applies it to what New
// built, so no toolkit declares the keys itself.
type ToolSelection struct {
	// IncludeTools keeps only these functions (nil: all; empty: none).
	IncludeTools []string `toml:"include_tools"`
	// ExcludeTools drops these functions.
	ExcludeTools []string `toml:"exclude_tools"`
}

// selectionKeys are ToolSelection's keys, which a toolkit's own options
// must not repeat.
var selectionKeys = []string{"include_tools", "exclude_tools"}

// IsZero reports whether s keeps every function.
func (s ToolSelection) IsZero() bool { return s.IncludeTools == nil && s.ExcludeTools == nil }

// Apply keeps the functions of the toolkit built as p that s selects.
// A name the toolkit lacks is an error naming it and the functions there
// are. p is returned unchanged when s selects everything.
func (s ToolSelection) Apply(p Provider) (Provider, error) {
	if s.IsZero() {
		return p, nil
	}
	tk, ok := p.(*Toolkit)
	if !ok {
		return nil, fmt.Errorf("include_tools and exclude_tools select the functions of a *tool.Toolkit, and this toolkit is a %T: remove the keys", p)
	}
	return tk.Select(s.IncludeTools, s.ExcludeTools)
}

// LookupToolkit returns the toolkit registered under name.
func LookupToolkit(name string) (RegisteredToolkit, bool) { return toolkits.Lookup(name) }

// ToolkitNames lists the registered toolkits, sorted.
func ToolkitNames() []string { return toolkits.Names() }

// OptionErrors returns the *OptionError values in err (an errors.Join
// tree); any other error becomes one for the table as a whole.
func OptionErrors(err error) []*OptionError {
	if err == nil {
		return nil
	}
	var oe *OptionError
	if errors.As(err, &oe) && oe == err {
		return []*OptionError{oe}
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*OptionError
		for _, e := range j.Unwrap() {
			out = append(out, OptionErrors(e)...)
		}
		return out
	}
	return []*OptionError{{Msg: err.Error()}}
}

var envVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckEnvName is the problem with an option naming an environment
// variable, or nil.
func CheckEnvName(key, name string) error {
	if envVarName.MatchString(name) {
		return nil
	}
	return OptionErrorf(key, "%s = %q is not an environment variable name: use letters, digits and _, not starting with a digit; it names the variable holding the value (export MY_KEY=<the secret>), never the value itself", key, name)
}

// ResolvePath makes an option's relative path absolute against base (the
// config file's directory); "" stays "".
func ResolvePath(base, p string) string {
	if p == "" || filepath.IsAbs(p) || base == "" {
		return p
	}
	return filepath.Join(base, p)
}
