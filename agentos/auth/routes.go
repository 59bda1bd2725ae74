package auth

import (
	"regexp"
	"strings"
	"sync"
)

// mapping is one entry of agno's get_default_scope_mappings.
type mapping struct {
	method, pattern string
	scope           string
	re              *regexp.Regexp
}

// scopeMappings are agno v2.6.13's default scope mappings, in agno's
// order (the first match wins). Resources agno added after v2.6.13
// (learnings, filesystem, service accounts) are left out.
var scopeMappings = compileMappings([][3]string{
	{"GET", "/config", "config:read"},
	{"GET", "/models", "config:read"},

	{"GET", "/agents", "agents:read"},
	{"GET", "/agents/*", "agents:read"},
	{"POST", "/agents", "agents:write"},
	{"PATCH", "/agents/*", "agents:write"},
	{"DELETE", "/agents/*", "agents:delete"},
	{"POST", "/agents/*/runs", "agents:run"},
	{"POST", "/agents/*/runs/*/continue", "agents:run"},
	{"POST", "/agents/*/runs/*/cancel", "agents:run"},

	{"GET", "/teams", "teams:read"},
	{"GET", "/teams/*", "teams:read"},
	{"POST", "/teams", "teams:write"},
	{"PATCH", "/teams/*", "teams:write"},
	{"DELETE", "/teams/*", "teams:delete"},
	{"POST", "/teams/*/runs", "teams:run"},
	{"POST", "/teams/*/runs/*/continue", "teams:run"},
	{"POST", "/teams/*/runs/*/cancel", "teams:run"},

	{"GET", "/workflows", "workflows:read"},
	{"GET", "/workflows/*", "workflows:read"},
	{"POST", "/workflows", "workflows:write"},
	{"PATCH", "/workflows/*", "workflows:write"},
	{"DELETE", "/workflows/*", "workflows:delete"},
	{"POST", "/workflows/*/runs", "workflows:run"},
	{"POST", "/workflows/*/runs/*/continue", "workflows:run"},
	{"POST", "/workflows/*/runs/*/cancel", "workflows:run"},

	{"GET", "/sessions", "sessions:read"},
	{"GET", "/sessions/*", "sessions:read"},
	{"POST", "/sessions", "sessions:write"},
	{"POST", "/sessions/*/rename", "sessions:write"},
	{"PATCH", "/sessions/*", "sessions:write"},
	{"DELETE", "/sessions", "sessions:delete"},
	{"DELETE", "/sessions/*", "sessions:delete"},

	{"GET", "/memories", "memories:read"},
	{"GET", "/memories/*", "memories:read"},
	{"GET", "/memory_topics", "memories:read"},
	{"GET", "/user_memory_stats", "memories:read"},
	{"POST", "/memories", "memories:write"},
	{"PATCH", "/memories/*", "memories:write"},
	{"DELETE", "/memories", "memories:delete"},
	{"DELETE", "/memories/*", "memories:delete"},
	{"POST", "/optimize-memories", "memories:write"},

	{"GET", "/knowledge/content", "knowledge:read"},
	{"GET", "/knowledge/content/*", "knowledge:read"},
	{"GET", "/knowledge/config", "knowledge:read"},
	{"POST", "/knowledge/content", "knowledge:write"},
	{"PATCH", "/knowledge/content/*", "knowledge:write"},
	{"POST", "/knowledge/search", "knowledge:read"},
	{"DELETE", "/knowledge/content", "knowledge:delete"},
	{"DELETE", "/knowledge/content/*", "knowledge:delete"},

	{"GET", "/metrics", "metrics:read"},
	{"POST", "/metrics/refresh", "metrics:write"},
	{"GET", "/metrics/refresh/status", "metrics:read"},

	{"GET", "/eval-runs", "evals:read"},
	{"GET", "/eval-runs/*", "evals:read"},
	{"POST", "/eval-runs", "evals:write"},
	{"PATCH", "/eval-runs/*", "evals:write"},
	{"DELETE", "/eval-runs", "evals:delete"},

	{"GET", "/traces", "traces:read"},
	{"GET", "/traces/*", "traces:read"},
	{"GET", "/trace_session_stats", "traces:read"},

	{"GET", "/schedules", "schedules:read"},
	{"GET", "/schedules/*", "schedules:read"},
	{"POST", "/schedules", "schedules:write"},
	{"PATCH", "/schedules/*", "schedules:write"},
	{"DELETE", "/schedules/*", "schedules:delete"},
	{"POST", "/schedules/*/enable", "schedules:write"},
	{"POST", "/schedules/*/disable", "schedules:write"},
	{"POST", "/schedules/*/trigger", "schedules:write"},
	{"GET", "/schedules/*/runs", "schedules:read"},
	{"GET", "/schedules/*/runs/*", "schedules:read"},

	{"GET", "/approvals", "approvals:read"},
	{"GET", "/approvals/count", "approvals:read"},
	{"GET", "/approvals/*", "approvals:read"},
	{"GET", "/approvals/*/status", "approvals:read"},
	{"POST", "/approvals/*/resolve", "approvals:write"},
	{"DELETE", "/approvals/*", "approvals:delete"},

	{"POST", "/traces/search", "traces:read"},

	{"POST", "/databases/all/migrate", "config:write"},
	{"POST", "/databases/*/migrate", "config:write"},

	{"POST", "/knowledge/remote-content", "knowledge:write"},
	{"GET", "/knowledge/*/sources", "knowledge:read"},
	{"GET", "/knowledge/*/sources/*/files", "knowledge:read"},

	{"GET", "/registry", "registry:read"},

	{"GET", "/components", "components:read"},
	{"GET", "/components/*", "components:read"},
	{"POST", "/components", "components:write"},
	{"PATCH", "/components/*", "components:write"},
	{"DELETE", "/components/*", "components:delete"},
	{"POST", "/components/*/restore", "components:delete"},
	{"GET", "/components/*/configs", "components:read"},
	{"GET", "/components/*/configs/*", "components:read"},
	{"GET", "/components/*/configs/current", "components:read"},
	{"POST", "/components/*/configs", "components:write"},
	{"PATCH", "/components/*/configs/*", "components:write"},
	{"DELETE", "/components/*/configs/*", "components:delete"},
	{"POST", "/components/*/configs/*/set-current", "components:write"},
})

func compileMappings(rows [][3]string) []mapping {
	out := make([]mapping, len(rows))
	for i, r := range rows {
		out[i] = mapping{method: r[0], pattern: r[1], scope: r[2], re: translate(r[1])}
	}
	return out
}

// RouteFor is agno's requirement of method and path (no trailing slash):
// the reference AgentOS's routes are checked against. AgentOS itself
// takes each served route's scope from the route's declaration; a test
// checks that it is RouteFor's.
//
// Like agno, it knows nothing of routes outside the mappings: POST
// .../runs/<run_id>/resume needs no scope here (agno checks it in the
// route), and GET /workflows/ws maps to workflows:read though agno's
// HTTP middleware never sees the WebSocket.
func RouteFor(method, path string) Route {
	r := Route{}
	r.ResourceType, r.ResourceID = ResourceOf(path)
	// agno looks the literal key up first, then patterns in order.
	for _, m := range scopeMappings {
		if m.method == method && m.pattern == path {
			r.Scopes = []string{m.scope}
			return r
		}
	}
	for _, m := range scopeMappings {
		if m.method == method && m.re.MatchString(path) {
			r.Scopes = []string{m.scope}
			return r
		}
	}
	return r
}

// ResourceOf is the resource a path names, which a per-resource scope
// (agents:<id>:run) may grant: its first segment when that is agents,
// teams or workflows, and the id its second segment. agno's middleware
// matched "/agents" anywhere in the path; later versions anchor it,
// which keeps /sessions/agents-1 from passing for an agents listing.
func ResourceOf(path string) (typ, id string) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return "", ""
	}
	first, rest, _ := strings.Cut(rest, "/")
	switch first {
	case "agents", "teams", "workflows":
	default:
		return "", ""
	}
	id, _, _ = strings.Cut(rest, "/")
	return first, id
}

var patterns sync.Map // pattern → *regexp.Regexp

// PathMatch reports whether path matches an fnmatch pattern as Python's
// fnmatch does: * is any run of characters, / included; ? one
// character; [seq] and [!seq] a set.
func PathMatch(pattern, path string) bool {
	re, ok := patterns.Load(pattern)
	if !ok {
		re, _ = patterns.LoadOrStore(pattern, translate(pattern))
	}
	return re.(*regexp.Regexp).MatchString(path)
}

// translate is Python's fnmatch.translate.
func translate(pat string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	rs := []rune(pat)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '*':
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(rs) && rs[j] == '!' {
				j++
			}
			if j < len(rs) && rs[j] == ']' {
				j++
			}
			for j < len(rs) && rs[j] != ']' {
				j++
			}
			if j >= len(rs) {
				b.WriteString(`\[`)
				continue
			}
			set := rs[i+1 : j]
			i = j
			b.WriteString(charClass(set))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.MustCompile(b.String())
}

// charClass is the regexp of an fnmatch set (without its brackets).
func charClass(set []rune) string {
	if len(set) == 0 {
		return `[^\x00-\x{10FFFF}]` // Python: an empty set matches nothing
	}
	neg := set[0] == '!'
	if neg {
		set = set[1:]
		if len(set) == 0 {
			return `.` // "[!]" is any character
		}
	}
	var b strings.Builder
	b.WriteByte('[')
	if neg {
		b.WriteByte('^')
	}
	for k := 0; k < len(set); k++ {
		if k+2 < len(set) && set[k+1] == '-' {
			lo, hi := set[k], set[k+2]
			k += 2
			if lo > hi {
				continue // Python drops reversed ranges
			}
			b.WriteString(quoteClass(lo) + "-" + quoteClass(hi))
			continue
		}
		b.WriteString(quoteClass(set[k]))
	}
	b.WriteByte(']')
	if b.Len() == 2 || (neg && b.Len() == 3) {
		if neg {
			return `.`
		}
		return `[^\x00-\x{10FFFF}]`
	}
	return b.String()
}

func quoteClass(r rune) string {
	switch r {
	case '\\', ']', '[', '^', '-':
		return `\` + string(r)
	}
	return string(r)
}
