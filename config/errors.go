package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// ErrInvalidConfig is matched (errors.Is) by every problem found in
// config.toml or in a declarative resource file.
var ErrInvalidConfig = errors.New("invalid config")

// Error is one problem in a TOML file: where it is, which key, and what
// to do about it.
type Error struct {
	File string
	// Line and Column are 1-based; 0 when unknown.
	Line   int
	Column int
	// Key is the key path with array indices ("steps[1].on_reject");
	// empty for the file as a whole.
	Key string
	Msg string
}

func (e *Error) Error() string { return positioned(e.File, e.Line, e.Column, e.Msg) }

// positioned formats "file:line:column: msg", leaving out an unknown line
// or column.
func positioned(file string, line, column int, msg string) string {
	var b strings.Builder
	b.WriteString(file)
	if line > 0 {
		fmt.Fprintf(&b, ":%d", line)
		if column > 0 {
			fmt.Fprintf(&b, ":%d", column)
		}
	}
	b.WriteString(": ")
	b.WriteString(msg)
	return b.String()
}

// Unwrap makes every Error match ErrInvalidConfig.
func (e *Error) Unwrap() error { return ErrInvalidConfig }

// problems collects the errors of one file.
type problems struct {
	file string
	idx  *keyIndex
	errs []error
}

// at records a problem at an indexed key path ("" for the file).
func (p *problems) at(key, format string, a ...any) {
	e := &Error{File: p.file, Key: key, Msg: fmt.Sprintf(format, a...)}
	if pos, ok := p.idx.lookup(key); ok {
		e.Line, e.Column = pos.Line, pos.Col
	}
	p.errs = append(p.errs, e)
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// decodeStrict decodes a TOML document into v. A syntax or type error is
// fatal; keys v has no place for are returned as unknown, each naming the
// key path, its line and the keys allowed there, so the caller can go on
// validating and report everything at once.
func decodeStrict(file, src string, v any, idx *keyIndex) (md toml.MetaData, fatal, unknown error) {
	md, err := toml.Decode(src, v)
	if err != nil {
		return md, syntaxError(file, src, err), nil
	}
	return md, nil, unknownKeys(file, md, reflect.TypeOf(v), idx, nil)
}

// ownedKeys are keys of tables whose allowed keys a registry entry adds
// to (a provider's options in [models.<key>]): decoded says whether the
// entry took a key, allowed what it would take in a table.
type ownedKeys struct {
	decoded func(k toml.Key) bool
	allowed func(table []string) []string
	// locate places a key no reading took within a registry entry's
	// options (a table nested in them): the unknown key, what is allowed
	// there, whether it is a value; ok false leaves it to the config's
	// own types, unknown nil with ok skips it.
	locate func(k toml.Key) (unknown, allowed []string, isValue, ok bool)
}

func (o *ownedKeys) allowedIn(key []string, isValue bool) []string {
	if o == nil || isValue {
		return nil
	}
	return o.allowed(key[:len(key)-1])
}

// unknownKeys reports the keys md did not decode into t (nor owned took),
// each naming the key path, its line and the keys allowed there.
func unknownKeys(file string, md toml.MetaData, t reflect.Type, idx *keyIndex, owned *ownedKeys) error {
	p := &problems{file: file, idx: idx}
	seen := map[string]bool{}
	for _, k := range md.Undecoded() {
		if owned != nil && owned.decoded(k) {
			continue
		}
		if owned != nil && owned.locate != nil {
			if unknown, allowed, isValue, ok := owned.locate(k); ok {
				if unknown != nil {
					p.unknown(toPath(unknown), allowed, isValue, seen)
				}
				continue
			}
		}
		unknown, allowed, isValue := firstUnknown(t, k)
		if unknown == nil {
			continue // decoded by a custom unmarshaler
		}
		if extra := owned.allowedIn(unknown, isValue); len(extra) > 0 {
			allowed = append(allowed, extra...)
			slices.Sort(allowed)
			allowed = slices.Compact(allowed)
		}
		p.unknown(toPath(unknown), allowed, isValue, seen)
	}
	return p.err()
}

// unknown reports an unknown key at each place the file writes it (each
// table of an array of tables), once per key (seen).
func (p *problems) unknown(key keyPath, allowed []string, isValue bool, seen map[string]bool) {
	plain := key.plain()
	if seen[plain] {
		return
	}
	seen[plain] = true
	occ := p.idx.occurrences(plain)
	if len(occ) == 0 {
		occ = []keyPath{key}
	}
	for _, o := range occ {
		p.at(o.String(), "%s", unknownKeyMessage(o, allowed, isValue))
	}
}

func toPath(k []string) keyPath {
	p := make(keyPath, len(k))
	for i, s := range k {
		p[i] = pathElem{key: s}
	}
	return p
}

// syntaxError turns the TOML library's error into an Error with the line.
func syntaxError(file, src string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = fmt.Sprintf("key %q: %s", pe.LastKey, pe.Message)
		}
		line, col := syntaxPosition(src, pe)
		return &Error{File: file, Line: line, Column: col, Key: pe.LastKey, Msg: msg}
	}
	// Type mismatches come as plain errors: "toml: line 3 (last key
	// "agentos.port"): incompatible types: TOML value has type string;
	// destination has type integer".
	if m := typeErrRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := m[3]
		if t := incompatibleRE.FindStringSubmatch(msg); t != nil {
			msg = fmt.Sprintf("the value is of type %s; it must be of type %s", t[1], t[2])
		}
		return &Error{File: file, Line: line, Key: m[2], Msg: fmt.Sprintf("key %q: %s", m[2], msg)}
	}
	return &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// syntaxPosition is where the user has to look. The parser reports where
// it gave up, which for a construct left open (a table header without
// its "]", a string without its closing quotes, an array without "]") is
// a later line or the end of the file: point at the line the construct
// began on instead.
func syntaxPosition(src string, pe toml.ParseError) (line, col int) {
	line, col = pe.Position.Line, pe.Position.Col
	open := strings.Contains(pe.Message, "EOF") || strings.Contains(pe.Message, `'\n'`)
	if !open || src == "" {
		return line, col
	}
	lines := strings.Split(src, "\n")
	if line > len(lines) {
		line = len(lines)
	}
	begins := func(l string) bool {
		l = strings.TrimSpace(l)
		if strings.Contains(pe.Message, "table name") || strings.Contains(pe.Message, "table array name") {
			return strings.HasPrefix(l, "[")
		}
		if pe.LastKey == "" {
			return false
		}
		k := pe.LastKey[strings.LastIndexByte(pe.LastKey, '.')+1:]
		for _, q := range []string{k, `"` + k + `"`, "'" + k + "'"} {
			if rest, ok := strings.CutPrefix(l, q); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
				return true
			}
		}
		return false
	}
	for i := line; i >= 1; i-- {
		if begins(lines[i-1]) {
			if i != line {
				return i, 0
			}
			return line, col
		}
	}
	return line, col
}

var (
	typeErrRE      = regexp.MustCompile(`^toml: line (\d+) \(last key "((?:[^"\\]|\\.)*)"\): (.*)$`)
	incompatibleRE = regexp.MustCompile(`^incompatible types: TOML value has type (.+); destination has type (.+)$`)
)

// firstUnknown walks the Go type along key and returns the shortest prefix
// of key that has no field and the keys allowed beside it (isValue: the
// parent is a value, not a table). It returns nil when the whole key
// resolves (a free-form table).
func firstUnknown(t reflect.Type, key []string) (unknown []string, allowed []string, isValue bool) {
	custom := func(t reflect.Type) bool {
		return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
	}
	for i, k := range key {
		for !custom(t) && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			t = t.Elem()
		}
		switch {
		case custom(t), t.Kind() == reflect.Interface:
			return nil, nil, false // it decodes everything below itself (any: whatever the file holds)
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := fieldByTOMLName(t, k)
			if !ok {
				return key[:i+1], tomlNames(t), false
			}
			t = f.Type
		default:
			// A value where the document has a table.
			return key[:i+1], nil, true
		}
	}
	return nil, nil, false
}

var unmarshalerType = reflect.TypeFor[toml.Unmarshaler]()

func fieldByTOMLName(t reflect.Type, name string) (reflect.StructField, bool) {
	for _, f := range tomlFields(t) {
		if strings.EqualFold(tomlTag(f), name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tomlTag(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	return tag
}

// tomlFields lists a struct's keyed fields in order, those of an embedded
// struct (an AgentFile's agent.Config) included unless a field of the
// outer struct has the same key, as the TOML decoder resolves them.
func tomlFields(t reflect.Type) []reflect.StructField {
	var outer, inner []reflect.StructField
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("toml") == "" {
			inner = append(inner, tomlFields(f.Type)...)
			continue
		}
		if tag := tomlTag(f); tag != "" {
			outer = append(outer, f)
			seen[tag] = true
		}
	}
	for _, f := range inner {
		if !seen[tomlTag(f)] {
			outer = append(outer, f)
		}
	}
	return outer
}

func tomlNames(t reflect.Type) []string {
	var names []string
	for _, f := range tomlFields(t) {
		names = append(names, tomlTag(f))
	}
	return names
}

// keyHints are messages for keys people write by mistake.
var keyHints = map[string]string{
	"api_key": "secrets never go in a config file: export the key in an environment variable and name that variable with api_key_env",
	"dsn":     "the connection string holds a password, so it never goes in a config file: export it in an environment variable and name that variable with dsn_env",
	"token":   "secrets never go in a config file: export them in an environment variable",
	// agno's credential parameters: here each names its variable.
	"aws_access_key":        "secrets never go in a config file: export the key and name its variable with aws_access_key_env (aws-claude), or use AWS's default chain (AWS_ACCESS_KEY_ID)",
	"aws_secret_key":        "secrets never go in a config file: export the key and name its variable with aws_secret_key_env (aws-claude), or use AWS's default chain (AWS_SECRET_ACCESS_KEY)",
	"aws_access_key_id":     "secrets never go in a config file: export the key and name its variable with aws_access_key_id_env (aws-bedrock), or use AWS's default chain (AWS_ACCESS_KEY_ID)",
	"aws_secret_access_key": "secrets never go in a config file: export the key and name its variable with aws_secret_access_key_env (aws-bedrock), or use AWS's default chain (AWS_SECRET_ACCESS_KEY)",
	"aws_session_token":     "secrets never go in a config file: export the token and name its variable with aws_session_token_env",
	"azure_ad_token":        "secrets never go in a config file: export the Entra ID token as AZURE_OPENAI_AD_TOKEN, or name its variable with azure_ad_token_env",
}

func unknownKeyMessage(key keyPath, allowed []string, isValue bool) string {
	last := key[len(key)-1].key
	parent := key[:len(key)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "unknown key %q", key.String())
	if hint, ok := keyHints[last]; ok {
		fmt.Fprintf(&b, ": %s", hint)
	}
	if isValue {
		fmt.Fprintf(&b, "; %q is a value, not a table", parent.String())
		return b.String()
	}
	if best := closest(last, allowed); best != "" {
		fmt.Fprintf(&b, "; did you mean %q?", parent.with(best).String())
	}
	where := "at the top level"
	if len(parent) > 0 {
		where = "in " + parent.String()
	}
	fmt.Fprintf(&b, " (keys allowed %s: %s)", where, strings.Join(allowed, ", "))
	return b.String()
}

// closest returns the allowed name nearest to key, if near enough.
func closest(key string, allowed []string) string {
	best, bestDist := "", 1<<30
	for _, a := range allowed {
		if d := editDistance(strings.ToLower(key), a); d < bestDist {
			best, bestDist = a, d
		}
	}
	if best != "" && bestDist <= max(2, len(best)/3) {
		return best
	}
	return ""
}
