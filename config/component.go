package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/BurntSushi/toml"
)

// BuildComponent builds one agent, team or workflow from a component's
// config (AgentOS's /components): a JSON object with the keys of a
// declarative file of that kind, decoded and checked by the same code as
// the files of the sources directories, and built with r's models,
// toolkits, MCP servers, knowledge bases and store. References — team
// members, "agent:<id>" tools, workflow steps — resolve against served,
// the resources being served (code, files and other components).
//
// id is the component's id and the object's (a config's own "id" is
// ignored, as agno's). A "db" key is ignored too: the object uses r's
// store. A bad config is an error naming the key and the fix; it matches
// ErrInvalidConfig.
func (r *Resources) BuildComponent(ctx context.Context, kind Kind, id string, cfg map[string]any, served Existing) (any, error) {
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
	l := &loader{cfg: r.cfg, res: view, fn: r.fn, byID: map[Kind]map[string]*resFile{KindAgent: {}, KindTeam: {}, KindWorkflow: {}}}
	f := l.parseData(path, buf.Bytes(), kind)
	if f.err == nil {
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
	return f.obj, nil
}

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
