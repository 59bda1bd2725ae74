// Package article finds a web page's readable article, its text and
// metadata, with go-readability (Mozilla's Readability.js in Go), for the
// toolkits agno builds on newspaper4k and trafilatura.
package article

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
)

// Article is what a page yields.
type Article struct {
	// Node is the article's cleaned-up content; nil when there is none.
	Node     *html.Node
	Title    string
	Byline   string
	Authors  []string
	Text     string
	HTML     string
	Excerpt  string
	SiteName string
	Language string
	Image    string
	// Published and Modified are zero when the page names no date.
	Published, Modified time.Time
}

// Parse reads an HTML page fetched from pageURL (which resolves its
// relative links).
func Parse(page []byte, pageURL *url.URL) (*Article, error) {
	p := readability.NewParser()
	a, err := p.Parse(bytes.NewReader(page), pageURL)
	if err != nil {
		return nil, fmt.Errorf("no article found: %w", err)
	}
	out := &Article{
		Title: strings.TrimSpace(a.Title()), Byline: strings.TrimSpace(a.Byline()), Excerpt: a.Excerpt(),
		SiteName: a.SiteName(), Language: a.Language(), Image: a.ImageURL(),
	}
	out.Authors = Authors(out.Byline)
	out.Node = a.Node
	if a.Node != nil {
		var text, h strings.Builder
		if err := a.RenderText(&text); err == nil {
			out.Text = strings.TrimSpace(text.String())
		}
		if err := a.RenderHTML(&h); err == nil {
			out.HTML = h.String()
		}
	}
	if t, err := a.PublishedTime(); err == nil {
		out.Published = t
	}
	if t, err := a.ModifiedTime(); err == nil {
		out.Modified = t
	}
	return out, nil
}

var (
	bylinePrefix = regexp.MustCompile(`(?i)^\s*(by|written by|posted by|von|par|por)\s*:?\s+`)
	authorSplit  = regexp.MustCompile(`\s*(?:,|;|&|\band\b|\bund\b|\bet\b|\by\b|\|)\s*`)
)

// Authors splits a byline into names, as newspaper's author list has
// them: "By Jane Roe and John Doe" is ["Jane Roe", "John Doe"]; parts
// that are no names (a date, an "on behalf of ..." clause) are left
// out.
func Authors(byline string) []string {
	b := bylinePrefix.ReplaceAllString(byline, "")
	if i := strings.Index(strings.ToLower(b), " on behalf of"); i >= 0 {
		b = b[:i]
	}
	var out []string
	for _, part := range authorSplit.Split(b, -1) {
		part = strings.Trim(strings.TrimSpace(part), ".")
		if part == "" || strings.ContainsAny(part, "0123456789@") || len(strings.Fields(part)) > 5 {
			continue
		}
		if !containsFold(out, part) {
			out = append(out, part)
		}
	}
	return out
}

func containsFold(l []string, s string) bool {
	for _, x := range l {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// ISOFormat is Python's datetime.isoformat(): microseconds only when
// there are some, the offset as +HH:MM.
func ISOFormat(t time.Time) string {
	layout := "2006-01-02T15:04:05"
	if t.Nanosecond()/1000 != 0 {
		layout += ".000000"
	}
	return t.Format(layout + "-07:00")
}
