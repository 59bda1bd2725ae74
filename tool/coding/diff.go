package coding

import (
	"fmt"
	"strings"
)

// splitKeepEnds is Python's str.splitlines(keepends=True) for "\n" and
// "\r\n" line ends.
func splitKeepEnds(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// unifiedDiff is "".join(difflib.unified_diff(a, b, from, to, n=3)) for
// the one change edit_file makes: the lines between the common head and
// tail are replaced, in one hunk. difflib's SequenceMatcher may instead
// keep a line the old and new text share inside the changed region as
// context; the hunk here shows the whole region replaced.
func unifiedDiff(a, b, from, to string) string {
	const n = 3
	al, bl := splitKeepEnds(a), splitKeepEnds(b)
	head := 0
	for head < len(al) && head < len(bl) && al[head] == bl[head] {
		head++
	}
	tail := 0
	for tail < len(al)-head && tail < len(bl)-head && al[len(al)-1-tail] == bl[len(bl)-1-tail] {
		tail++
	}
	if head == len(al) && head == len(bl) {
		return ""
	}
	start := max(head-n, 0)
	aEnd := min(len(al)-tail+n, len(al))
	bEnd := min(len(bl)-tail+n, len(bl))
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", from, to)
	fmt.Fprintf(&w, "@@ -%s +%s @@\n", hunkRange(start, aEnd-start), hunkRange(start, bEnd-start))
	// As difflib, a last line without "\n" runs on into the next.
	line := func(prefix, l string) { w.WriteString(prefix + l) }
	for _, l := range al[start:head] {
		line(" ", l)
	}
	for _, l := range al[head : len(al)-tail] {
		line("-", l)
	}
	for _, l := range bl[head : len(bl)-tail] {
		line("+", l)
	}
	for _, l := range al[len(al)-tail : aEnd] {
		line(" ", l)
	}
	return w.String()
}

// hunkRange is difflib's _format_range_unified.
func hunkRange(start, length int) string {
	beginning := start + 1
	if length == 1 {
		return fmt.Sprint(beginning)
	}
	if length == 0 {
		beginning--
	}
	return fmt.Sprintf("%d,%d", beginning, length)
}
