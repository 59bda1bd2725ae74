package filegeneration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agno-go/agno/tool"
	"github.com/agno-go/agno/tool/tooltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConformance runs the toolkit suite on [toolkits.file_generation],
// against agno v2.6.13's FileGenerationTools with its defaults (without
// python-docx, so without generate_docx_file, as agno has it then).
func TestConformance(t *testing.T) {
	tooltest.Run(t, tooltest.Harness{
		Toolkit: "file_generation",
		Name:    "file_generation",
		Functions: []tooltest.Function{
			{Name: "generate_json_file", Args: []string{"data", "filename"}},
			{Name: "generate_csv_file", Args: []string{"data", "filename", "headers"}},
			{Name: "generate_pdf_file", Args: []string{"content", "filename", "title"}},
			{Name: "generate_text_file", Args: []string{"content", "filename"}},
			{Name: "generate_html_file", Args: []string{"content", "filename"}},
		},
		Setup: func(*testing.T, *tool.ToolkitEnv) string { return "max_file_size = 1000" },
		Failures: map[string][]tooltest.Call{
			"generate_json_file": {{Args: `{"data": "x", "filename": "a\u0000b"}`, Want: "Error generating JSON file: Invalid filename"}},
			"generate_csv_file":  {{Args: `{"data": "a,b", "filename": "NUL"}`, Want: "Error generating CSV file: Invalid path segment: 'NUL.csv'"}},
			"generate_pdf_file":  {{Args: `{"content": "x", "filename": "C:evil"}`, Want: "Error generating PDF file: Invalid filename"}},
			"generate_text_file": {{Args: `{"content": "x", "filename": "AUX"}`, Want: "Error generating Text file: Invalid path segment: 'AUX.txt'"}},
			"generate_html_file": {{Args: `{"content": "x", "filename": "a\nb"}`, Want: "Error generating HTML file: Invalid filename"}},
		},
		Oversized: &tooltest.Oversized{
			Function: "generate_text_file", Option: "max_file_size", Limit: 1000,
			Call: tooltest.Call{Args: `{"content": "` + strings.Repeat("x", 5000) + `"}`, Want: "more than max_file_size (1000)"},
		},
		BadOptions: []tooltest.BadOption{{Table: "max_file_size = 0", Key: "max_file_size"}},
	})
}

func call(t *testing.T, tk *tool.Toolkit, name, args string) tool.Result {
	t.Helper()
	fns, _ := tk.Functions(context.Background())
	for _, fn := range fns {
		if fn.Name == name {
			res, err := fn.InvokeArgs(context.Background(), &tool.Call{Function: fn}, fn.DecodeArguments(args))
			if err != nil {
				t.Fatalf("%s(%s): %v", name, args, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %q", name)
	return tool.Result{}
}

func all(t *testing.T, cfg Config) *tool.Toolkit {
	t.Helper()
	cfg.All = true
	tk, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestGeneratedFiles(t *testing.T) {
	tk := all(t, Config{})
	for _, c := range []struct {
		fn, args, name, mime, content, msg string
	}{
		// A dict keeps the model's key order; ensure_ascii=False. agno's
		// schema (typing.Dict, typing.List) gives string values.
		{"generate_json_file", `{"data": {"b": "1", "a": "ü"}, "filename": "r"}`, "r.json", "application/json",
			"{\n  \"b\": \"1\",\n  \"a\": \"ü\"\n}", "JSON file 'r.json' generated (26 characters)"},
		{"generate_json_file", `{"data": ["x", "y"], "filename": "arr"}`, "arr.json", "application/json", "[\n  \"x\",\n  \"y\"\n]", ""},
		{"generate_json_file", `{"data": "[1, 2]", "filename": "keep.json"}`, "keep.json", "application/json", "[1, 2]", "JSON file 'keep.json' generated (6 characters)"},
		{"generate_json_file", `{"data": "not json ü", "filename": "w"}`, "w.json", "application/json", "{\n  \"content\": \"not json \\u00fc\"\n}", ""},
		{"generate_csv_file", `{"data": [{"n": "x,y", "v": "3"}, {"v": "q\""}], "filename": "t"}`, "t.csv", "text/csv", "n,v\r\n\"x,y\",3\r\n,\"q\"\"\"\r\n", ""},
		{"generate_csv_file", `{"data": [["1", "2.5", ""]], "headers": ["a", "b", "c"], "filename": "l"}`, "l.csv", "text/csv", "a,b,c\r\n1,2.5,\r\n", ""},
		{"generate_csv_file", `{"data": "a;b\n1;2", "filename": "raw.csv"}`, "raw.csv", "text/csv", "a;b\n1;2", ""},
		{"generate_text_file", `{"content": "hello", "filename": "../../etc/evil.txt"}`, "evil.txt", "text/plain", "hello", "Text file 'evil.txt' generated (5 characters)"},
		{"generate_html_file", `{"content": "<!doctype html><p>x</p>", "filename": "p.html"}`, "p.html", "text/html", "<!doctype html><p>x</p>", ""},
	} {
		res := call(t, tk, c.fn, c.args)
		if len(res.Files) != 1 {
			t.Fatalf("%s(%s): %q with %d files", c.fn, c.args, res.Content, len(res.Files))
		}
		f := res.Files[0]
		if f.Filename != c.name || f.MimeType != c.mime || string(f.Content) != c.content || f.Size != int64(len(c.content)) || f.ID == "" {
			t.Errorf("%s(%s) = %+v (%q)", c.fn, c.args, f, f.Content)
		}
		if c.msg != "" && res.Content != c.msg {
			t.Errorf("%s(%s) says %q, want %q", c.fn, c.args, res.Content, c.msg)
		}
	}
	res := call(t, tk, "generate_text_file", `{"content": "x"}`)
	if n := res.Files[0].Filename; !strings.HasPrefix(n, "generated_file_") || !strings.HasSuffix(n, ".txt") {
		t.Fatalf("default name %q", n)
	}
}

func TestPDF(t *testing.T) {
	tk := all(t, Config{})
	res := call(t, tk, "generate_pdf_file", `{"content": "First paragraph.\n\nSecond <b>one</b>, café.", "title": "Report", "filename": "rep"}`)
	f := res.Files[0]
	if f.Filename != "rep.pdf" || f.MimeType != "application/pdf" || !bytes.HasPrefix(f.Content, []byte("%PDF-")) || !bytes.Contains(f.Content, []byte("%%EOF")) {
		t.Fatalf("pdf: %+v", res.Content)
	}
	if want := "PDF file 'rep.pdf' generated ("; !strings.HasPrefix(res.Content, want) || !strings.HasSuffix(res.Content, " bytes)") {
		t.Fatalf("message %q", res.Content)
	}
}

func TestSaveFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlink in the output directory pointing outside it is refused.
	if err := os.Symlink(filepath.Join(dir, "victim.txt"), filepath.Join(out, "link.txt")); err != nil {
		t.Fatal(err)
	}
	tk := all(t, Config{OutputDirectory: out})
	res := call(t, tk, "generate_text_file", `{"content": "saved", "filename": "sub/../n.txt"}`)
	if res.Content != "Text file 'n.txt' generated (5 characters) → "+filepath.Join(out, "n.txt") {
		t.Fatalf("message %q", res.Content)
	}
	if b, err := os.ReadFile(filepath.Join(out, "n.txt")); err != nil || string(b) != "saved" {
		t.Fatalf("saved file: %q, %v", b, err)
	}
	res = call(t, tk, "generate_text_file", `{"content": "pwned", "filename": "link.txt"}`)
	if !strings.Contains(res.Content, "(save failed: ") || len(res.Files) != 1 {
		t.Fatalf("save through an outside symlink: %q", res.Content)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim.txt")); err == nil {
		t.Fatal("a file was written outside the output directory")
	}
	if _, err := New(Config{OutputDirectory: filepath.Join(dir, "missing")}); err == nil {
		t.Fatal("a missing output directory was accepted")
	}
}

func TestEnableFlags(t *testing.T) {
	tk, err := New(Config{EnableJSON: true, EnableHTML: true, EnableDOCX: true})
	if err != nil {
		t.Fatal(err)
	}
	fns, _ := tk.Functions(context.Background())
	var names []string
	for _, fn := range fns {
		names = append(names, fn.Name)
	}
	if strings.Join(names, ",") != "generate_json_file,generate_html_file" {
		t.Fatalf("functions %v", names)
	}
}

func TestSanitizeFilename(t *testing.T) {
	for in, want := range map[string]string{"a/b/c.txt": "c.txt", `x\y.txt`: "y.txt", "report. ": "report", "ｆｕｌｌ.txt": "full.txt"} {
		if got, err := sanitizeFilename(in); err != nil || got != want {
			t.Errorf("sanitizeFilename(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "...", "a\x00", "C:x", `\\srv\x`, "//srv/x", "CON", "com1.txt", "dir/"} {
		if got, err := sanitizeFilename(bad); err == nil {
			t.Errorf("sanitizeFilename(%q) = %q, accepted", bad, got)
		}
	}
}

// TestWriteCSV covers rows agno's csv.writer takes that the schema does
// not offer the model: scalars, numbers, null and booleans.
func TestWriteCSV(t *testing.T) {
	for in, want := range map[string]string{
		`["p", 2]`:                    "p\r\n2\r\n",
		`[[1, 2.5, null, true]]`:      "1,2.5,,True\r\n",
		`[{"b": 1, "a": 2.0}, "odd"]`: "b,a\r\n1,2.0\r\nodd,\r\n",
	} {
		var rows []json.RawMessage
		if err := json.Unmarshal([]byte(in), &rows); err != nil {
			t.Fatal(err)
		}
		if got, err := writeCSV(rows, nil); err != nil || got != want {
			t.Errorf("writeCSV(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
}
