package tooltest

import (
	"reflect"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agno-go/agno/tool"
)

// decodeOptions reads a [toolkits.<name>] table the way a config does:
// over the defaults, strictly (a key the options lack is a problem at that
// key), then through the toolkit's Check. err is a table that is not TOML
// or does not fit the options' types.
func decodeOptions(tk tool.RegisteredToolkit, env tool.ToolkitEnv, table string) (opts any, problems []*tool.OptionError, err error) {
	opts = tk.DefaultOptions(env)
	md, err := toml.Decode(table, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range md.Undecoded() {
		key := k.String()
		problems = append(problems, &tool.OptionError{Key: key, Msg: key + " is not an option of toolkit " + tk.Name})
	}
	defined := func(key string) bool { return md.IsDefined(strings.Split(key, ".")...) }
	problems = append(problems, tool.OptionErrors(tk.Check(env, opts, defined))...)
	return opts, problems, nil
}

// optionValue is an integer key's value in a table.
func optionValue(table, key string) (int64, bool) {
	var m map[string]any
	if _, err := toml.Decode(table, &m); err != nil {
		return 0, false
	}
	v, ok := m[key].(int64)
	return v, ok
}

var keyRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// untaggedFields lists the options fields, nested ones included, without
// a lower_snake_case toml tag: the decoder would match such a field by
// its Go name, a key no agno user writes.
func untaggedFields(t reflect.Type) []string {
	var out []string
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 8 {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "-" {
				continue
			}
			if !keyRE.MatchString(name) {
				out = append(out, path+f.Name)
			}
			walk(f.Type, path+f.Name+".", depth+1)
		}
	}
	walk(t, "", 0)
	return out
}
