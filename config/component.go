package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/agent"
	"github.com/agno-go/agno/component"
	"github.com/agno-go/agno/team"
	"github.com/agno-go/agno/workflow"
)

// BuildComponent builds one agent, team or workflow from a component's
// config (AgentOS's /components): a JSON object with the keys of a
// declarative file of that kind, decoded and checked by the same code as
// the files of the sources directories, and built with r's models,
// toolkits, MCP servers, knowledge bases and store — only those
// [components] allows, since a component is a caller's and not the
// operator's (a refusal matches component.ErrNotAllowed). References — team
// members, "agent:<id>" tools, workflow steps — resolve against served,
// the resources being served (code, files and other components), and are
// reported in Uses.
//
// id is the component's id and the object's (a config's own "id" is
// ignored, as agno's). A "db" key is ignored too: the object uses r's
// store. A bad config is an error naming the key and the fix; it matches
// ErrInvalidConfig.
func (r *Resources) BuildComponent(ctx context.Context, kind Kind, id string, cfg map[string]any, served Existing) (*component.Built, error) {
	if r == nil || r.cfg == nil {
		return nil, errors.New("config: BuildComponent needs the Resources returned by Build")
	}
	if kind != KindAgent && kind != KindTeam && kind != KindWorkflow {
		return nil, fmt.Errorf("config: component kind %q: use agent, team or workflow", kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path := fmt.Sprintf("component %q", id)
	doc := map[string]any{}
	for k, v := range cfg {
		doc[k] = v
	}
	if k, ok := doc["kind"]; ok {
		if s, _ := k.(string); s != string(kind) {
			return nil, &Error{File: path, Key: "kind", Msg: fmt.Sprintf("kind = %v, but the component_type is %q: remove kind or make it %q", tomlValue(k), kind, kind)}
		}
	}
	delete(doc, "db")
	doc["id"] = id
	norm, err := tomlDoc(doc, "")
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(norm); err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("the config cannot be read as a %s: %v", kind, err)}
	}

	view := r.WithCatalog(nil, nil, nil)
	view.existing = served
	// The messages name config.toml by its base name: a component's
	// writer is a client, who has no business with the server's paths.
	shown := *r.cfg
	shown.Path = filepath.Base(r.cfg.Path)
	l := &loader{cfg: &shown, res: view, fn: r.fn, byID: map[Kind]map[string]*resFile{KindAgent: {}, KindTeam: {}, KindWorkflow: {}}}
	f := l.parseData(path, buf.Bytes(), kind)
	if f.err == nil {
		if err := l.componentRefusals(f); err != nil {
			return nil, notAllowed{unpositioned(err)}
		}
		l.resolveRefs(f)
	}
	if f.err == nil {
		f.obj, f.err = l.construct(f)
	}
	if f.err != nil {
		// Lines would point into the TOML made from the JSON: key paths
		// say where instead.
		return nil, unpositioned(f.err)
	}
	return &component.Built{Object: f.obj, Uses: componentUses(f)}, nil
}

// componentUses lists the served resources a built component file names.
func componentUses(f *resFile) []component.Use {
	var out []component.Use
	add := func(u component.Use) {
		if u.ID != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	for _, r := range f.refs {
		switch t := r.target().(type) {
		case *agent.Agent:
			add(component.Use{Kind: string(KindAgent), ID: t.ID()})
		case *team.Team:
			add(component.Use{Kind: string(KindTeam), ID: t.ID()})
		case *workflow.Workflow:
			add(component.Use{Kind: string(KindWorkflow), ID: t.ID()})
		}
	}
	switch {
	case f.agent != nil:
		add(component.Use{Kind: "knowledge", ID: f.agent.Knowledge})
	case f.team != nil:
		add(component.Use{Kind: "knowledge", ID: f.team.Knowledge})
	}
	return out
}

// notAllowed is a refusal of [components]: it matches
// component.ErrNotAllowed and the errors it wraps (ErrInvalidConfig).
type notAllowed struct{ err error }

func (e notAllowed) Error() string        { return e.err.Error() }
func (e notAllowed) Unwrap() error        { return e.err }
func (e notAllowed) Is(target error) bool { return target == component.ErrNotAllowed }

// tomlDoc turns a JSON value into one TOML can hold: JSON numbers that
// are whole become integers (the files' int keys), null map values are
// left out (an absent key), null in a list is refused.
func tomlDoc(v any, key string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if x[k] == nil {
				continue
			}
			sub := k
			if key != "" {
				sub = key + "." + k
			}
			n, err := tomlDoc(x[k], sub)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			sub := fmt.Sprintf("%s[%d]", key, i)
			if e == nil {
				return nil, fmt.Errorf("%s is null: remove it from the list", sub)
			}
			n, err := tomlDoc(e, sub)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%s = %s is not a number", key, x)
		}
		return tomlDoc(f, key)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), nil
		}
		return x, nil
	}
	return v, nil
}

// unpositioned drops line and column from the Errors in err.
func unpositioned(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unpositioned(e))
		}
		return errors.Join(out...)
	}
	if e, ok := err.(*Error); ok {
		c := *e
		c.Line, c.Column = 0, 0
		return &c
	}
	return err
}
