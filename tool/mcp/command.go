package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// allowedExecutables are the launchers agno accepts by name alone.
var allowedExecutables = []string{"python", "python3", "uv", "uvx", "pipx", "node", "npm", "npx",
	"yarn", "pnpm", "bun", "deno", "java", "ruby", "docker"}

// Errors with agno's texts (prepare_command).
var (
	errShellMeta    = errors.New("MCP command can't contain shell metacharacters")
	errEmptyCommand = errors.New("MCP command can't be empty")
)

func errNotAllowed() error {
	quoted := make([]string, len(allowedExecutables))
	for i, e := range allowedExecutables {
		quoted[i] = "'" + e + "'"
	}
	return fmt.Errorf("MCP command needs to use one of the following executables: {%s}", strings.Join(quoted, ", "))
}

// prepareCommand checks a command line and splits it into argv like agno's
// prepare_command: no shell metacharacters, POSIX shell-word splitting,
// then the executable rule of checkExecutable.
func prepareCommand(command string) ([]string, error) {
	if strings.ContainsAny(command, "&|;`$()") {
		return nil, errShellMeta
	}
	argv, err := splitShellWords(command)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errEmptyCommand
	}
	if err := checkExecutable(argv[0]); err != nil {
		return nil, err
	}
	return argv, nil
}

// prepareExecutable checks an executable given apart from its arguments;
// nothing is split, since no shell ever sees it.
func prepareExecutable(exe string, args []string) ([]string, error) {
	if strings.TrimSpace(exe) == "" {
		return nil, errEmptyCommand
	}
	if strings.ContainsAny(exe, "&|;`$()") {
		return nil, errShellMeta
	}
	if err := checkExecutable(exe); err != nil {
		return nil, err
	}
	return append([]string{exe}, args...), nil
}

// checkExecutable accepts a path containing a slash that names an existing
// file (agno meant to and did not), or, by its base name, a file in the
// working directory, a program on PATH or one of allowedExecutables.
func checkExecutable(exe string) error {
	if strings.ContainsRune(exe, '/') || strings.ContainsRune(exe, filepath.Separator) {
		if isFile(exe) {
			return nil
		}
	}
	base := filepath.Base(exe)
	if i := strings.LastIndexByte(exe, '/'); i >= 0 {
		base = exe[i+1:]
	}
	if isFile(base) {
		return nil
	}
	if _, err := exec.LookPath(base); err == nil {
		return nil
	}
	for _, a := range allowedExecutables {
		if base == a {
			return nil
		}
	}
	return errNotAllowed()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// splitShellWords is Python's shlex.split (POSIX mode, no comments):
// whitespace separates words; single quotes keep everything literally;
// inside double quotes a backslash escapes only " and \; outside quotes a
// backslash escapes any character.
func splitShellWords(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		quote   rune // 0, '\'' or '"'
		escaped bool // the previous rune was a backslash
	)
	for _, r := range s {
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' {
				cur.WriteRune('\\')
			}
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		//lint:ignore ST1005 shlex's message, as agno reports it
		return nil, errors.New("No closing quotation")
	}
	if escaped {
		//lint:ignore ST1005 shlex's message, as agno reports it
		return nil, errors.New("No escaped character")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
