package tooltest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agno-go/agno/tool"
)

// Run runs every check against the toolkit h describes, each as a subtest
// that fails on leaked goroutines.
func Run(t *testing.T, h Harness) {
	t.Helper()
	tk, ok := tool.LookupToolkit(h.Toolkit)
	if !ok {
		t.Fatalf("toolkit %q is not registered (registered: %s): import its package", h.Toolkit, strings.Join(tool.ToolkitNames(), ", "))
	}
	if err := h.validate(); err != nil {
		t.Fatalf("tooltest: %v", err)
	}
	s := &suite{h: h, tk: tk}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			// Registered first so it runs last: after the cleanups of
			// the check and of Setup (a fake server's Close).
			t.Cleanup(func() {
				if !t.Failed() {
					goleak.VerifyNone(t, ignore)
				}
			})
			c.run(t, s)
		})
	}
}

// checks are the suite, in the order it runs them.
var checks = []struct {
	name string
	run  func(t *testing.T, s *suite)
}{
	{"Schemas", checkSchemas},
	{"Arguments", checkArguments},
	{"Failures", checkFailures},
	{"SizeBound", checkSizeBound},
	{"Options", checkOptions},
}

type suite struct {
	h  Harness
	tk tool.RegisteredToolkit
}

// validate catches a harness that would make checks pass vacuously.
func (h Harness) validate() error {
	var errs []error
	if h.Name == "" {
		errs = append(errs, errors.New("Harness.Name is empty: give agno's name of the toolkit (\"shell_tools\")"))
	}
	if len(h.Functions) == 0 {
		errs = append(errs, errors.New("Harness.Functions is empty: list agno's functions of the toolkit"))
	}
	seen := map[string]bool{}
	for _, f := range h.Functions {
		if f.Name == "" || seen[f.Name] {
			errs = append(errs, fmt.Errorf("Harness.Functions: function name %q is empty or repeated", f.Name))
		}
		seen[f.Name] = true
	}
	for k, why := range h.Deviations {
		if strings.TrimSpace(why) == "" {
			errs = append(errs, fmt.Errorf("Harness.Deviations[%q] gives no reason", k))
		}
	}
	switch {
	case h.Oversized == nil && h.Unbounded == "":
		errs = append(errs, errors.New("Harness.Oversized is nil: give a call producing more than the toolkit's output bound, or say in Unbounded why there is none"))
	case h.Oversized != nil && h.Unbounded != "":
		errs = append(errs, errors.New("Harness.Oversized and Unbounded are both set"))
	case h.Oversized != nil && (h.Oversized.Limit <= 0 || h.Oversized.Option == "" || h.Oversized.Function == ""):
		errs = append(errs, errors.New("Harness.Oversized needs Function, Option and a positive Limit"))
	}
	for i, b := range h.BadOptions {
		if b.Key == "" {
			errs = append(errs, fmt.Errorf("Harness.BadOptions[%d] names no Key", i))
		}
	}
	return errors.Join(errs...)
}

// built is the toolkit as the check's Setup configured it.
type built struct {
	provider tool.Provider
	fns      []*tool.Function
	table    string
}

// build runs Setup and builds the toolkit through the registry, as a
// config does: defaults, the table decoded strictly over them, Check,
// New.
func (s *suite) build(t *testing.T) built {
	t.Helper()
	env := tool.ToolkitEnv{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	table := ""
	if s.h.Setup != nil {
		table = s.h.Setup(t, &env)
	}
	opts, problems, err := decodeOptions(s.tk, env, table)
	if err != nil {
		t.Fatalf("the options Setup returned do not decode: %v\n%s", err, table)
	}
	for _, p := range problems {
		t.Errorf("the options Setup returned are refused: %s (key %q)", p.Msg, p.Key)
	}
	if t.Failed() {
		t.FailNow()
	}
	p, err := s.tk.New(env, opts)
	if err != nil {
		t.Fatalf("%s: New: %v", s.h.Toolkit, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	if c, ok := p.(tool.Connector); ok {
		if err := c.Connect(ctx); err != nil {
			t.Fatalf("%s: Connect: %v", s.h.Toolkit, err)
		}
		t.Cleanup(func() { _ = c.Close() })
	}
	fns, err := p.Functions(ctx)
	if err != nil {
		t.Fatalf("%s: Functions: %v", s.h.Toolkit, err)
	}
	if len(fns) == 0 {
		t.Fatalf("%s has no functions", s.h.Toolkit)
	}
	return built{provider: p, fns: fns, table: table}
}

// outcome is a call as the model sees it.
type outcome struct {
	// text is the tool message's content.
	text string
	// undecoded reports that the arguments were not decoded: text is
	// agno's decoding error and the tool did not run.
	undecoded bool
	// err is the tool's error (text is its Error()), nil for a result.
	err error
}

func (o outcome) validation() *tool.ValidationError {
	var ve *tool.ValidationError
	if errors.As(o.err, &ve) {
		return ve
	}
	return nil
}

// call makes one tool call the way an agent's loop does: the arguments
// text decoded, then InvokeArgs; an error's text is what the model gets.
// A panic fails the check: the loop ends the run ERROR for one.
func call(t *testing.T, f *tool.Function, raw string) outcome {
	t.Helper()
	args := f.DecodeArguments(raw)
	if args.Error != "" {
		return outcome{text: args.Error, undecoded: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	res, err := f.InvokeArgs(ctx, &tool.Call{Function: f, ToolCallID: "tooltest"}, args)
	var pe *tool.PanicError
	if errors.As(err, &pe) {
		t.Fatalf("%s(%s) panicked: %v", f.Name, raw, pe.Value)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s(%s) did not finish within %s", f.Name, raw, CallTimeout)
	}
	if err != nil {
		return outcome{text: err.Error(), err: err}
	}
	return outcome{text: res.Content}
}

func find(fns []*tool.Function, name string) *tool.Function {
	for _, f := range fns {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func names(fns []*tool.Function) []string {
	out := make([]string, len(fns))
	for i, f := range fns {
		out[i] = f.Name
	}
	return out
}

// checkSchemas compares the names with agno's and what the model sees
// with the golden file.
func checkSchemas(t *testing.T, s *suite) {
	b := s.build(t)
	named, ok := b.provider.(interface{ Name() string })
	switch {
	case !ok:
		t.Errorf("%T has no Name() method: the toolkit must report agno's name %q", b.provider, s.h.Name)
	case named.Name() != s.h.Name:
		t.Errorf("toolkit name %q, agno's is %q", named.Name(), s.h.Name)
	}
	got := map[string][]string{}
	for _, f := range b.fns {
		ps, err := parseParams(f.Parameters)
		if err != nil {
			t.Fatalf("%s: parameters: %v", f.Name, err)
		}
		got[f.Name] = ps.names
	}
	compareNames(t, s.h, names(b.fns), got)
	compareGolden(t, s.h, b)
}

// compareNames reports every difference from agno's names that the
// harness does not declare, every declared one that is not there, and
// any difference in order among the names both sides have.
func compareNames(t *testing.T, h Harness, order []string, args map[string][]string) {
	t.Helper()
	want := map[string][]string{}
	var wantOrder []string
	for _, f := range h.Functions {
		want[f.Name] = f.Args
		wantOrder = append(wantOrder, f.Name)
	}
	diffs := map[string]string{}
	for _, n := range wantOrder {
		if _, ok := args[n]; !ok {
			diffs[n] = "agno has function " + n + ", the toolkit does not"
		}
	}
	for _, n := range order {
		if _, ok := want[n]; !ok {
			diffs[n] = "the toolkit has function " + n + ", agno does not"
		}
	}
	for _, n := range wantOrder {
		gotArgs, ok := args[n]
		if !ok {
			continue
		}
		for _, a := range want[n] {
			if !slices.Contains(gotArgs, a) {
				diffs[n+"("+a+")"] = fmt.Sprintf("agno's %s has parameter %q, the toolkit's does not", n, a)
			}
		}
		for _, a := range gotArgs {
			if !slices.Contains(want[n], a) {
				diffs[n+"("+a+")"] = fmt.Sprintf("the toolkit's %s has parameter %q, agno's does not", n, a)
			}
		}
		common := func(l, other []string) []string {
			return slices.DeleteFunc(slices.Clone(l), func(a string) bool { return !slices.Contains(other, a) })
		}
		if w, g := common(want[n], gotArgs), common(gotArgs, want[n]); !slices.Equal(w, g) {
			t.Errorf("%s's parameters are in the order %q, agno's in %q", n, g, w)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(diffs)) {
		if _, ok := h.Deviations[k]; !ok {
			t.Errorf("%s: make the toolkit match agno, or declare Deviations[%q] with the reason", diffs[k], k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h.Deviations)) {
		if _, ok := diffs[k]; !ok {
			t.Errorf("Deviations[%q] is not a difference from agno (any more): remove it", k)
		}
	}
	common := func(l []string, other map[string][]string) []string {
		var out []string
		for _, n := range l {
			if _, ok := other[n]; ok {
				out = append(out, n)
			}
		}
		return out
	}
	if w, g := common(wantOrder, args), common(order, want); !slices.Equal(w, g) {
		t.Errorf("functions are in the order %q, agno's in %q", g, w)
	}
}

// checkArguments makes, for each function, calls whose arguments are
// malformed, miss a required parameter or give one of the wrong type:
// each must come back to the model as an error, the tool not run.
func checkArguments(t *testing.T, s *suite) {
	b := s.build(t)
	for _, f := range b.fns {
		ps, err := parseParams(f.Parameters)
		if err != nil {
			t.Fatalf("%s: parameters: %v", f.Name, err)
		}
		first := "x"
		if len(ps.names) > 0 {
			first = ps.names[0]
		}
		for _, raw := range []string{`{"` + first + `": `, `{"` + first + `": "unterminated}`} {
			if o := call(t, f, raw); !o.undecoded || !strings.HasPrefix(o.text, "Error while decoding function arguments") {
				t.Errorf("%s(%s): malformed JSON gave %q (error %v), want agno's decoding error", f.Name, raw, o.text, o.err)
			}
		}
		if o := call(t, f, `["tooltest"]`); !o.undecoded || !strings.Contains(o.text, "not a valid JSON object") {
			t.Errorf("%s: an array of arguments gave %q (error %v), want agno's not-an-object error", f.Name, o.text, o.err)
		}

		if f.Strict {
			t.Logf("%s is strict: required parameters are not enforced (agno's strict schemas list every parameter)", f.Name)
		} else {
			for _, p := range ps.required {
				args := ps.sample(func(n string) bool { return n != p }, nil)
				o := call(t, f, args)
				if !reported(o, p, "missing_argument") {
					t.Errorf("%s(%s), without the required %q: got %q (error %T), want a validation error naming it", f.Name, args, p, o.text, o.err)
				}
			}
		}
		for _, p := range ps.names {
			wrong, ok := ps.wrongValue(p)
			if !ok {
				t.Logf("%s: %q admits values of every kind; no wrong type to try", f.Name, p)
				continue
			}
			args := ps.sample(func(string) bool { return true }, map[string]any{p: wrong})
			o := call(t, f, args)
			if !reported(o, p, "") {
				t.Errorf("%s(%s), %q of the wrong type: got %q (error %T), want a validation error naming it", f.Name, args, p, o.text, o.err)
			}
		}
	}
}

// reported reports whether o is a validation error about parameter p (of
// the given pydantic error type, when not "").
func reported(o outcome, p, typ string) bool {
	ve := o.validation()
	if ve == nil {
		return false
	}
	for _, a := range ve.Errors {
		if (a.Loc == p || strings.HasPrefix(a.Loc, p+".")) && (typ == "" || a.Type == typ) {
			return true
		}
	}
	return false
}

// checkFailures makes the harness's failing calls: each must run (its
// arguments valid) and fail inside the tool with the expected text.
func checkFailures(t *testing.T, s *suite) {
	b := s.build(t)
	for _, name := range slices.Sorted(maps.Keys(s.h.Failures)) {
		if find(b.fns, name) == nil {
			t.Errorf("Harness.Failures names %q, which the toolkit does not have (it has %q)", name, names(b.fns))
		}
	}
	for _, f := range b.fns {
		calls := s.h.Failures[f.Name]
		if len(calls) == 0 {
			t.Errorf("Harness.Failures has no call for %s: give one whose arguments are valid and that fails inside the tool", f.Name)
		}
		for _, c := range calls {
			o := call(t, f, c.Args)
			switch {
			case o.undecoded:
				t.Errorf("%s(%s): the arguments do not decode (%s): a failure must come from inside the tool", f.Name, c.Args, o.text)
			case o.validation() != nil:
				t.Errorf("%s(%s): the arguments fail validation (%s): a failure must come from inside the tool", f.Name, c.Args, o.text)
			case c.Want == "":
				t.Errorf("%s(%s): Call.Want is empty; the model saw %q", f.Name, c.Args, o.text)
			case !strings.Contains(o.text, c.Want):
				t.Errorf("%s(%s): the model sees %q, want it to contain %q", f.Name, c.Args, o.text, c.Want)
			}
		}
	}
}

// checkSizeBound makes the oversized call: what the model sees must stay
// within the bound, plus TruncationAllowance.
func checkSizeBound(t *testing.T, s *suite) {
	o := s.h.Oversized
	if o == nil {
		t.Skipf("%s has no output bound: %s", s.h.Toolkit, s.h.Unbounded)
	}
	b := s.build(t)
	if v, ok := optionValue(b.table, o.Option); !ok || v != int64(o.Limit) {
		t.Fatalf("the table Setup returns must set %s = %d (the bound this check holds the result to); it has %v", o.Option, o.Limit, v)
	}
	f := find(b.fns, o.Function)
	if f == nil {
		t.Fatalf("Harness.Oversized names %q, which the toolkit does not have (it has %q)", o.Function, names(b.fns))
	}
	out := call(t, f, o.Call.Args)
	if out.undecoded || out.validation() != nil {
		t.Fatalf("%s(%s): the arguments are refused (%s): the call must run", f.Name, o.Call.Args, out.text)
	}
	if most := o.Limit + TruncationAllowance; len(out.text) > most {
		t.Errorf("%s(%s): the model sees %d bytes; %s = %d allows at most %d (with %d for a note): %.200q…",
			f.Name, o.Call.Args, len(out.text), o.Option, o.Limit, most, TruncationAllowance, out.text)
	}
	if o.Call.Want != "" && !strings.Contains(out.text, o.Call.Want) {
		t.Errorf("%s(%s): the model sees %.300q, want it to contain %q (the toolkit says what it cut or refused)", f.Name, o.Call.Args, out.text, o.Call.Want)
	}
}

// checkOptions checks the options as a config file reaches them.
func checkOptions(t *testing.T, s *suite) {
	env := tool.ToolkitEnv{Dir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)}
	for _, p := range untaggedFields(s.tk.OptionsType()) {
		t.Errorf("options field %s: give it a toml tag with agno's lower_snake_case key", p)
	}

	opts := s.tk.DefaultOptions(env)
	for _, p := range tool.OptionErrors(s.tk.Check(env, opts, nil)) {
		t.Errorf("the defaults, without a table, are refused: %s (key %q)", p.Msg, p.Key)
	}

	cases := append([]BadOption{{Table: "tooltest_no_such_option = 1", Key: "tooltest_no_such_option"}}, s.h.BadOptions...)
	if len(s.h.BadOptions) == 0 {
		t.Logf("Harness.BadOptions is empty: only an unknown key is tried")
	}
	for _, c := range cases {
		_, problems, err := decodeOptions(s.tk, env, c.Table)
		if err != nil {
			t.Errorf("%q does not decode: %v (a BadOption's table must decode and be refused by Check)", c.Table, err)
			continue
		}
		found := false
		for _, p := range problems {
			found = found || p.Key == c.Key
			// A host puts the table's name before Msg: it must start
			// with its key to read as one ("toolkits.shell.timeout_seconds = -1: …").
			if p.Key != "" && !strings.HasPrefix(p.Msg, p.Key) {
				t.Errorf("%q: the problem %q names key %q but does not start with it", c.Table, p.Msg, p.Key)
			}
		}
		if !found {
			t.Errorf("%q: got %s, want a tool.OptionError with Key %q", c.Table, describe(problems), c.Key)
		}
	}
}

func describe(problems []*tool.OptionError) string {
	if len(problems) == 0 {
		return "no problem"
	}
	var parts []string
	for _, p := range problems {
		parts = append(parts, fmt.Sprintf("{Key: %q, Msg: %q}", p.Key, p.Msg))
	}
	return strings.Join(parts, ", ")
}
