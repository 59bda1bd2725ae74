package main

import (
	"bytes"
	"strings"
	"testing"
)

// runCLI runs the command line in process, as main does, and returns
// what it printed and its exit code.
func runCLI(args ...string) (string, int) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), exitCode(err)
}

// A mistyped command is a usage error (exit 2) naming the likely one;
// a group named alone, or asked for help, prints its help and succeeds.
func TestMistypedCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says []string
	}{
		{[]string{"agentos", "strt"}, 2, []string{`unknown command "strt" for "agno agentos"`, "did you mean start?", "usage: agno agentos <command>"}},
		{[]string{"slack", "manifst"}, 2, []string{"did you mean manifest?"}},
		{[]string{"strt"}, 2, []string{`unknown command "strt" for "agno"`}},
		{[]string{"version", "extra"}, 2, []string{"usage: agno version"}},
		{[]string{"agentos", "start", "--nope"}, 2, []string{"unknown flag: --nope", "usage: agno agentos start"}},
		{[]string{"agentos"}, 0, []string{"Available Commands:", "start"}},
		{[]string{"agentos", "start", "-h"}, 0, []string{"--config"}},
		{[]string{"-h"}, 0, []string{"agentos", "knowledge"}},
	} {
		out, code := runCLI(c.args...)
		if code != c.code {
			t.Errorf("agno %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, out)
		}
		for _, s := range c.says {
			if !strings.Contains(out, s) {
				t.Errorf("agno %s does not say %q:\n%s", strings.Join(c.args, " "), s, out)
			}
		}
	}
}
