package exampleflags

import (
	"bytes"
	"errors"
	"flag"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	var out bytes.Buffer
	var socket string
	f, err := Parse("demo", "a demo", []string{"-offline", "-yes", "-db", "x.db", "-socket", "s", "what", "now"}, &out, func(fs *flag.FlagSet) {
		fs.StringVar(&socket, "socket", "", "socket")
	})
	if err != nil || !f.Offline || !f.Yes || f.DB != "x.db" || socket != "s" || strings.Join(f.Args, " ") != "what now" {
		t.Fatalf("%+v %v", f, err)
	}
	out.Reset()
	if _, err := Parse("demo", "a demo", []string{"-h"}, &out, nil); !errors.Is(err, flag.ErrHelp) || !strings.Contains(out.String(), "usage: go run ./examples/demo") || !strings.Contains(out.String(), "-offline") {
		t.Errorf("-h: %v\n%s", err, out.String())
	}
	if _, err := Parse("demo", "a demo", []string{"-nope"}, &out, nil); err == nil || !isFlagError(err) || errors.Is(err, flag.ErrHelp) {
		t.Errorf("-nope: %v", err)
	}
}

// Every runnable example prints its usage and exits 0 on -h, and exits 2
// on a flag it does not know.
func TestExamplesHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples")
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "../../quickstart", "../../hitl-confirm", "../../hitl-socket")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, name := range []string{"quickstart", "hitl-confirm", "hitl-socket"} {
		out, err := exec.Command(filepath.Join(bin, name), "-h").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "usage: go run ./examples/"+name) || !strings.Contains(string(out), "-offline") || !strings.Contains(string(out), "-yes") {
			t.Errorf("%s -h: %v\n%s", name, err, out)
		}
		err = exec.Command(filepath.Join(bin, name), "-nope").Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("%s -nope: %v, want exit 2", name, err)
		}
	}
}
