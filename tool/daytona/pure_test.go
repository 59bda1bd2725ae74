package daytona

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

func TestPreparePythonCode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x = true", "x = True"},
		{"f(false, none)", "f(False, None)"},
		{"print('true')", "print('true')"},
		{`print("none", true)`, `print("none", True)`},
		{"s = '''true\nfalse'''\ny = false", "s = '''true\nfalse'''\ny = False"},
		{`s = """a "true" b"""; t = true`, `s = """a "true" b"""; t = True`},
		{"x = true # true stays in a comment\ny = none", "x = True # true stays in a comment\ny = None"},
		{`f'{true}' + rb"false" + true`, `f'{true}' + rb"false" + True`},
		{`'it\'s true' , true`, `'it\'s true' , True`},
		{"trueish = untrue + true_ + true1 + _true", "trueish = untrue + true_ + true1 + _true"},
		{"étrue true", "étrue True"},
		{"TRUE True true", "TRUE True True"},
		{"x = 'unterminated true", "x = 'unterminated True"},
		{"x = 'a\\\ntrue'", "x = 'a\\\nTrue'"},
		{"a.true.b", "a.True.b"},
	} {
		if got := preparePythonCode(c.in); got != c.want {
			t.Errorf("preparePythonCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPythonCompatibility compares pathlib joins, parents and json.dumps
// with CPython when python3 is installed.
func TestPythonCompatibility(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	type pair struct{ WD, P string }
	var pairs []pair
	for _, wd := range []string{"/home/daytona", "/", "//srv", "rel/dir", "", "/a/../b/./c//"} {
		for _, p := range append([]string{"", ".", "..", "x/../y", "/abs//p/", "//two", "///three", "./a/./b/", "a'b; c", "ü/✓"}, hostileNames...) {
			pairs = append(pairs, pair{wd, p})
		}
	}
	msgs := []string{"plain", "quote \" back \\ nl \n tab \t", "ü ✓ 🎉", "\x01\x1f\x7f", "\b\f\r"}
	in, _ := json.Marshal(map[string]any{"pairs": pairs, "msgs": msgs})
	cmd := exec.Command(py, "-c", `import json, sys
from pathlib import PurePosixPath as P
d = json.load(sys.stdin)
out = {"paths": [], "msgs": []}
for pr in d["pairs"]:
    p = P(pr["P"])
    if not p.is_absolute():
        p = P(pr["WD"]) / p
    out["paths"].append([str(p), str(p.parent), str(P(pr["WD"]))])
out["msgs"] = [json.dumps({"status": "error", "message": m}) for m in d["msgs"]]
print(json.dumps(out))`)
	cmd.Stdin = bytes.NewReader(in)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Paths [][3]string
		Msgs  []string
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for i, pr := range pairs {
		p := resolvePath(pr.WD, pr.P)
		got := [3]string{p.String(), p.parent().String(), parsePath(pr.WD).String()}
		if got != want.Paths[i] {
			t.Errorf("wd %q path %q: got %q, python %q", pr.WD, pr.P, got, want.Paths[i])
		}
	}
	for i, m := range msgs {
		if got := errorJSON(m); got != want.Msgs[i] {
			t.Errorf("errorJSON(%q) = %s, python %s", m, got, want.Msgs[i])
		}
	}
}

func TestHeredocDelimiterAvoidsDashBug(t *testing.T) {
	if !dashSafe("x\nB\xc3\n", "AGNO") || dashSafe("x\nAé\n", "AGNO") || dashSafe("AG\x81", "AGNO") || !dashSafe("AxGé", "AGNO") {
		t.Fatal("dashSafe")
	}
	if d := heredocDelimiter("Añadir\n"); d[0] != '_' || !dashSafe("Añadir\n", d) {
		t.Fatalf("delimiter %q for a line starting with A and a non-ASCII byte", d)
	}
	if d := heredocDelimiter("plain\n"); !strings.HasPrefix(d, "AGNO_EOF_") || len(d) != len("AGNO_EOF_")+16 {
		t.Fatalf("delimiter %q", d)
	}
	if d := heredocDelimiter(pathological); d != "" {
		t.Fatalf("pathological content got delimiter %q", d)
	}
	if cmd := writeFileCommand("/a b", pathological, ""); !strings.HasPrefix(cmd, "printf %s 'Aé\n_é\n") || !strings.HasSuffix(cmd, "' > '/a b'") {
		t.Fatalf("fallback command %q", cmd)
	}
}

func TestPyStrip(t *testing.T) {
	if got := pyStrip("\x1c\t cd x \u00a0\u3000\n"); got != "cd x" {
		t.Fatalf("pyStrip = %q", got)
	}
}
