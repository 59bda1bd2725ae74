package article_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agno-go/agno/tool/internal/article"
)

func TestAuthors(t *testing.T) {
	for in, want := range map[string][]string{
		"By Jane Roe and John Doe":                {"Jane Roe", "John Doe"},
		"Carlos Amedee, on behalf of the Go team": {"Carlos Amedee"},
		"Lena Berg | 12 March 2026":               {"Lena Berg"},
		"written by: Ana Ruiz, Bo Li & Ana Ruiz":  {"Ana Ruiz", "Bo Li"},
		"":                                        nil,
	} {
		if got := article.Authors(in); !slices.Equal(got, want) {
			t.Errorf("Authors(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestISOFormat(t *testing.T) {
	loc := time.FixedZone("", -5*3600)
	if got := article.ISOFormat(time.Date(2026, 3, 14, 9, 30, 0, 0, loc)); got != "2026-03-14T09:30:00-05:00" {
		t.Errorf("%s", got)
	}
	if got := article.ISOFormat(time.Date(2026, 3, 14, 9, 30, 0, 1500, time.UTC)); got != "2026-03-14T09:30:00.000001+00:00" {
		t.Errorf("%s", got)
	}
}

func TestParseAndMarkdown(t *testing.T) {
	page := `<html><head><title>Notes on tides</title><meta name="author" content="Ana Ruiz"></head><body>
<nav><a href="/">Home</a></nav><article><h2>Why tides</h2>
<p>The moon pulls the oceans, and the earth turns beneath the bulge. That is why most coasts see two high tides a day, a little later each day.</p>
<p>Read <a href="/more">more</a>, or see <code>tides.csv</code>:</p><pre><code>port,high
Brest,06:12
</code></pre><ol><li>first</li><li>second</li></ol></article><footer>© 2026</footer></body></html>`
	u, _ := url.Parse("https://tides.example/notes")
	a, err := article.Parse([]byte(page), u)
	if err != nil {
		t.Fatal(err)
	}
	if a.Title != "Notes on tides" || !slices.Equal(a.Authors, []string{"Ana Ruiz"}) || !strings.Contains(a.Text, "The moon pulls the oceans") || strings.Contains(a.Text, "©") {
		t.Errorf("%+v", a)
	}
	md := article.Markdown(a.Node)
	for _, want := range []string{"## Why tides", "[more](https://tides.example/more)", "`tides.csv`", "```\nport,high\nBrest,06:12\n```", "1. first\n2. second"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}
