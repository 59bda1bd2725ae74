package reasoning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agno-go/agno/run"
)

// ErrNoRun is the error of AppendNote outside a run: the notes live in
// the run's session state.
var ErrNoRun = errors.New("this call has no run, and the notes are kept in the run's session state")

// AppendNote is the scratchpad of agno's KnowledgeTools, MemoryTools and
// WorkflowTools (think, analyze): it appends note to the list
// session_state[key] of the call's run and answers with the whole list
// as they format it, heading + ":" and the notes as "- " lines.
func AppendNote(ctx context.Context, key, heading, note string) (string, error) {
	rc := run.FromContext(ctx)
	if rc == nil {
		return "", fmt.Errorf("session_state[%q]: %w", key, ErrNoRun)
	}
	var lines []string
	rc.State(func(state map[string]any) {
		list, _ := state[key].([]any)
		list = append(list, note)
		state[key] = list
		for _, v := range list {
			lines = append(lines, "- "+fmt.Sprint(v))
		}
	})
	return FormatNotes(heading, lines), nil
}

var blankLine = regexp.MustCompile(`(?m)^[ \t]+$`)

// FormatNotes renders agno's dedent(f"""{heading}:\n                {notes}\n                """).strip():
// the heading's line has no margin, so dedent removes none and the first
// note keeps the 16 spaces of agno's source, the others none; lines of
// blanks only are emptied.
func FormatNotes(heading string, lines []string) string {
	text := heading + ":\n" + strings.Repeat(" ", 16) + strings.Join(lines, "\n") + "\n" + strings.Repeat(" ", 16)
	return strings.TrimSpace(blankLine.ReplaceAllString(text, ""))
}

// Instructions are a reasoning toolkit's instructions (agno's
// ReasoningTools, KnowledgeTools, MemoryTools, WorkflowTools): the given
// ones, else def followed, when addFewShot, by the few-shot examples —
// the given ones, else defaultFewShot (none when both are empty).
func Instructions(given, def string, addFewShot bool, fewShot, defaultFewShot string) string {
	if given != "" {
		return given
	}
	if ex := cmp.Or(fewShot, defaultFewShot); addFewShot && ex != "" {
		return def + "\n" + ex
	}
	return def
}
