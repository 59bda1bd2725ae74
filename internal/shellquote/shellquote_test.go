package shellquote_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/agno-go/agno/internal/shellquote"
	"github.com/agno-go/agno/internal/shellquote/shellquotetest"
)

// Golden values computed with CPython's shlex.quote.
var quoteGolden = []struct{ in, want string }{
	{"", "''"},
	{"abc", "abc"},
	{"a b", "'a b'"},
	{"it's", `'it'"'"'s'`},
	{"name'; id;.txt", `'name'"'"'; id;.txt'`},
	{"/home/daytona/test.txt", "/home/daytona/test.txt"},
	{"-rf", "-rf"},
	{"$(touch CANARY)", "'$(touch CANARY)'"},
	{"`id`", "'`id`'"},
	{"a\nb", "'a\nb'"},
	{"é", "'é'"},
	{"*?[", "'*?['"},
	{`"dq"`, `'"dq"'`},
	{"A-Za-z0-9_@%+=:,./-", "A-Za-z0-9_@%+=:,./-"},
	{"~user", "'~user'"},
	{"#x", "'#x'"},
	{"a=b", "a=b"},
	{"''", `''"'"''"'"''`},
	{`\`, `'\'`},
	{"/home/daytona/dir; id;/name's.txt", `'/home/daytona/dir; id;/name'"'"'s.txt'`},
}

func TestQuoteGolden(t *testing.T) {
	for _, c := range quoteGolden {
		if got := shellquote.Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Golden values computed with CPython's posixpath.normpath.
var normGolden = []struct{ in, want string }{
	{"", "."}, {".", "."}, {"..", ".."}, {"/", "/"}, {"//", "//"}, {"///", "/"},
	{"////a", "/a"}, {"//a/..", "//"}, {"/..", "/"}, {"/../a", "/a"}, {"a/..", "."},
	{"a/../..", ".."}, {"../../a", "../../a"}, {"./a/./b/", "a/b"},
	{"/home/daytona/../tmp/./x//y/", "/home/tmp/x/y"}, {"a//b", "a/b"},
	{"//a//b/../c", "//a/c"}, {"/a/b/../../..", "/"}, {"a/b/../../../c", "../c"},
	{"../a/..", ".."}, {".../a", ".../a"}, {"a/.../..", "a"},
	{"/home/daytona/vuln; id;", "/home/daytona/vuln; id;"},
}

func TestNormpathGolden(t *testing.T) {
	for _, c := range normGolden {
		if got := shellquote.Normpath(c.in); got != c.want {
			t.Errorf("Normpath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// corpus is every golden input, hostile file names and random strings.
func corpus() []string {
	var out []string
	for _, c := range quoteGolden {
		out = append(out, c.in)
	}
	for _, c := range normGolden {
		out = append(out, c.in)
	}
	out = append(out, "; touch CANARY;", "a\tb", " lead", "trail ", "-", "--help", "!bang", "{a,b}",
		"$HOME", "${x}", `"$(id)"`, "x'\"'\"'y", "\x01\x7f", "a\\nb", "tab\tand\nnewline\r", "ünïcødé ✓")
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab /.'\"\\$`;&|<>()*?[]{}~#!=%@:,+-_\n\t é✓")
	for range 300 {
		n := rng.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestQuoteRealShell runs every quoted corpus string through real shells:
// printf '%s\0' must receive exactly one argument, equal to the input.
func TestQuoteRealShell(t *testing.T) {
	in := corpus()
	var script strings.Builder
	for _, s := range in {
		script.WriteString(`printf '%s\0' ` + shellquote.Quote(s) + "\n")
	}
	for _, shell := range []string{"sh", "dash", "bash"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			continue
		}
		t.Run(shell, func(t *testing.T) {
			out, err := exec.Command(path, "-c", script.String()).Output()
			if err != nil {
				t.Fatalf("%s: %v", shell, err)
			}
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			if len(got) != len(in) {
				t.Fatalf("%s printed %d words for %d inputs", shell, len(got), len(in))
			}
			for i := range in {
				if got[i] != in[i] {
					t.Errorf("%s: Quote(%q) evaluated to %q", shell, in[i], got[i])
				}
			}
		})
	}
}

// TestAgainstPython compares Quote and Normpath with CPython on the whole
// corpus, when a python3 is installed.
func TestAgainstPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	in := corpus()
	payload, _ := json.Marshal(in)
	cmd := exec.Command(py, "-c", `import json, shlex, posixpath, sys
print(json.dumps([[shlex.quote(s), posixpath.normpath(s)] for s in json.load(sys.stdin)]))`)
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want [][2]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range in {
		if got := shellquote.Quote(s); got != want[i][0] {
			t.Errorf("Quote(%q) = %q, python %q", s, got, want[i][0])
		}
		if got := shellquote.Normpath(s); got != want[i][1] {
			t.Errorf("Normpath(%q) = %q, python %q", s, got, want[i][1])
		}
	}
}

// FuzzQuote checks with a strict POSIX word parser that the quoted form is
// one literal shell word equal to the input, and that it is left bare
// exactly when shlex would leave it bare.
func FuzzQuote(f *testing.F) {
	for _, s := range corpus() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := shellquote.Quote(s)
		toks, err := shellquotetest.Split(q)
		if err != nil {
			t.Fatalf("Quote(%q) = %q does not parse: %v", s, q, err)
		}
		if len(toks) != 1 || toks[0].Op || toks[0].Text != s {
			t.Fatalf("Quote(%q) = %q parses as %q", s, q, shellquotetest.Words(toks))
		}
		bare := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
			return !strings.ContainsRune("_@%+=:,./-", r) &&
				!('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		})
		if bare != (q == s) {
			t.Fatalf("Quote(%q) = %q: bare=%v", s, q, bare)
		}
	})
}

// FuzzQuoteShell is FuzzQuote against a real sh (its seeds run in every
// `go test`; with -fuzz it explores further, slowly).
func FuzzQuoteShell(f *testing.F) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		f.Skip("no sh")
	}
	for _, s := range quoteGolden {
		f.Add(s.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a shell argument cannot hold NUL")
		}
		out, err := exec.Command(sh, "-c", `printf '%s\0' `+shellquote.Quote(s)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := s + "\x00"; string(out) != want {
			t.Fatalf("sh evaluated Quote(%q) to %q", s, out)
		}
	})
}

// FuzzNormpath checks the invariants of a normalised POSIX path.
func FuzzNormpath(f *testing.F) {
	for _, c := range normGolden {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, p string) {
		n := shellquote.Normpath(p)
		if n == "" {
			t.Fatalf("Normpath(%q) is empty", p)
		}
		if again := shellquote.Normpath(n); again != n {
			t.Fatalf("Normpath not idempotent: %q -> %q -> %q", p, n, again)
		}
		if strings.HasPrefix(p, "/") != strings.HasPrefix(n, "/") {
			t.Fatalf("Normpath(%q) = %q changed absoluteness", p, n)
		}
		body := strings.TrimLeft(n, "/")
		if lead := len(n) - len(body); lead > 2 || (lead == 2 && !(strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"))) {
			t.Fatalf("Normpath(%q) = %q has a wrong leading slash run", p, n)
		}
		if body == "" || n == "." {
			return
		}
		parts := strings.Split(body, "/")
		dotdots := 0
		for dotdots < len(parts) && parts[dotdots] == ".." {
			dotdots++
		}
		if dotdots > 0 && strings.HasPrefix(n, "/") {
			t.Fatalf("Normpath(%q) = %q keeps .. under the root", p, n)
		}
		for _, c := range parts[dotdots:] {
			if c == "" || c == "." || c == ".." {
				t.Fatalf("Normpath(%q) = %q keeps component %q", p, n, c)
			}
		}
	})
}
