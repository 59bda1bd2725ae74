package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func runSlack(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs(append([]string{"slack", "manifest"}, args...))
	err := cmd.Execute()
	return out.String(), err
}

// With --url https://YOUR-URL the output is the golden copy of agno's
// manifest (see agentos/slack/testdata).
func TestSlackManifestCommand(t *testing.T) {
	want, err := os.ReadFile("../../agentos/slack/testdata/manifest.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := runSlack(t, "--url", "https://YOUR-URL/")
	if err != nil || got != string(want) {
		t.Fatalf("err %v, output:\n%s", err, got)
	}
	got, err = runSlack(t, "--url", "https://x.ngrok.app", "--name", "Research Bot", "--prefix", "/bots/research")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"name": "Research Bot"`, `"display_name": "Research Bot"`,
		`"request_url": "https://x.ngrok.app/bots/research/events"`, `"request_url": "https://x.ngrok.app/bots/research/interactions"`} {
		if !strings.Contains(got, s) {
			t.Errorf("missing %s in\n%s", s, got)
		}
	}
}

func TestSlackManifestCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "--url is required"},
		{[]string{"--url", "http://host"}, "https"},
		{[]string{"--url", "host"}, "not a URL"},
		{[]string{"--url", "https://host", "--name", ""}, "name is empty"},
		{[]string{"--url", "https://host", "--prefix", "slack"}, "prefix"},
	} {
		if _, err := runSlack(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
}
