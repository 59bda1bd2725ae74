package article

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Markdown writes an article's content as Markdown, the way crawl4ai's
// markdown generator does for a page: headings, paragraphs, lists, links,
// emphasis, code and quotes; scripts, styles and forms left out.
func Markdown(n *html.Node) string {
	if n == nil {
		return ""
	}
	m := &md{}
	m.block(n)
	out := blankRuns.ReplaceAllString(m.b.String(), "\n\n")
	return strings.TrimSpace(out)
}

var blankRuns = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`)

type md struct {
	b      strings.Builder
	list   []int // per open list: -1 unordered, else the next number
	inPre  bool
	quoted int
}

func (m *md) nl(n int) {
	m.b.WriteString(strings.Repeat("\n", n))
	if m.quoted > 0 {
		m.b.WriteString(strings.Repeat("> ", m.quoted))
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func (m *md) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		m.block(c)
	}
}

func (m *md) block(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		if m.inPre {
			m.b.WriteString(n.Data)
			return
		}
		if t := strings.Join(strings.Fields(n.Data), " "); t != "" {
			if strings.TrimLeft(n.Data, " \t\n\r") != n.Data && !strings.HasSuffix(m.b.String(), " ") && !strings.HasSuffix(m.b.String(), "\n") {
				m.b.WriteByte(' ')
			}
			m.b.WriteString(t)
			if strings.TrimRight(n.Data, " \t\n\r") != n.Data {
				m.b.WriteByte(' ')
			}
		}
		return
	case html.DocumentNode:
		m.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Form, atom.Button, atom.Input, atom.Select, atom.Textarea, atom.Svg, atom.Iframe:
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		m.nl(2)
		m.b.WriteString(strings.Repeat("#", int(n.Data[1]-'0')) + " ")
		m.children(n)
		m.nl(2)
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Main, atom.Header, atom.Footer, atom.Figure, atom.Table, atom.Tr:
		m.nl(2)
		m.children(n)
		m.nl(2)
	case atom.Br:
		m.nl(1)
	case atom.Hr:
		m.nl(2)
		m.b.WriteString("---")
		m.nl(2)
	case atom.Ul, atom.Ol:
		start := -1
		if n.DataAtom == atom.Ol {
			start = 1
		}
		m.list = append(m.list, start)
		m.nl(1)
		m.children(n)
		m.list = m.list[:len(m.list)-1]
		m.nl(1)
	case atom.Li:
		m.nl(1)
		m.b.WriteString(strings.Repeat("  ", max(len(m.list)-1, 0)))
		if k := len(m.list) - 1; k >= 0 && m.list[k] > 0 {
			fmt.Fprintf(&m.b, "%d. ", m.list[k])
			m.list[k]++
		} else {
			m.b.WriteString("- ")
		}
		m.children(n)
	case atom.Pre:
		m.nl(2)
		m.b.WriteString("```")
		m.nl(1)
		outer := m.b
		m.b = strings.Builder{}
		m.inPre = true
		m.children(n)
		m.inPre = false
		code := strings.TrimRight(m.b.String(), "\n")
		m.b = outer
		m.b.WriteString(code)
		m.nl(1)
		m.b.WriteString("```")
		m.nl(2)
	case atom.Code:
		if m.inPre {
			m.children(n)
			return
		}
		m.b.WriteByte('`')
		m.children(n)
		m.b.WriteByte('`')
	case atom.Strong, atom.B:
		m.b.WriteString("**")
		m.children(n)
		m.b.WriteString("**")
	case atom.Em, atom.I:
		m.b.WriteByte('*')
		m.children(n)
		m.b.WriteByte('*')
	case atom.Blockquote:
		m.quoted++
		m.nl(2)
		m.children(n)
		m.quoted--
		m.nl(2)
	case atom.A:
		href := attr(n, "href")
		if href == "" || strings.HasPrefix(href, "javascript:") {
			m.children(n)
			return
		}
		m.b.WriteByte('[')
		m.children(n)
		m.b.WriteString("](" + href + ")")
	case atom.Img:
		if src := attr(n, "src"); src != "" {
			m.b.WriteString("![" + attr(n, "alt") + "](" + src + ")")
		}
	case atom.Td, atom.Th:
		m.children(n)
		m.b.WriteString(" | ")
	default:
		m.children(n)
	}
}
